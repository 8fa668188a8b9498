// Monero payouts through the signed public API (`POST /v1/payout`), on a real monerod --regtest
// chain and both databases: the payout float is a full monero-wallet-rpc wallet the test funds
// (`payout_wallet_rpc_url`) under `payout_float` caps. A payout to a subaddress, an integrated
// address and a standard address is built at Monero's priority for the payout's `priority`
// (economy 1, recommended 2, high 3, highest 4), its `commission` is the fee the relayed
// transaction pays plus nothing else, the payee receives the amount exactly and the payout ends
// `paid`; beyond `max_per_payout` or `max_per_day`, and to another network type's address, it is
// refused at creation with the spec's envelope, nothing recorded or debited.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../helpers/backends.ts';
import { startMoneroRig, type MoneroRig, type WalletRpc } from '../../helpers/monero-rig.ts';
import { fundedFloat } from '../../helpers/monero-pay.ts';
import { startGateway, type Gateway } from '../gateway-setup.ts';
import { balanceOf, entriesSum, post } from '../../../src/ledger/index.ts';
import { createWorkers } from '../../../src/worker/index.ts';
import { encodeMoneroAddress, parseMoneroAddress } from '../../../src/chain/monero/address.ts';
import { Decimal } from '../../../src/money/decimal.ts';
import { spentToday } from '../../../src/outgoing/float.ts';

const CONF = 2;
const pico = (xmr: string) => Decimal.parse(xmr).toBaseUnits(12);
const xmr = (piconero: bigint | number) => Decimal.fromBaseUnits(BigInt(piconero), 12);

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

