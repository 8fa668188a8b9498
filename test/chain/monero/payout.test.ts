// Monero payouts from the payout float on a real monerod --regtest chain, on both databases: the
// float is a full monero-wallet-rpc wallet funded from the rig's payer; payouts go to a recipient
// wallet's subaddress and integrated address and arrive exactly; the fee the quote charges is the
// fee of the transaction the float relays; Monero's four priorities are what the payout's priority
// asks; a crash between storing and relaying pays once (by a retried send and by the poll); a stored
// transaction whose coin was spent elsewhere fails after standing `confirmations` blocks, and no
// second transaction is ever built for a payout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../helpers/backends.ts';
import { otherRpc, startMoneroRig, type MoneroRig, type WalletRpc } from '../../helpers/monero-rig.ts';
import { fundedFloat, OutgoingSink } from '../../helpers/monero-pay.ts';
import { openStorage, type Storage } from '../../../src/db/dialect.ts';
import { migrateToLatest } from '../../../src/db/migrate.ts';
import type { MoneroPayouts } from '../../../src/chain/monero/outgoing.ts';
import { createMoneroPayouts, type MoneroPayoutDeps } from '../../../src/chain/monero/float.ts';
import { encodeMoneroAddress, parseMoneroAddress } from '../../../src/chain/monero/address.ts';
import { SendRejectedError } from '../../../src/chain/errors.ts';
import { Decimal } from '../../../src/money/decimal.ts';
import { Registry, type Priority } from '../../../src/registry/index.ts';

const XMR = Registry.load().network('XMR')!;
const CONF = 10;
const pico = (xmr: string) => Decimal.parse(xmr).toBaseUnits(12);

let rig: MoneroRig;
let recipient: WalletRpc;
let recipientAddress: string;

beforeAll(async () => {
  rig = await startMoneroRig();
  recipient = await rig.startWalletRpc();
  await recipient.rpc('create_wallet', { filename: 'recipient', password: '', language: 'English' });
  recipientAddress = (await recipient.rpc<{ address: string }>('get_address', { account_index: 0 })).address;
}, 600_000);
afterAll(async () => {
  await rig?.close();
}, 120_000);

/** What the recipient wallet received in transaction `txid` (after a block holds it). */
async function received(txid: string): Promise<Array<{ amount: bigint; minor: number; paymentId: string }>> {
  await recipient.rpc('refresh', {});
  const r = await recipient.rpc<{ transfers?: Array<{ amount: number; subaddr_index: { minor: number }; payment_id: string }> }>('get_transfer_by_txid', { txid }).catch(() => ({ transfers: [] }));
  return (r.transfers ?? []).map((t) => ({ amount: BigInt(t.amount), minor: t.subaddr_index.minor, paymentId: t.payment_id }));
}

