import { merchantVerifies } from '../helpers/merchant.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { simulateConfirm, simulateDrop, simulateExpire, simulatePay } from '../../src/simulator/payments.ts';
import { processNetwork } from '../../src/chain/ingest.ts';
import { balanceOf } from '../../src/ledger/index.ts';
import { createWorkers } from '../../src/worker/index.ts';


describe.each(await backends())('invoice lifecycle on $name', (backend) => {
  let gw: TestGateway;
  let rx: Receiver;
  let n = 0;
  beforeAll(async () => {
    gw = await startTestGateway(backend);
    rx = await startReceiver();
  });
  afterAll(async () => {
    await gw?.close();
    await rx?.close();
  });
  beforeEach(() => {
    rx.deliveries.length = 0;
  });

  const newInvoice = async (body: Record<string, unknown> = {}) => {
    const r = await gw.api('/v1/payment', { amount: '100', currency: 'USDT', network: 'TRON', order_id: `lc-${++n}`, url_callback: rx.url, ...body });
    expect(r.status).toBe(200);
    return r.body.result as Record<string, any>;
  };
  const info = async (uuid: string) => (await gw.api('/v1/payment/info', { uuid })).body.result as Record<string, any>;
  const deliver = async () => {
    await createWorkers(gw.ctx).tick();
  };
  const balance = () => balanceOf(gw.ctx.storage.db, gw.merchant.id, 'business', 'USDT');
  const statuses = (uuid: string) => rx.deliveries.filter((d) => d.json.uuid === uuid).map((d) => d.json.status);

  it('process -> check -> paid: confirmations, credit, signed webhooks', async () => {
    const inv = await newInvoice();
    const before = await balance();
    const pay = await simulatePay(gw.ctx, { invoice: inv.uuid, unconfirmed: true });
    expect(pay.amount).toBe('100');
    let now = await info(inv.uuid);
    expect(now).toMatchObject({ payment_status: 'check', status: 'check', is_final: false, payment_amount: null, txid: pay.txid });
    expect(now.from).toMatch(/^T/);
    await simulateConfirm(gw.ctx, { invoice: inv.uuid });
    now = await info(inv.uuid);
    expect(now).toMatchObject({ payment_status: 'paid', is_final: true, payment_amount: '100.00', merchant_amount: '98.00', txid: pay.txid });
    expect(await balance()).toBe(String(Number(before) + 98));
    await deliver();
    expect(statuses(inv.uuid)).toEqual(['check', 'paid']);
    const paid = rx.deliveries.find((d) => d.json.status === 'paid')!;
    expect(merchantVerifies(paid, gw.merchant.payment_key)).toBe(true);
    expect(paid.json).toMatchObject({ type: 'payment', uuid: inv.uuid, order_id: inv.order_id, amount: '100.00', payment_amount: '100.00', merchant_amount: '98.00', commission: '2.00', is_final: true, network: 'TRON', currency: 'USDT', payer_currency: 'USDT', txid: pay.txid });
    expect(Object.keys(paid.json).at(-1)).toBe('sign');
  });

  it('paid_over credits everything received, in proportion', async () => {
    const inv = await newInvoice();
    const before = await balance();
    await simulatePay(gw.ctx, { invoice: inv.uuid, amount: '110' });
    const now = await info(inv.uuid);
    expect(now).toMatchObject({ payment_status: 'paid_over', is_final: true, payment_amount: '110.00', merchant_amount: '107.80' });
    expect(Number(await balance()) - Number(before)).toBeCloseTo(107.8, 6);
    await deliver();
    expect(statuses(inv.uuid)).toEqual(['paid_over']);
  });

  it('wrong_amount when underpaid and is_payment_multiple is false; the partial is credited', async () => {
    const inv = await newInvoice({ is_payment_multiple: false });
    const before = await balance();
    await simulatePay(gw.ctx, { invoice: inv.uuid, amount: '40' });
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'wrong_amount', is_final: true, payment_amount: '40.00', merchant_amount: '39.20' });
    expect(Number(await balance()) - Number(before)).toBeCloseTo(39.2, 6);
  });

  it('partial payments with is_payment_multiple: payment_amount grows, the rest goes to the same address', async () => {
    const inv = await newInvoice();
    const before = await balance();
    await simulatePay(gw.ctx, { invoice: inv.uuid, amount: '30' });
    let now = await info(inv.uuid);
    expect(now).toMatchObject({ payment_status: 'process', is_final: false, payment_amount: '30.00', address: inv.address });
    expect(await balance()).toBe(before);
    const rest = await simulatePay(gw.ctx, { invoice: inv.uuid });
    expect(rest.amount).toBe('70');
    now = await info(inv.uuid);
    expect(now).toMatchObject({ payment_status: 'paid', is_final: true, payment_amount: '100.00', merchant_amount: '98.00' });
    expect(Number(await balance()) - Number(before)).toBeCloseTo(98, 6);
  });

  it('accuracy_payment_percent: a payment within it is paid, and the actual amount is credited', async () => {
    const inv = await newInvoice({ accuracy_payment_percent: 2, is_payment_multiple: false });
    const before = await balance();
    await simulatePay(gw.ctx, { invoice: inv.uuid, amount: '98.5' });
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'paid', payment_amount: '98.50', merchant_amount: '96.53' });
    expect(Number(await balance()) - Number(before)).toBeCloseTo(96.53, 6);
    const short = await newInvoice({ accuracy_payment_percent: 2, is_payment_multiple: false });
    await simulatePay(gw.ctx, { invoice: short.uuid, amount: '97.99' });
    expect((await info(short.uuid)).payment_status).toBe('wrong_amount');
  });

  it('expiry: nothing received -> cancel; a partial payment -> wrong_amount (credited)', async () => {
    const a = await newInvoice({ lifetime: 300 });
    const b = await newInvoice({ lifetime: 300 });
    await simulatePay(gw.ctx, { invoice: b.uuid, amount: '25' });
    const before = await balance();
    gw.clock.advance(301_000);
    await deliver();
    expect(await info(a.uuid)).toMatchObject({ payment_status: 'cancel', is_final: true, payment_amount: null });
    expect(await info(b.uuid)).toMatchObject({ payment_status: 'wrong_amount', is_final: true, payment_amount: '25.00', merchant_amount: '24.50' });
    expect(Number(await balance()) - Number(before)).toBeCloseTo(24.5, 6);
    expect(statuses(a.uuid)).toEqual(['cancel']);
    expect(statuses(b.uuid)).toEqual(['wrong_amount']);
  });

  it('a late payment on a cancelled invoice is credited and announced, never dropped', async () => {
    const inv = await newInvoice({ lifetime: 300 });
    gw.clock.advance(301_000);
    await simulateExpire(gw.ctx, { invoice: inv.uuid });
    expect((await info(inv.uuid)).payment_status).toBe('cancel');
    const before = await balance();
    await simulatePay(gw.ctx, { invoice: inv.uuid });
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'paid', is_final: true, payment_amount: '100.00' });
    expect(Number(await balance()) - Number(before)).toBeCloseTo(98, 6);
    await deliver();
    expect(statuses(inv.uuid)).toEqual(['cancel', 'paid']);
  });

  it('a payment seen before expiry but confirmed after it counts as on time', async () => {
    const inv = await newInvoice({ lifetime: 300 });
    await simulatePay(gw.ctx, { invoice: inv.uuid, unconfirmed: true });
    gw.clock.advance(400_000);
    await deliver();
    expect((await info(inv.uuid)).payment_status).toBe('check');
    await simulateConfirm(gw.ctx, { invoice: inv.uuid });
    expect((await info(inv.uuid)).payment_status).toBe('paid');
  });

  it('a dropped transaction: check -> process before expiry, -> fail after it', async () => {
    const a = await newInvoice({ lifetime: 300 });
    await simulatePay(gw.ctx, { invoice: a.uuid, unconfirmed: true });
    expect((await info(a.uuid)).payment_status).toBe('check');
    await simulateDrop(gw.ctx, { invoice: a.uuid });
    expect(await info(a.uuid)).toMatchObject({ payment_status: 'process', is_final: false });
    await simulatePay(gw.ctx, { invoice: a.uuid, unconfirmed: true });
    gw.clock.advance(301_000);
    await simulateDrop(gw.ctx, { invoice: a.uuid });
    expect(await info(a.uuid)).toMatchObject({ payment_status: 'fail', is_final: true });
    await deliver();
    expect(statuses(a.uuid)).toEqual(['check', 'process', 'check', 'fail']);
  });

  it('credits a transfer once however often the chain shows it', async () => {
    const inv = await newInvoice();
    const before = await balance();
    await simulatePay(gw.ctx, { invoice: inv.uuid });
    // Replays: rewind the cursor so the driver delivers the same transfers again.
    await gw.ctx.storage.db.updateTable('chain_cursors').set({ cursor: '0' }).where('network', '=', 'TRON').execute();
    await processNetwork(gw.ctx, 'TRON');
    await processNetwork(gw.ctx, 'TRON');
    expect(Number(await balance()) - Number(before)).toBeCloseTo(98, 6);
    const entries = await gw.ctx.storage.db.selectFrom('ledger_entries').selectAll().where('ref_id', '=', inv.uuid).execute();
    expect(entries).toHaveLength(1);
  });

  it('sends no webhook when no url_callback was given', async () => {
    const inv = await newInvoice({ url_callback: undefined });
    await simulatePay(gw.ctx, { invoice: inv.uuid });
    await deliver();
    expect(statuses(inv.uuid)).toEqual([]);
    const rows = await gw.ctx.storage.db.selectFrom('webhooks').selectAll().where('ref_id', '=', inv.uuid).execute();
    expect(rows).toHaveLength(0);
  });
});