describe.each(await backends())('XMR payouts through POST /v1/payout ($name)', (backend) => {
  let g: Gateway;
  let float: WalletRpc;
  let n = 0;

  beforeAll(async () => {
    float = await fundedFloat(rig, `api-float-${backend.name}`, Array.from({ length: 6 }, () => pico('10')));
    const network = {
      driver: 'monero', daemon_url: rig.daemonUrl, network: 'mainnet', confirmations: CONF, payout_wallet_rpc_url: float.url,
      payout_float: { max_per_payout: { XMR: '2' }, max_per_day: { XMR: '3' } },
    };
    g = await startGateway(backend, { env: { SATCHEL_NETWORKS: JSON.stringify({ XMR: network }) } });
    await g.ctx.storage.write((trx) =>
      post(trx, { merchantId: g.merchant.id, wallet: 'business', currency: 'XMR', amount: '100', reason: 'test_funding', ref: { kind: 'test', id: 'funding' }, key: `test:${randomUUID()}`, now: g.ctx.now() }),
    );
  }, 600_000);
  afterAll(async () => {
    await g?.close();
    await float?.stop();
  }, 120_000);

  const tick = async () => {
    const errors: unknown[] = [];
    await createWorkers(g.ctx, { error: (o) => errors.push(o) }).tick();
    if (errors.length) throw (errors[0] as { err?: Error }).err ?? new Error(JSON.stringify(errors[0]));
  };
  const payout = (body: Record<string, unknown>) =>
    g.api('/v1/payout', { currency: 'XMR', network: 'XMR', is_subtract: true, order_id: `xmr-${backend.name}-${++n}`, ...body }, { key: 'payout' });
  const balance = () => balanceOf(g.ctx.storage.db, g.merchant.id, 'business', 'XMR');
  const sent = (uuid: string) => g.ctx.storage.db.selectFrom('scan_outgoing').selectAll().where('request_id', '=', uuid).execute();
  const info = async (uuid: string) => (await g.api('/v1/payout/info', { uuid }, { key: 'payout' })).body.result as Record<string, any>;
  /** What the recipient wallet received in `txid`. */
  const received = async (txid: string) => {
    await recipient.rpc('refresh', {});
    const r = await recipient.rpc<{ transfers?: Array<{ amount: number; subaddr_index: { minor: number }; payment_id: string }> }>('get_transfer_by_txid', { txid }).catch(() => ({ transfers: [] }));
    return (r.transfers ?? []).map((t) => ({ amount: xmr(t.amount).toString(), minor: t.subaddr_index.minor, paymentId: t.payment_id }));
  };
  /** The fee of the float's relayed transaction `txid`. */
  const relayedFee = async (txid: string) => {
    await float.rpc('refresh', {});
    const r = await float.rpc<{ transfer: { fee: number } }>('get_transfer_by_txid', { txid });
    return xmr(r.transfer.fee);
  };
  /** A refusal at creation: a 422 in the spec's envelope, no payout row, the balance as it was. */
  const refused = async (body: Record<string, unknown>) => {
    const before = await balance();
    const orderId = `xmr-refused-${backend.name}-${++n}`;
    const r = await payout({ ...body, order_id: orderId });
    expect(r.status, r.raw).toBe(422);
    expect(r.body.state).toBe(1);
    expect(await g.ctx.storage.db.selectFrom('payouts').select('id').where('order_id', '=', orderId).execute()).toEqual([]);
    expect(await balance()).toBe(before);
    expect(await balance()).toBe(await entriesSum(g.ctx.storage.db, g.merchant.id, 'business', 'XMR'));
    return r.body as { state: number; message: string; errors?: Record<string, string[]> };
  };

  it('pays a subaddress, an integrated address and a standard address at Monero priorities 1, 4 and 3; the commission is the relayed fee; each arrives exactly and ends paid', { timeout: 600_000 }, async () => {
    const { address: sub, address_index } = await recipient.rpc<{ address: string; address_index: number }>('create_address', { account_index: 0 });
    const { integrated_address, payment_id } = await recipient.rpc<{ integrated_address: string; payment_id: string }>('make_integrated_address', {});
    const cases = [
      { to: sub, amount: '0.5', priority: 'economy', monero: 1, minor: address_index, paymentId: '0000000000000000' },
      { to: integrated_address, amount: '0.25', priority: 'highest', monero: 4, minor: 0, paymentId: payment_id },
      { to: recipientAddress, amount: '0.125', priority: 'high', monero: 3, minor: 0, paymentId: '0000000000000000' },
      { to: recipientAddress, amount: '0.0625', priority: undefined, monero: 2, minor: 0, paymentId: '0000000000000000' },
    ];
    for (const c of cases) {
      const before = Decimal.parse(await balance());
      const r = await payout({ amount: c.amount, address: c.to, ...(c.priority ? { priority: c.priority } : {}) });
      expect(r.status, r.raw).toBe(200);
      const p = r.body.result as Record<string, any>;
      expect(p).toMatchObject({ currency: 'XMR', network: 'XMR', address: c.to, status: 'process', payer_currency: 'XMR' });
      const commission = Decimal.parse(p.commission);
      // The fee is at least the registry's table fee, and the merchant is debited amount + fee.
      expect(commission.gte('0.0001')).toBe(true);
      expect(Decimal.parse(p.merchant_amount).eq(Decimal.parse(c.amount).add(commission))).toBe(true);
      expect(before.sub(Decimal.parse(await balance())).eq(p.merchant_amount)).toBe(true);
      await tick(); // the worker builds, stores and relays it
      const [row] = await sent(p.uuid);
      expect(row).toMatchObject({ kind: 'payout', currency: 'XMR', to_address: c.to, status: 'sent' });
      expect((JSON.parse(row!.data!) as { priority: number }).priority).toBe(c.monero);
      // The commission shown is the fee the float's relayed transaction pays.
      expect((await relayedFee(row!.txid)).eq(commission)).toBe(true);
      for (let i = 0; i < CONF; i++) {
        await rig.mine(1);
        await tick();
      }
      expect(await received(row!.txid)).toEqual([{ amount: Decimal.parse(c.amount).toString(), minor: c.minor, paymentId: c.paymentId }]);
      await tick();
      expect(await info(p.uuid)).toMatchObject({ status: 'paid', is_final: true, txid: row!.txid });
      // Mined past the change's lock, so the next payout finds unlocked coins.
      await rig.mine(10);
    }
    expect(await balance()).toBe(await entriesSum(g.ctx.storage.db, g.merchant.id, 'business', 'XMR'));
  });

  it('refuses beyond max_per_payout and max_per_day at creation with the spec\'s envelope, nothing recorded or debited', { timeout: 300_000 }, async () => {
    const perPayout = await refused({ amount: '2.5', address: recipientAddress });
    expect(perPayout.message).toMatch(/at most 2(\.0+)? XMR per payout \(max_per_payout\)/);
    // The day's allowance is brought to exactly 0.5625 XMR left from whatever today has already
    // sent (nothing when this case runs alone, the payouts above when it runs after them), in
    // payouts within the per-payout cap; then 1 fits the per-payout cap and not what is left of the day's 3.
    let fill = Decimal.parse('3').sub(await spentToday(g.ctx.storage.db, 'XMR', 'XMR', g.ctx.now())).sub('0.5625');
    expect(fill.gte('0')).toBe(true);
    while (fill.gt('0')) {
      const amount = fill.gt('2') ? Decimal.parse('2') : fill;
      const r = await payout({ amount: amount.toString(), address: recipientAddress });
      expect(r.status, r.raw).toBe(200);
      fill = fill.sub(amount);
    }
    const perDay = await refused({ amount: '1', address: recipientAddress });
    expect(perDay.message).toMatch(/max_per_day/);
    expect(perDay.message).toMatch(/0\.56\d* XMR is left today/);
  });

  it('refuses another network type\'s address (stagenet, testnet) before anything moves', { timeout: 120_000 }, async () => {
    const keys = parseMoneroAddress(recipientAddress);
    for (const type of ['stagenet', 'testnet'] as const) {
      for (const kind of ['standard', 'subaddress'] as const) {
        const body = await refused({ amount: '0.1', address: encodeMoneroAddress(type, kind, keys.publicSpend, keys.publicView) });
        expect(body.errors ?? body.message).toBeTruthy();
      }
    }
  });
});