describe.each(await backends())('Monero payouts from the float wallet ($name)', (backend) => {
  let storage: Storage;
  let drop: () => Promise<void>;
  let float: WalletRpc;
  const sink = new OutgoingSink();
  let n = 0;
  const id = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
  const make = (extra: Partial<MoneroPayoutDeps> = {}): MoneroPayouts => {
    const p = createMoneroPayouts({
      network: XMR,
      settings: { driver: 'monero', daemon_url: rig.daemonUrl, network: 'mainnet', payout_wallet_rpc_url: float.url },
      storage,
      confirmations: CONF,
      now: () => Date.now(),
      log: () => {},
      ...extra,
    });
    if (!p) throw new Error('no float');
    return p;
  };
  const req = (to: string, amount: string, priority: Priority = 'recommended') => ({ network: 'XMR', currency: 'XMR', to, amount, priority });
  /** The float's outgoing transfers (relayed ones: in the pool or in blocks). */
  const floatOut = async () => {
    await float.rpc('refresh', {});
    const r = await float.rpc<{ out?: Array<{ txid: string; fee: number; destinations?: Array<{ address: string; amount: number }> }>; pending?: Array<{ txid: string; fee: number; destinations?: Array<{ address: string; amount: number }> }>; pool?: unknown[] }>('get_transfers', { out: true, pending: true });
    return [...(r.out ?? []), ...(r.pending ?? [])];
  };

  beforeAll(async () => {
    const db = await backend.create();
    drop = db.drop;
    storage = openStorage({ databaseUrl: db.databaseUrl, sqlitePath: ':memory:' });
    await migrateToLatest(storage);
    float = await fundedFloat(rig, `float-${backend.name}`, [pico('40'), pico('40'), pico('40')]);
  }, 600_000);
  afterAll(async () => {
    await storage?.close();
    await drop?.();
  });

  it('pays a subaddress exactly; the quoted fee is the fee the relayed transaction pays; confirmed up to the required count', { timeout: 300_000 }, async () => {
    const { address: sub, address_index } = await recipient.rpc<{ address: string; address_index: number }>('create_address', { account_index: 0 });
    const payouts = make();
    const p = payouts.parse(req(sub, '1.234567890123'));
    const table = pico(XMR.fees.recommended!);
    const extra = pico(await payouts.destinationFee(p));
    expect(await payouts.cover(p)).toEqual({ covered: true });
    const txid = await payouts.send(id(), p);
    const [row] = await storage.db.selectFrom('scan_outgoing').selectAll().where('txid', '=', txid).execute();
    expect(row!.status).toBe('sent');
    const data = JSON.parse(row!.data!) as { fee: string; priority: number; metadata: string; key_images: string[] };
    expect(data.priority).toBe(2);
    expect(data.metadata.length).toBeGreaterThan(100);
    // The commission (registry table + what the wallet asks beyond it) is exactly the relayed fee.
    const out = (await floatOut()).find((t) => t.txid === txid)!;
    expect(BigInt(out.fee)).toBe(BigInt(data.fee));
    expect(table + extra).toBe(BigInt(out.fee));
    await rig.mine(1);
    expect(await received(txid)).toEqual([{ amount: pico('1.234567890123'), minor: address_index, paymentId: '0000000000000000' }]);
    await payouts.track(sink);
    expect(sink.last(txid)).toEqual({ status: 'confirmed', confirmations: 1 });
    await rig.mine(CONF);
    await payouts.track(sink);
    expect(sink.last(txid)).toEqual({ status: 'confirmed', confirmations: CONF });
    const [after] = await storage.db.selectFrom('scan_outgoing').selectAll().where('txid', '=', txid).execute();
    expect(after!.status).toBe('confirmed');
  });

  it('pays an integrated address (its payment id arrives) and refuses another network type before anything is built', { timeout: 300_000 }, async () => {
    const { integrated_address, payment_id } = await recipient.rpc<{ integrated_address: string; payment_id: string }>('make_integrated_address', {});
    const payouts = make();
    const txid = await payouts.send(id(), payouts.parse(req(integrated_address, '0.5')));
    await rig.mine(1);
    expect(await received(txid)).toEqual([{ amount: pico('0.5'), minor: 0, paymentId: payment_id }]);
    const keys = parseMoneroAddress(recipientAddress);
    const stagenet = encodeMoneroAddress('stagenet', 'standard', keys.publicSpend, keys.publicView);
    expect(() => payouts.parse(req(stagenet, '0.5'))).toThrow(SendRejectedError);
    expect(() => payouts.parse(req(stagenet, '0.5'))).toThrow(/stagenet address; the gateway pays on mainnet/);
    await rig.mine(CONF);
  });

  it('builds at Monero priority 1..4 for economy..highest: the fee grows with the daemon\'s per-byte estimates', { timeout: 300_000 }, async () => {
    const payouts = make();
    const est = await rig.daemon<{ fees: number[] }>('get_fee_estimate', {});
    const fees: Record<string, bigint> = {};
    for (const priority of ['economy', 'recommended', 'high', 'highest'] as const) {
      const extra = pico(await payouts.destinationFee(payouts.parse(req(recipientAddress, '0.1', priority))));
      fees[priority] = pico(XMR.fees.recommended!) + extra;
    }
    expect(fees.economy! < fees.recommended!).toBe(true);
    expect(fees.recommended! < fees.high!).toBe(true);
    expect(fees.high! < fees.highest!).toBe(true);
    // Same transaction shape, so the fees stand as the daemon's per-byte fees of priorities 1 and 4.
    const ratio = Number(fees.highest!) / Number(fees.economy!);
    expect(Math.abs(ratio / (est.fees[3]! / est.fees[0]!) - 1)).toBeLessThan(0.01);
    // And a sent payout is stored with the priority it was built at.
    const txid = await payouts.send(id(), payouts.parse(req(recipientAddress, '0.1', 'highest')));
    const [row] = await storage.db.selectFrom('scan_outgoing').selectAll().where('txid', '=', txid).execute();
    expect((JSON.parse(row!.data!) as { priority: number }).priority).toBe(4);
    await rig.mine(CONF);
  });

  it('a crash between storing and relaying pays once: a retried send relays the stored transaction, and so does the poll', { timeout: 300_000 }, async () => {
    for (const heal of ['send', 'poll'] as const) {
      const payoutId = id();
      const crashing = make({ afterStore: async () => { throw new Error('killed after store'); } });
      const p = crashing.parse(req(recipientAddress, heal === 'send' ? '0.25' : '0.35'));
      await expect(crashing.send(payoutId, p)).rejects.toThrow('killed after store');
      const [stored] = await crashing.attempts(payoutId);
      expect(stored!.status).toBe('signed');
      expect((await floatOut()).some((t) => t.txid === stored!.txid)).toBe(false);
      // The gateway restarts: a new instance, the same database.
      const restarted = make();
      if (heal === 'send') expect(await restarted.send(payoutId, p)).toBe(stored!.txid);
      else {
        await restarted.track(sink);
        expect(await restarted.send(payoutId, p)).toBe(stored!.txid);
      }
      // Asked again: still the one transaction.
      expect(await restarted.send(payoutId, p)).toBe(stored!.txid);
      expect(await restarted.attempts(payoutId)).toHaveLength(1);
      await rig.mine(1);
      expect(await received(stored!.txid)).toEqual([{ amount: pico(p.amount), minor: 0, paymentId: '0000000000000000' }]);
      const outs = (await floatOut()).filter((t) => (t.destinations ?? []).some((d) => d.address === recipientAddress && BigInt(d.amount) === p.units));
      expect(outs.map((t) => t.txid)).toEqual([stored!.txid]);
      await rig.mine(CONF);
    }
  });

  it('a stored transaction whose coin the wallet spent elsewhere fails after standing the required blocks; nothing is built again', { timeout: 300_000 }, async () => {
    const payoutId = id();
    const crashing = make({ afterStore: async () => { throw new Error('killed after store'); } });
    const p = crashing.parse(req(recipientAddress, '0.45'));
    await expect(crashing.send(payoutId, p)).rejects.toThrow('killed after store');
    const [stored] = await crashing.attempts(payoutId);
    // The operator spends every coin of the wallet meanwhile (to itself).
    const own = (await float.rpc<{ address: string }>('get_address', { account_index: 0 })).address;
    const { tx_hash_list: sweeps } = await float.rpc<{ tx_hash_list: string[] }>('sweep_all', { address: own, account_index: 0 });
    // Mined: the sweep's spending of the coin stands in a block.
    for (let i = 0; i < 5; i++) {
      await rig.mine(1);
      const r = await otherRpc<{ txs?: Array<{ in_pool: boolean }> }>(rig.daemonUrl, 'get_transactions', { txs_hashes: sweeps });
      if ((r.txs ?? []).length === sweeps.length && r.txs!.every((t) => !t.in_pool)) break;
    }
    const restarted = make();
    await restarted.track(sink);
    expect((await restarted.attempts(payoutId))[0]!.status).toBe('signed');
    await rig.mine(CONF);
    await restarted.track(sink);
    const [failed] = await restarted.attempts(payoutId);
    expect(failed!.status).toBe('failed');
    await expect(restarted.send(payoutId, p)).rejects.toThrow(SendRejectedError);
    expect(await restarted.attempts(payoutId)).toHaveLength(1);
    expect((await floatOut()).some((t) => t.txid === stored!.txid)).toBe(false);
  });
});
