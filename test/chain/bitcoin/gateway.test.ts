// Issue 12 through the whole gateway on a real Litecoin node (litecoind, regtest): invoices and a
// static wallet created over the signed API, paid by transactions the test signs, seen by the
// `bitcoin-core` driver in the mempool and in blocks, settled by the invoice state machine.
import { merchantVerifies } from '../../helpers/merchant.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { backends } from '../../helpers/backends.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';
import { balanceOf } from '../../../src/ledger/index.ts';
import { startLtcGateway, type LtcGateway } from '../gateway-setup.ts';

describe.each(await backends())('Litecoin payments through the gateway on $name', (backend) => {
  let g: LtcGateway;
  let rx: Receiver;
  let n = 0;
  beforeAll(async () => {
    g = await startLtcGateway(backend, { confirmations: 2 });
    rx = await startReceiver();
  }, 60_000);
  afterAll(async () => {
    await g?.stopAll();
    await rx?.close();
  });
  beforeEach(() => {
    rx.deliveries.length = 0;
  });

  const newInvoice = async (body: Record<string, unknown> = {}) => {
    const r = await g.api('/v1/payment', { amount: '1.5', currency: 'LTC', network: 'LTC', order_id: `ltc-${++n}`, url_callback: rx.url, ...body });
    expect(r.status, r.raw).toBe(200);
    return r.body.result as Record<string, any>;
  };
  const info = async (uuid: string) => (await g.api('/v1/payment/info', { uuid })).body.result as Record<string, any>;
  const balance = () => balanceOf(g.ctx.storage.db, g.merchant.id, 'business', 'LTC');
  const statuses = (uuid: string) => rx.deliveries.filter((d) => d.json.uuid === uuid).map((d) => d.json.status);
  const delivered = (uuid: string, status: string) => rx.deliveries.find((d) => d.json.uuid === uuid && d.json.status === status)!;

  it('the deposit address is a regtest native SegWit address at m/84\'/1\'/0\'/0/i', async () => {
    const inv = await newInvoice();
    expect(inv.address).toMatch(/^rltc1q[02-9ac-hj-np-z]{38}$/);
    const row = await g.ctx.storage.db.selectFrom('addresses').select(['path']).where('address', '=', inv.address).executeTakeFirstOrThrow();
    expect(row.path).toMatch(/^m\/84'\/1'\/0'\/0\/\d+$/);
  });

  it('exact: seen in the mempool -> check at once (0 confirmations), 1 of 2 -> check, 2 of 2 -> paid; credited once', async () => {
    const inv = await newInvoice();
    const before = await balance();
    const { txid } = await g.payer.pay([{ address: inv.address, amount: '1.5' }]);
    await g.tick();
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'check', is_final: false, payment_amount: null, txid });
    // The payer page is told the payment was seen, with 0 of 2 confirmations.
    const page = async () => (await g.app.inject({ method: 'GET', url: `/api/pay/${inv.uuid}` })).json().result as Record<string, any>;
    expect(await page()).toMatchObject({ status: 'check', confirmations: { current: 0, required: 2 } });

    await g.mineAndTick(); // 1 of 2
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'check', is_final: false, txid });
    expect(await page()).toMatchObject({ status: 'check', confirmations: { current: 1, required: 2 } });
    expect(await balance()).toBe(before);
    await g.mineAndTick(); // 2 of 2
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'paid', is_final: true, payment_amount: '1.50', merchant_amount: '1.47', txid });
    expect(Number(await balance()) - Number(before)).toBeCloseTo(1.47, 8);
    await g.mineAndTick(2);
    expect(statuses(inv.uuid)).toEqual(['check', 'paid']);
    expect(merchantVerifies(delivered(inv.uuid, 'paid'), g.merchant.payment_key)).toBe(true);
    expect(delivered(inv.uuid, 'paid').json).toMatchObject({ network: 'LTC', currency: 'LTC', payer_currency: 'LTC', txid, payment_amount: '1.50' });
    const entries = await g.ctx.storage.db.selectFrom('ledger_entries').selectAll().where('ref_id', '=', inv.uuid).execute();
    expect(entries).toHaveLength(1);
  });

  it('partial (is_payment_multiple): process with the part, then the rest -> paid', async () => {
    const inv = await newInvoice({ is_payment_multiple: true });
    const before = await balance();
    await g.payer.pay([{ address: inv.address, amount: '0.5' }]);
    await g.mineAndTick(2);
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'process', is_final: false, payment_amount: '0.50' });
    expect(await balance()).toBe(before);
    const rest = await g.payer.pay([{ address: inv.address, amount: '1' }]);
    await g.tick();
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'check', txid: rest.txid });
    await g.mineAndTick(2);
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'paid', is_final: true, payment_amount: '1.50', txid: rest.txid });
    expect(Number(await balance()) - Number(before)).toBeCloseTo(1.47, 8);
    expect(statuses(inv.uuid)).toEqual(['check', 'process', 'check', 'paid']);
  });

  it('over: paid_over, everything received credited', async () => {
    const inv = await newInvoice();
    const before = await balance();
    await g.payer.pay([{ address: inv.address, amount: '2' }]);
    await g.mineAndTick(2);
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'paid_over', is_final: true, payment_amount: '2.00', merchant_amount: '1.96' });
    expect(Number(await balance()) - Number(before)).toBeCloseTo(1.96, 8);
    expect(statuses(inv.uuid)).toEqual(['check', 'paid_over']);
  });

  it('two outputs to the invoice in one transaction, and two invoices paid by one transaction: each output credited once', async () => {
    const a = await newInvoice();
    const b = await newInvoice({ amount: '0.25' });
    const before = await balance();
    const { txid } = await g.payer.pay([
      { address: a.address, amount: '1' },
      { address: b.address, amount: '0.25' },
      { address: a.address, amount: '0.5' },
    ]);
    await g.tick();
    await g.tick();
    await g.mineAndTick(3);
    expect(await info(a.uuid)).toMatchObject({ payment_status: 'paid', payment_amount: '1.50', txid });
    expect(await info(b.uuid)).toMatchObject({ payment_status: 'paid', payment_amount: '0.25', txid });
    expect(Number(await balance()) - Number(before)).toBeCloseTo(1.47 + 0.245, 8);
    const rows = await g.ctx.storage.db.selectFrom('chain_transfers').select(['idx', 'amount', 'status']).where('txid', '=', txid).orderBy('idx').execute();
    expect(rows).toEqual([
      { idx: 0, amount: '1', status: 'confirmed' },
      { idx: 1, amount: '0.25', status: 'confirmed' },
      { idx: 2, amount: '0.5', status: 'confirmed' },
    ]);
    expect(statuses(a.uuid)).toEqual(['check', 'paid']);
    expect(statuses(b.uuid)).toEqual(['check', 'paid']);
  });

  it('many payments in one block are each credited once', async () => {
    const invs = await Promise.all(Array.from({ length: 6 }, () => newInvoice({ amount: '0.1' })));
    const before = await balance();
    for (const inv of invs) await g.payer.pay([{ address: inv.address, amount: '0.1' }]);
    await g.mineAndTick(2); // not looked at in the mempool first: found in the block
    for (const inv of invs) expect((await info(inv.uuid)).payment_status).toBe('paid');
    expect(Number(await balance()) - Number(before)).toBeCloseTo(6 * 0.098, 8);
    await g.mineAndTick();
    for (const inv of invs) expect(statuses(inv.uuid)).toEqual(['check', 'paid']);
  });

  it('a static wallet: each top-up credited once at the confirmation target, with a signed wallet webhook', async () => {
    const r = await g.api('/v1/wallet', { currency: 'LTC', network: 'LTC', order_id: `ltc-wallet-${++n}`, url_callback: rx.url });
    expect(r.status, r.raw).toBe(200);
    const w = r.body.result as Record<string, any>;
    expect(w).toMatchObject({ network: 'LTC', currency: 'LTC', address: expect.stringMatching(/^rltc1q/) });
    const before = await balance();
    const first = await g.payer.pay([{ address: w.address, amount: '3' }]);
    await g.tick();
    await g.mineAndTick();
    const topups = () => rx.deliveries.filter((d) => d.json.wallet_address_uuid === w.uuid);
    expect(topups()).toHaveLength(0);
    await g.mineAndTick();
    expect(topups()).toHaveLength(1);
    expect(merchantVerifies(topups()[0]!, g.merchant.payment_key)).toBe(true);
    expect(topups()[0]!.json).toMatchObject({ type: 'wallet', status: 'paid', amount: '3.00', network: 'LTC', currency: 'LTC', txid: first.txid });
    const credited1 = Number(topups()[0]!.json.merchant_amount);
    expect(Number(await balance()) - Number(before)).toBeCloseTo(credited1, 8);
    const second = await g.payer.pay([{ address: w.address, amount: '1' }]);
    await g.mineAndTick(3);
    expect(topups()).toHaveLength(2);
    expect(topups()[1]!.json).toMatchObject({ status: 'paid', amount: '1.00', merchant_amount: '0.98', txid: second.txid });
    expect(Number(await balance()) - Number(before)).toBeCloseTo(credited1 + 0.98, 8);
  });
});
