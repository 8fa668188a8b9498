// Resolving an unmatched payment: assigning it credits the invoice exactly as a payment to its
// deposit would (status, webhook, balance), once, even when two assigns race; what cannot be
// assigned (another merchant's payment or invoice, another network or currency, a final invoice, a
// payment already resolved) is refused with a message and changes nothing; a payment marked
// refunded moves no funds. Until assigned, it counts in no balance.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { createMerchant } from '../../src/merchants/store.ts';
import { createWorkers } from '../../src/worker/index.ts';
import { CLI_ACTOR } from '../../src/custody/audit.ts';
import { NotFoundError } from '../../src/errors.ts';
import { assignUnmatched, markRefunded, UnmatchedError } from '../../src/unmatched/resolve.ts';
import { startUnmatchedGateway, type UnmatchedGateway } from './setup.ts';

describe.each(await backends())('resolving unmatched payments on $name', (backend) => {
  let gw: UnmatchedGateway;
  beforeAll(async () => {
    gw = await startUnmatchedGateway(backend);
  });
  afterAll(async () => gw?.close());
  beforeEach(() => {
    gw.rx.deliveries.length = 0;
  });

  const rowOf = async (txid: string) => gw.ctx.storage.db.selectFrom('unmatched_payments').selectAll().where('txid', '=', txid).executeTakeFirstOrThrow();
  const info = async (uuid: string) => (await gw.api('/v1/payment/info', { uuid })).body.result as Record<string, any>;
  const assign = (id: string, invoiceUuid: string, merchantId = gw.merchant.id) => assignUnmatched(gw.ctx, { id, merchantId, invoiceUuid, actor: CLI_ACTOR });
  const refused = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (e) {
      return e as Error;
    }
    throw new Error('not refused');
  };

  it('counts in no balance until assigned; assigning credits the invoice as a payment to its deposit', async () => {
    const inv = await gw.invoice('100', { url_callback: gw.rx.url });
    const before = await gw.balance();
    const t = await gw.report({ amount: inv.payer_amount });
    const row = await rowOf(t.txid);
    expect(await gw.balance()).toBe(before);
    expect((await info(inv.uuid)).status).toBe('process');

    const r = await assign(row.id, inv.uuid.toUpperCase());
    expect(r.invoice).toEqual({ id: inv.uuid, status: 'paid', is_final: true });
    expect(r.payment).toMatchObject({ status: 'assigned', invoice_id: inv.uuid, resolved_by: 'cli' });
    const after = await info(inv.uuid);
    expect(after).toMatchObject({ status: 'paid', is_final: true, txid: t.txid, from: t.from, payment_amount: '100.00' });
    expect(Number(await gw.balance())).toBeCloseTo(Number(before) + Number(after.merchant_amount), 8);

    await createWorkers(gw.ctx).tick();
    expect(gw.rx.deliveries.filter((d) => d.json.uuid === inv.uuid).map((d) => d.json.status)).toContain('paid');

    const audit = await gw.ctx.storage.db.selectFrom('dashboard_audit').selectAll().where('action', '=', 'unmatched_assign').where('target', '=', row.id).execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ merchant_id: gw.merchant.id, email: 'cli' });
    expect(JSON.parse(audit[0]!.detail!)).toMatchObject({ invoice: inv.uuid, txid: t.txid, amount: inv.payer_amount });

    // A second assign, to this invoice or another, is refused and credits nothing more.
    const balance = await gw.balance();
    const again = await refused(assign(row.id, inv.uuid));
    expect(again).toBeInstanceOf(UnmatchedError);
    expect(again.message).toBe(`Payment ${row.id} was already assigned to invoice ${inv.uuid}: nothing was changed.`);
    const other = await gw.invoice('100');
    expect((await refused(assign(row.id, other.uuid))).message).toContain('already assigned');
    expect(await gw.balance()).toBe(balance);
  });

  it('a payment short of the invoice is a partial payment; a second assigned one completes it', async () => {
    const inv = await gw.invoice('100');
    const before = await gw.balance();
    const first = await gw.report({ amount: '40' });
    const r = await assign((await rowOf(first.txid)).id, inv.uuid);
    expect(r.invoice).toEqual({ id: inv.uuid, status: 'process', is_final: false });
    expect(await info(inv.uuid)).toMatchObject({ status: 'process', payment_amount: '40.00' });
    expect(await gw.balance()).toBe(before);
    const rest = await gw.report({ amount: '60' });
    expect((await assign((await rowOf(rest.txid)).id, inv.uuid)).invoice.status).toBe('paid');
    expect(await info(inv.uuid)).toMatchObject({ status: 'paid', payment_amount: '100.00', merchant_amount: '98.00' });
    expect(Number(await gw.balance()) - Number(before)).toBeCloseTo(98, 6);
  });

  it('on an invoice that takes one payment, a short one is wrong_amount and what arrived is credited', async () => {
    const inv = await gw.invoice('100', { is_payment_multiple: false });
    const before = await gw.balance();
    const t = await gw.report({ amount: '40' });
    expect((await assign((await rowOf(t.txid)).id, inv.uuid)).invoice).toEqual({ id: inv.uuid, status: 'wrong_amount', is_final: true });
    expect(await info(inv.uuid)).toMatchObject({ status: 'wrong_amount', payment_amount: '40.00', merchant_amount: '39.20' });
    expect(Number(await gw.balance()) - Number(before)).toBeCloseTo(39.2, 6);
  });

  it('two assigns racing credit once', async () => {
    const inv = await gw.invoice('100');
    const t = await gw.report({ amount: inv.payer_amount });
    const id = (await rowOf(t.txid)).id;
    const other = await gw.invoice('100');
    const before = await gw.balance();
    const results = await Promise.allSettled([assign(id, inv.uuid), assign(id, other.uuid), assign(id, inv.uuid)]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect((r.reason as Error).message).toContain('already assigned');
    const won = (results.find((r) => r.status === 'fulfilled') as PromiseFulfilledResult<Awaited<ReturnType<typeof assign>>>).value.invoice.id;
    const lost = won === inv.uuid ? other.uuid : inv.uuid;
    expect((await info(won)).status).toBe('paid');
    expect((await info(lost)).status).toBe('process');
    const credited = await gw.ctx.storage.db.selectFrom('ledger_entries').select(['amount']).where('merchant_id', '=', gw.merchant.id).where('ref_id', '=', won).execute();
    expect(credited.length).toBeGreaterThan(0);
    expect(Number(await gw.balance()) - Number(before)).toBeCloseTo(Number((await info(won)).merchant_amount), 8);
    expect(await gw.ctx.storage.db.selectFrom('chain_transfers').select('owner_id').where('txid', '=', t.txid).execute()).toEqual([{ owner_id: won }]);
  });

  it('a claim left without its credit (the process died in between) is finished by assigning again to the same invoice', async () => {
    const inv = await gw.invoice('100');
    const t = await gw.report({ amount: inv.payer_amount });
    const id = (await rowOf(t.txid)).id;
    // What a crash right after the claim leaves: assigned, nothing recorded or credited.
    await gw.ctx.storage.db.updateTable('unmatched_payments').set({ status: 'assigned', invoice_id: inv.uuid, resolved_by: 'cli', resolved_at: gw.clock.now }).where('id', '=', id).execute();
    const before = await gw.balance();
    // At once it may still be an assign under way: refused.
    expect((await refused(assign(id, inv.uuid))).message).toContain('already assigned');
    gw.clock.advance(61_000);
    const other = await gw.invoice('100');
    expect((await refused(assign(id, other.uuid))).message).toBe(`Payment ${id} was already assigned to invoice ${inv.uuid}: nothing was changed.`);
    const r = await assign(id, inv.uuid);
    expect(r.invoice.status).toBe('paid');
    expect(Number(await gw.balance())).toBeGreaterThan(Number(before));
    // Finished: no third credit.
    expect((await refused(assign(id, inv.uuid))).message).toContain('already assigned');
  });

  it('refuses what cannot be assigned, by name, and changes nothing', async () => {
    const t = await gw.report({ amount: '100' });
    const id = (await rowOf(t.txid)).id;
    const before = await gw.balance();
    const stranger = await createMerchant(gw.ctx.storage.db, 'Stranger');

    // Another merchant asking about this payment: it is not theirs to see.
    const notTheirs = await refused(assign(id, (await gw.invoice('100')).uuid, stranger.id));
    expect(notTheirs).toBeInstanceOf(NotFoundError);
    expect(notTheirs.message).toBe(`No unmatched payment ${id} of this merchant`);

    // An invoice of another merchant.
    const theirs = await gw.api('/v1/payment', { amount: '100', currency: 'USDT', network: 'TRON', order_id: 'stranger-1' }, { merchant: stranger });
    expect((await refused(assign(id, theirs.body.result.uuid))).message).toBe(`No invoice ${theirs.body.result.uuid} of this merchant: nothing was changed.`);
    expect((await refused(assign(id, '00000000-0000-4000-8000-000000000000'))).message).toContain('No invoice 00000000-0000-4000-8000-000000000000 of this merchant');

    const eth = await gw.invoice('100', { network: 'ETH', currency: 'USDT' });
    const wrongNet = await refused(assign(id, eth.uuid));
    expect(wrongNet).toMatchObject({ problem: 'wrong_network' });
    expect(wrongNet.message).toBe(`Invoice ${eth.uuid} is paid on ETH, this payment arrived on TRON: nothing was changed.`);

    const trx = await gw.invoice('100', { network: 'TRON', currency: 'TRX' });
    const wrongCur = await refused(assign(id, trx.uuid));
    expect(wrongCur).toMatchObject({ problem: 'wrong_currency' });
    expect(wrongCur.message).toBe(`Invoice ${trx.uuid} is paid in TRX, this payment is USDT: nothing was changed.`);

    const done = await gw.invoice('100');
    const paidBy = await gw.report({ amount: done.payer_amount });
    await assign((await rowOf(paidBy.txid)).id, done.uuid);
    const afterDone = await gw.balance();
    const final = await refused(assign(id, done.uuid));
    expect(final).toMatchObject({ problem: 'final_invoice' });
    expect(final.message).toBe(`Invoice ${done.uuid} is final (paid) and takes no more payments: nothing was changed.`);

    expect(await rowOf(t.txid)).toMatchObject({ status: 'open', invoice_id: null });
    expect(Number(await gw.balance()) - Number(afterDone)).toBe(0);
    expect(Number(afterDone)).toBeGreaterThan(Number(before));
  });

  it('markRefunded records the note, moves nothing, and the payment can no longer be assigned', async () => {
    const t = await gw.report({ amount: '7' });
    const id = (await rowOf(t.txid)).id;
    const before = await gw.balance();
    const r = await markRefunded(gw.ctx, { id, merchantId: gw.merchant.id, actor: { userId: null, email: 'owner@shop.test', ip: '10.0.0.1' }, note: '  returned in tx abc123  ' });
    expect(r).toMatchObject({ status: 'refunded', resolution_note: 'returned in tx abc123', resolved_by: 'owner@shop.test' });
    expect(await rowOf(t.txid)).toMatchObject({ status: 'refunded', resolution_note: 'returned in tx abc123', invoice_id: null });
    expect(await gw.balance()).toBe(before);
    const audit = await gw.ctx.storage.db.selectFrom('dashboard_audit').selectAll().where('action', '=', 'unmatched_refunded').where('target', '=', id).executeTakeFirstOrThrow();
    expect(audit).toMatchObject({ email: 'owner@shop.test', ip: '10.0.0.1', merchant_id: gw.merchant.id });

    const again = await refused(markRefunded(gw.ctx, { id, merchantId: gw.merchant.id, actor: CLI_ACTOR }));
    expect(again.message).toBe(`Payment ${id} was already marked refunded: nothing was changed.`);
    const inv = await gw.invoice('7');
    expect((await refused(assign(id, inv.uuid))).message).toBe(`Payment ${id} was already marked refunded: nothing was changed.`);
  });

  it('a payment no merchant named cannot be resolved by any merchant', async () => {
    const t = await gw.report({ to: 'TNobodysWallet000000000000000009' });
    const id = (await rowOf(t.txid)).id;
    expect(await refused(markRefunded(gw.ctx, { id, merchantId: gw.merchant.id, actor: CLI_ACTOR }))).toBeInstanceOf(NotFoundError);
  });
});
