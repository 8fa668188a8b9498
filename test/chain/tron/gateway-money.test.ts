// Money out through the gateway on the TRON node double: payouts from the hot wallet (TRX and
// USDT) built by the node, checked field by field before signing, signed in-process, stored,
// broadcast, confirmed; a node that builds something else is refused; a worker dying between
// storing and broadcasting; transactions that expire unmined. The double checks every broadcast
// transaction with tronweb (decoding and signature).
import { merchantVerifies } from '../../helpers/merchant.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { TronWeb } from 'tronweb';
import { backends } from '../../helpers/backends.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';
import { balanceOf, entriesSum, post } from '../../../src/ledger/index.ts';
import { tronDb } from '../../../src/chain/tron/schema.ts';
import type { TronDriver } from '../../../src/chain/tron/tron-driver.ts';
import { LEASE_MS } from '../../../src/outgoing/sender.ts';
import { TRON_USDT as USDT, TRX as UNITS, startTronGateway, type TronGateway, secondInstance } from '../gateway-setup.ts';
import { HotWalletShortError } from '../../../src/chain/errors.ts';

/** Today's custody: deposit addresses from the gateway's seed, swept to the hot wallet. */
const HOT = { custody: 'hot' } as const;

describe.each(await backends())('TRON payouts through the gateway on $name', (backend) => {
  let g: TronGateway;
  let rx: Receiver;
  let n = 0;
  beforeAll(async () => {
    g = await startTronGateway(backend, { confirmations: 3, hotTrx: '1000', hotUsdt: '10000', network: HOT });
    rx = await startReceiver();
  });
  afterAll(async () => {
    await g?.stopAll();
    await rx?.close();
  });
  beforeEach(() => {
    rx.deliveries.length = 0;
    g.node.tamper = null;
    g.node.dropBroadcasts = false;
  });

  const fund = (currency: string, amount: string) =>
    g.ctx.storage.write((trx) =>
      post(trx, {
        merchantId: g.merchant.id, wallet: 'business', currency, amount, reason: 'test_funding',
        ref: { kind: 'test', id: 'funding' }, key: `test:${randomUUID()}`, now: g.ctx.now(),
      }),
    );
  const balance = (currency = 'USDT') => balanceOf(g.ctx.storage.db, g.merchant.id, 'business', currency);
  const ledgerAgrees = async (currency = 'USDT') => (await balance(currency)) === (await entriesSum(g.ctx.storage.db, g.merchant.id, 'business', currency));
  const payee = () => TronWeb.address.fromPrivateKey(randomUUID().replace(/-/g, '').padEnd(64, '7')) as string;
  const createPayout = async (body: Record<string, unknown>) => {
    const r = await g.api('/v1/payout', { amount: '10', currency: 'USDT', network: 'TRON', is_subtract: true, order_id: `tron-out-${++n}`, url_callback: rx.url, ...body }, { key: 'payout' });
    expect(r.status, r.raw).toBe(200);
    return r.body.result as Record<string, any>;
  };
  const payoutInfo = async (uuid: string) => (await g.api('/v1/payout/info', { uuid }, { key: 'payout' })).body.result as Record<string, any>;
  const hooks = (uuid: string) => rx.deliveries.filter((d) => d.json.uuid === uuid).map((d) => d.json.status);
  const payerAmount = async (uuid: string) => (await g.ctx.storage.db.selectFrom('payouts').select('payer_amount').where('id', '=', uuid).executeTakeFirstOrThrow()).payer_amount;
  const outgoingRows = (id: string) => tronDb(g.ctx.storage.db).selectFrom('scan_outgoing').selectAll().where('request_id', '=', id).orderBy('attempt').execute();
  /** Mines until what is in the pool now is solidified. */
  const settle = () => g.mineAndTick(3);

  it('a USDT payout: the node builds it, the driver checks and signs it, tronweb verifies it, paid once solid', async () => {
    await fund('USDT', '100');
    const before = await balance();
    const to = payee();
    const p = await createPayout({ amount: '10', address: to });
    expect(p).toMatchObject({ status: 'process', txid: null, network: 'TRON', currency: 'USDT' });
    await g.tick(); // the worker sends it
    const sent = await payoutInfo(p.uuid);
    expect(sent).toMatchObject({ status: 'check', txid: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const [row] = await outgoingRows(p.uuid);
    expect(row).toMatchObject({ kind: 'payout', attempt: 1, txid: sent.txid, currency: 'USDT', from_address: g.driver().hotWallet, to_address: to, amount: await payerAmount(p.uuid), status: 'sent' });
    // What the node received, as tronweb decoded it from the signed bytes.
    const got = g.node.broadcasts.find((b) => b.txID === sent.txid)!;
    expect(got.effect).toMatchObject({ type: 'TriggerSmartContract', owner: TronWeb.address.toHex(g.driver().hotWallet).toLowerCase(), contract: TronWeb.address.toHex(USDT).toLowerCase(), feeLimit: 50_000_000n });
    await g.mineAndTick();
    expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'check', is_final: false });
    await g.mineAndTick(2);
    expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'paid', is_final: true, txid: sent.txid });
    expect(g.node.tokenBalance(USDT, to)).toBe(UNITS(await payerAmount(p.uuid)));
    expect(hooks(p.uuid)).toEqual(['check', 'paid']);
    const paid = rx.deliveries.find((d) => d.json.uuid === p.uuid && d.json.status === 'paid')!;
    expect(merchantVerifies(paid, g.merchant.payout_key)).toBe(true);
    expect(Number(before) - Number(await balance())).toBeCloseTo(Number(p.merchant_amount), 6);
    expect(await ledgerAgrees()).toBe(true);
  });

  it('a payout whose block a reorganisation orphans is followed into the new chain and paid once', async () => {
    await fund('USDT', '20');
    const to = payee();
    const p = await createPayout({ amount: '10', address: to });
    await g.tick();
    const { txid } = await payoutInfo(p.uuid);
    await g.mineAndTick();
    const first = (await g.driver().api.txInfo(txid))!.blockNumber;
    g.node.reorg(1, [txid]); // the new chain leaves it out: the node lost it
    await g.tick();
    expect((await outgoingRows(p.uuid))[0]).toMatchObject({ status: 'sent', block_number: null });
    g.clock.advance(20_000);
    await g.tick(); // rebroadcast, the same bytes
    await settle();
    expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'paid', txid });
    expect((await g.driver().api.txInfo(txid))!.blockNumber).toBeGreaterThan(first!);
    expect(g.node.tokenBalance(USDT, to)).toBe(UNITS(await payerAmount(p.uuid)));
  });

  it('a TRX payout to a new address (the hot wallet pays its activation) reaches paid', async () => {
    await fund('TRX', '100');
    const to = payee();
    const hotBefore = g.node.trx(g.driver().hotWallet);
    const p = await createPayout({ amount: '20', currency: 'TRX', address: to });
    await g.tick();
    const sent = await payoutInfo(p.uuid);
    expect(sent).toMatchObject({ status: 'check' });
    expect(g.node.broadcasts.find((b) => b.txID === sent.txid)!.effect).toEqual({
      type: 'TransferContract', owner: TronWeb.address.toHex(g.driver().hotWallet).toLowerCase(), to: TronWeb.address.toHex(to).toLowerCase(), amount: UNITS(await payerAmount(p.uuid)),
    });
    await settle();
    expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'paid', is_final: true });
    expect(g.node.trx(to)).toBe(UNITS(await payerAmount(p.uuid)));
    expect(hotBefore - g.node.trx(g.driver().hotWallet)).toBe(UNITS(await payerAmount(p.uuid)) + 1_100_000n);
  });

  it('a node that builds another transaction than asked is refused before signing: fail, the funds return', async () => {
    await fund('USDT', '50');
    const before = await balance();
    const attacker = payee();
    for (const [what, tamper] of [
      ['recipient', (raw: any) => { raw.contract[0].parameter.value.data = raw.contract[0].parameter.value.data.slice(0, 8) + TronWeb.address.toHex(attacker).slice(2).toLowerCase().padStart(64, '0') + raw.contract[0].parameter.value.data.slice(72); }],
      ['fee limit', (raw: any) => { raw.fee_limit = 1000_000_000; }],
      ['token contract', (raw: any) => { raw.contract[0].parameter.value.contract_address = TronWeb.address.toHex(attacker).toLowerCase(); }],
    ] as const) {
      g.node.tamper = (_path, raw) => tamper(raw);
      const sentBefore = g.node.broadcasts.length;
      const p = await createPayout({ amount: '10', address: payee() });
      await g.tick();
      expect(await payoutInfo(p.uuid), what).toMatchObject({ status: 'fail', is_final: true, txid: null });
      expect(await outgoingRows(p.uuid), what).toHaveLength(0); // nothing signed or stored
      expect(g.node.broadcasts.length, what).toBe(sentBefore);
    }
    g.node.tamper = null;
    expect(await balance()).toBe(before);
    expect(await ledgerAgrees()).toBe(true);
  });

  it('a payout the hot wallet cannot cover is reported with a clear message and nothing is signed', async () => {
    const d = g.driver();
    const req = { network: 'TRON', currency: 'USDT', to: payee(), amount: '99999', priority: 'recommended' as const };
    expect(await d.canCover(req)).toEqual({ covered: false, currency: 'USDT', message: expect.stringContaining(`The hot wallet ${d.hotWallet} lacks USDT`) });
    expect(await d.canCover({ ...req, currency: 'TRX', amount: '5000' })).toMatchObject({ covered: false, currency: 'TRX' });
    expect(await d.canCover({ ...req, amount: '5' })).toEqual({ covered: true });
    const short = d.send({ ...req, id: randomUUID() });
    await expect(short).rejects.toMatchObject({ code: 'insufficient_funds' });
    // Not a refusal: the payout waits for the hot wallet instead of failing.
    await expect(short).rejects.toBeInstanceOf(HotWalletShortError);
  });

  it('the API refuses at creation a payout the hot wallet cannot cover: a clear message, nothing recorded or debited', async () => {
    await fund('USDT', '20000');
    const before = await balance();
    const order = `tron-out-${++n}`;
    const r = await g.api('/v1/payout', { amount: '15000', currency: 'USDT', network: 'TRON', address: payee(), is_subtract: true, order_id: order }, { key: 'payout' });
    expect([r.status, r.body]).toEqual([422, { state: 1, message: 'The gateway cannot send this payout now: not enough USDT in its hot wallet' }]);
    expect(await balance()).toBe(before);
    expect(await g.ctx.storage.db.selectFrom('payouts').select('id').where('order_id', '=', order).execute()).toEqual([]);
    expect(await ledgerAgrees()).toBe(true);
  });

  it('a worker dies between storing the signed payout and broadcasting it: one transaction goes out', async () => {
    await fund('USDT', '20');
    const to = payee();
    const p = await createPayout({ amount: '10', address: to });
    const a = await secondInstance(g);
    const da = a.ctx.chains.driver('TRON') as TronDriver;
    Object.assign(da.out, {
      broadcast: async () => {
        await a.ctx.storage.close();
        throw new Error('process killed');
      },
    });
    expect((await a.tick()).length).toBeGreaterThan(0);
    await a.close();
    const [stored] = await outgoingRows(p.uuid);
    expect(stored).toMatchObject({ status: 'signed', attempt: 1 });
    expect(g.node.pending).toBe(0);
    await g.tick(); // the scanner broadcasts the stored bytes
    expect(g.node.pending).toBe(1);
    g.clock.advance(LEASE_MS);
    await g.tick(); // the payout's lease ended: the driver hands back that same transaction
    expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'check', txid: stored!.txid });
    await settle();
    expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'paid', txid: stored!.txid });
    expect(await outgoingRows(p.uuid)).toHaveLength(1);
    expect(g.node.broadcasts.filter((b) => b.txID === stored!.txid)).toHaveLength(1);
    expect(g.node.tokenBalance(USDT, to)).toBe(UNITS(await payerAmount(p.uuid)));
  });

  it('a stored transaction that expired before it was broadcast is built and signed again, once', async () => {
    await fund('USDT', '20');
    const to = payee();
    const p = await createPayout({ amount: '10', address: to });
    const a = await secondInstance(g);
    Object.assign((a.ctx.chains.driver('TRON') as TronDriver).out, {
      broadcast: async () => {
        await a.ctx.storage.close();
        throw new Error('process killed');
      },
    });
    await a.tick();
    await a.close();
    const [old] = await outgoingRows(p.uuid);
    // Downtime: the chain moves past the transaction's expiration before anyone runs again.
    g.node.advance(61_000);
    g.node.mine(3);
    g.clock.advance(LEASE_MS);
    await g.tick();
    const rows = await outgoingRows(p.uuid);
    expect(rows.map((r) => [r.attempt, r.status])).toEqual([[1, 'expired'], [2, 'sent']]);
    expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'check', txid: rows[1]!.txid });
    expect(g.node.broadcasts.some((b) => b.txID === old!.txid)).toBe(false);
    await settle();
    expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'paid', txid: rows[1]!.txid });
    expect(g.node.tokenBalance(USDT, to)).toBe(UNITS(await payerAmount(p.uuid)));
  });

  it('a broadcast payout the node lost is sent again while it can be mined, and fails (funds back) once expired', async () => {
    await fund('USDT', '40');
    const p = await createPayout({ amount: '10', address: payee() });
    g.node.dropBroadcasts = true; // answers result: true, keeps nothing
    await g.tick();
    const sent = await payoutInfo(p.uuid);
    expect(sent).toMatchObject({ status: 'check' });
    g.node.dropBroadcasts = false;
    g.clock.advance(20_000); // past the rebroadcast interval
    await g.tick();
    expect(g.node.pending).toBe(1); // sent again, the same bytes
    await settle();
    expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'paid', txid: sent.txid });

    const before = await balance();
    const q = await createPayout({ amount: '10', address: payee() });
    const reserved = Number(before) - Number(await balance());
    g.node.dropBroadcasts = true;
    await g.tick();
    expect(await payoutInfo(q.uuid)).toMatchObject({ status: 'check' });
    g.node.advance(61_000);
    await g.mineAndTick(3);
    expect(await payoutInfo(q.uuid)).toMatchObject({ status: 'fail', is_final: true });
    expect(Number(await balance()) - (Number(before) - reserved)).toBeCloseTo(reserved, 6);
    expect(hooks(q.uuid)).toEqual(['check', 'fail']);
    expect(await ledgerAgrees()).toBe(true);
  });
});
