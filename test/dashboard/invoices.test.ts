// The dashboard's overview and invoices as an owner and a viewer use them: filters, search,
// keyset pages, CSV export, detail with transfers and webhook attempts, resend, refund, simulate.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { simulatePay } from '../../src/simulator/payments.ts';
import { createMerchant } from '../../src/merchants/store.ts';
import { ADDR, startMoneyGateway, tick } from '../payouts/harness.ts';
import { csvCell } from '../../src/dashboard/invoice-search.ts';
import { browser, signedInOwner, type Browser } from './browser.ts';

describe.each(await backends())('dashboard invoices on $name', (backend) => {
  let gw: TestGateway;
  let rx: Receiver;
  let owner: Browser;
  let viewer: Browser;
  const made: Array<Record<string, any>> = [];
  beforeAll(async () => {
    gw = await startMoneyGateway(backend);
    rx = await startReceiver();
    owner = await signedInOwner(gw, 'owner', 'owner@inv.example');
    viewer = await signedInOwner(gw, 'viewer', 'viewer@inv.example');
    for (let i = 0; i < 30; i++) {
      gw.clock.advance(1000);
      const r = await gw.api('/v1/payment', { amount: '100', currency: 'USDT', network: i % 2 ? 'TRON' : 'ETH', order_id: `ord-${i}`, url_callback: rx.url });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      made.push(r.body.result);
    }
    for (const i of [3, 4, 5]) await simulatePay(gw.ctx, { invoice: made[i]!.uuid });
    await tick(gw);
  });
  afterAll(async () => {
    await gw?.close();
    await rx?.close();
  });

  it('shows balances with a USD total, 30 days of volume and the latest invoices', async () => {
    const r = await viewer.call('GET', '/overview');
    expect(r.status).toBe(200);
    const o = r.body.result;
    expect(o.balances.business).toEqual([{ currency: 'USDT', amount: '294.00', usd: '294.00' }]);
    expect(o.balances.total_usd).toBe('294.00');
    expect(o.days).toHaveLength(30);
    expect(o.days.at(-1)).toMatchObject({ day: '2026-01-15', paid: 3, created: 30, paid_usd: '300.00' });
    expect(o.latest.map((i: any) => i.order_id).slice(0, 2)).toEqual(['ord-29', 'ord-28']);
  });

  it('tells when payments on a network are not being detected (its node is faulty), and no more once it recovers', async () => {
    expect((await viewer.call('GET', '/overview')).body.result.delayed_networks).toEqual([]);
    await gw.ctx.storage.db.insertInto('node_faults').values({ network: 'ETH', reason: 'the head jumped', since: 1, updated_at: 1 }).execute();
    expect((await viewer.call('GET', '/overview')).body.result.delayed_networks).toEqual(['ETH']);
    await gw.ctx.storage.db.deleteFrom('node_faults').execute();
    expect((await viewer.call('GET', '/overview')).body.result.delayed_networks).toEqual([]);
  });

  it('filters by status and network, searches by order_id, uuid, address and txid', async () => {
    const paid = (await viewer.call('GET', '/invoices?status=paid')).body.result;
    expect(paid.items.map((i: any) => i.order_id)).toEqual(['ord-5', 'ord-4', 'ord-3']);
    expect(paid.next).toBeNull();
    const tron = (await viewer.call('GET', '/invoices?status=paid&network=TRON')).body.result;
    expect(tron.items.map((i: any) => i.order_id)).toEqual(['ord-5', 'ord-3']);
    const one = made[4]!;
    for (const q of ['ord-4', one.uuid, one.uuid.toUpperCase(), one.address]) {
      expect((await viewer.call('GET', `/invoices?q=${encodeURIComponent(q)}`)).body.result.items.map((i: any) => i.id)).toEqual([one.uuid]);
    }
    const [transfer] = await gw.ctx.storage.db.selectFrom('chain_transfers').select('txid').where('owner_id', '=', one.uuid).execute();
    expect((await viewer.call('GET', `/invoices?q=${transfer!.txid}`)).body.result.items.map((i: any) => i.id)).toEqual([one.uuid]);
    expect((await viewer.call('GET', '/invoices?q=nothing-like-this')).body.result.items).toEqual([]);
    const day = (await viewer.call('GET', '/invoices?from=2026-01-16')).body.result;
    expect(day.items).toEqual([]);
    for (const [q, message] of [
      ['status=bogus', 'Unknown status.'],
      ['from=2026-02-30', 'From must be a date as YYYY-MM-DD.'],
      ['after=garbage', 'The page cursor is not valid.'],
      ['network=%3Cscript%3E', 'Unknown network.'],
    ]) {
      const bad = await viewer.call('GET', `/invoices?${q}`);
      expect(bad.status).toBe(422);
      expect(bad.body.message).toBe(message);
    }
  });

  it('pages with a keyset cursor: no invoice twice, none missed, stable while new ones arrive', async () => {
    const first = (await viewer.call('GET', '/invoices')).body.result;
    expect(first.items).toHaveLength(25);
    gw.clock.advance(1000);
    await gw.api('/v1/payment', { amount: '5', currency: 'USDT', network: 'TRON', order_id: 'late-arrival' });
    const second = (await viewer.call('GET', `/invoices?after=${first.next}`)).body.result;
    expect(second.next).toBeNull();
    const seen = [...first.items, ...second.items].map((i: any) => i.order_id);
    expect(seen).toEqual(made.map((m) => m.order_id).reverse());
  });

  it('exports the filter as CSV, streamed, with cells a spreadsheet cannot run', async () => {
    const r = await viewer.call('GET', '/invoices.csv?status=paid');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(r.headers['content-disposition']).toMatch(/^attachment; filename="invoices-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = r.raw.trim().split('\r\n');
    expect(lines[0]).toBe('uuid,order_id,created_at,status,amount,currency,payer_amount,payer_currency,network,payment_amount,payment_amount_usd,merchant_amount,address,txid');
    expect(lines.slice(1).map((l) => l.split(',')[1])).toEqual(['ord-5', 'ord-4', 'ord-3']);
    expect(lines[1]!.split(',')[3]).toBe('paid');
    expect(csvCell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvCell('-2+3')).toBe(`"'-2+3"`);
    expect(csvCell('a,b')).toBe('"a,b"');
    expect((await browser(gw).call('GET', '/invoices.csv')).status).toBe(401);
  });

  it('shows an invoice with its transfers, explorer links, timeline and webhook attempts', async () => {
    const inv = made[3]!;
    const r = await viewer.call('GET', `/invoices/${inv.uuid}`);
    expect(r.status).toBe(200);
    const d = r.body.result;
    expect(d.invoice).toMatchObject({ uuid: inv.uuid, order_id: 'ord-3', payment_status: 'paid', payer_page: `https://pay.example.test/pay/${inv.uuid}` });
    expect(d.transfers).toHaveLength(1);
    expect(d.transfers[0]).toMatchObject({ network: 'TRON', currency: 'USDT', amount: '100', status: 'confirmed' });
    // A simulated transfer: no public explorer knows it, so no link to one.
    expect(d.transfers[0].explorer).toBeNull();
    // On a real driver the same transfer links to the registry's explorer.
    const networks = gw.ctx.config.networks;
    const saved = networks.TRON;
    networks.TRON = { ...saved, driver: 'tron', custody: 'hot' };
    try {
      const real = (await viewer.call('GET', `/invoices/${inv.uuid}`)).body.result;
      expect(real.transfers[0].explorer).toBe(`https://tronscan.org/#/transaction/${d.transfers[0].txid}`);
    } finally {
      if (saved) networks.TRON = saved;
      else delete networks.TRON;
    }
    expect(d.webhooks).toHaveLength(1);
    expect(d.webhooks[0]).toMatchObject({ url: rx.url, status: 'delivered' });
    expect(JSON.parse(d.webhooks[0].body)).toMatchObject({ uuid: inv.uuid, status: 'paid' });
    expect(d.webhooks[0].attempts).toEqual([{ at: expect.any(Number), http_status: 200, latency_ms: expect.any(Number), error: null, answer: 'ok' }]);
    // Codes with their parameters, no English: the dashboard words them in the user's language.
    expect(d.timeline.map((e: any) => ({ code: e.code, params: e.params }))).toEqual([
      { code: 'created', params: { amount: '100', currency: 'USDT' } },
      { code: 'transfer_seen', params: { amount: '100', currency: 'USDT', network: 'TRON' } },
      { code: 'transfer_confirmed', params: { amount: '100', currency: 'USDT', network: 'TRON' } },
      { code: 'webhook_queued', params: { status: 'paid' } },
    ]);
    for (const e of d.timeline) {
      expect(Object.keys(e).sort()).toEqual(['at', 'code', 'params']);
      expect(typeof e.at).toBe('number');
      for (const v of Object.values(e.params)) expect(typeof v).toBe('string');
    }
    expect(d.unavailable).toBeNull();
    expect(d.can).toEqual({ resend: true, refund: true, simulate: false });
    const other = await createMerchant(gw.ctx.storage.db, 'Other shop');
    const theirs = await gw.api('/v1/payment', { amount: '1', currency: 'USDT', network: 'TRON', order_id: 'x-1' }, { merchant: other });
    expect((await viewer.call('GET', `/invoices/${theirs.body.result.uuid}`)).status).toBe(404);
    const missing = await viewer.call('GET', '/invoices/not-a-uuid');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('not_found');
  });

  it('lets the owner resend and refund, audited; refuses both to a viewer', async () => {
    const inv = made[4]!; // on ETH
    expect((await viewer.call('POST', `/invoices/${inv.uuid}/resend`)).status).toBe(403);
    expect((await viewer.call('POST', `/invoices/${inv.uuid}/refund`, { address: ADDR.TRON })).status).toBe(403);
    const resent = await owner.call('POST', `/invoices/${inv.uuid}/resend`);
    expect(resent.body).toEqual({ state: 0, result: { queued: true } });
    const hooks = (await owner.call('GET', `/invoices/${inv.uuid}`)).body.result.webhooks;
    expect(hooks).toHaveLength(2);
    const bad = await owner.call('POST', `/invoices/${inv.uuid}/refund`, { address: 'not-an-address' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual({ address: ['validation.regex'] });
    const refunded = await owner.call('POST', `/invoices/${inv.uuid}/refund`, { address: ADDR.EVM, amount: '10', is_subtract: true });
    expect(refunded.body).toEqual({ state: 0, result: { requested: true } });
    const d = (await owner.call('GET', `/invoices/${inv.uuid}`)).body.result;
    expect(d.refunds).toMatchObject([{ amount: '10', currency: 'USDT', address: ADDR.EVM, status: 'process' }]);
    expect(d.invoice.payment_status).toBe('refund_process');
    const log = (await owner.call('GET', '/audit')).body.result.map((e: any) => `${e.action} ${e.target}`);
    expect(log.slice(0, 2).sort()).toEqual([`refund ${inv.uuid}`, `webhook_resend ${inv.uuid}`]); // same instant: either order
  });

  it('simulates a payment in test mode from the invoice', async () => {
    const inv = made[6]!;
    expect((await viewer.call('POST', `/invoices/${inv.uuid}/simulate`, { mode: 'full' })).status).toBe(403);
    const r = await owner.call('POST', `/invoices/${inv.uuid}/simulate`, { mode: 'full' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.result).toMatchObject({ amount: '100', currency: 'USDT', confirmed: true });
    expect((await owner.call('GET', `/invoices/${inv.uuid}`)).body.result.invoice.payment_status).toBe('paid');
  });

  it('simulates a payment on an invoice whose payer has not chosen: the detail offers the choices, the payment chooses', async () => {
    const r = await gw.api('/v1/payment', { amount: '20', currency: 'USD', order_id: 'unchosen-1', currencies: [{ currency: 'USDT', network: 'TRON' }, { currency: 'BTC' }] });
    const uuid = r.body.result.uuid as string;
    const d = (await owner.call('GET', `/invoices/${uuid}`)).body.result;
    expect(d.choices).toEqual([
      { currency: 'BTC', network: 'BTC', label: 'BTC on Bitcoin' },
      { currency: 'USDT', network: 'TRON', label: 'USDT on TRON (TRC-20)' },
    ]);
    const unchosen = await owner.call('POST', `/invoices/${uuid}/simulate`, { mode: 'full' });
    expect(unchosen.status).toBe(422);
    expect(unchosen.body.message).toBe('The payer has not chosen a currency yet; choose one of: BTC on BTC, USDT on TRON');
    const paid = await owner.call('POST', `/invoices/${uuid}/simulate`, { mode: 'full', currency: 'USDT', network: 'TRON' });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body.result).toMatchObject({ amount: '20', currency: 'USDT' });
    const after = (await owner.call('GET', `/invoices/${uuid}`)).body.result;
    expect(after.invoice).toMatchObject({ payer_currency: 'USDT', network: 'TRON', payment_status: 'paid' });
    expect(after.choices).toEqual([]);
  });
});
