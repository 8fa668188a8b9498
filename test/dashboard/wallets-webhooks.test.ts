// The dashboard's static wallets (list, detail with top-ups, block, refund), its webhooks view
// with "retry now", and the merchant's default URLs, as an owner and a viewer use them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { simulatePay } from '../../src/simulator/payments.ts';
import { ADDR, startMoneyGateway, tick } from '../payouts/harness.ts';
import { signedInOwner, type Browser } from './browser.ts';

describe.each(await backends())('dashboard wallets, webhooks and settings on $name', (backend) => {
  let gw: TestGateway;
  let rx: Receiver;
  let owner: Browser;
  let viewer: Browser;
  beforeAll(async () => {
    gw = await startMoneyGateway(backend);
    rx = await startReceiver();
    owner = await signedInOwner(gw, 'owner', 'owner@wal.example');
    viewer = await signedInOwner(gw, 'viewer', 'viewer@wal.example');
  });
  afterAll(async () => {
    await gw?.close();
    await rx?.close();
  });

  const wallet = async (order: string, extra: Record<string, unknown> = {}) => {
    gw.clock.advance(1000);
    const r = await gw.api('/v1/wallet', { currency: 'USDT', network: 'TRON', order_id: order, url_callback: rx.url, ...extra });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.result as { uuid: string; address: string; order_id: string };
  };
  const pay = async (id: string, amount: string) => {
    const r = await gw.app.inject({ method: 'POST', url: '/simulator/pay', payload: { wallet: id, amount } });
    expect(r.statusCode, r.body).toBe(200);
  };
  const actions = async () => (await owner.call('GET', '/audit')).body.result.map((e: any) => `${e.action} ${e.target ?? ''}`.trim());

  it('lists static wallets with filters and keyset pages; a wallet shows its top-ups and webhooks', async () => {
    const made = [];
    for (let i = 0; i < 27; i++) made.push(await wallet(`wal-${i}`, i === 26 ? { network: 'ETH' } : {}));
    const first = (await viewer.call('GET', '/wallets')).body.result;
    expect(first.items).toHaveLength(25);
    expect(first.items[0]).toMatchObject({ id: made[26]!.uuid, order_id: 'wal-26', network: 'ETH', status: 'active' });
    const second = (await viewer.call('GET', `/wallets?after=${first.next}`)).body.result;
    expect(second.items.map((w: any) => w.order_id)).toEqual(['wal-1', 'wal-0']);
    expect(second.next).toBeNull();
    expect((await viewer.call('GET', '/wallets?network=ETH')).body.result.items.map((w: any) => w.order_id)).toEqual(['wal-26']);
    for (const q of ['wal-7', made[7]!.uuid, made[7]!.address]) {
      expect((await viewer.call('GET', `/wallets?q=${encodeURIComponent(q)}`)).body.result.items.map((w: any) => w.order_id)).toEqual(['wal-7']);
    }
    expect((await viewer.call('GET', '/wallets?status=nope')).status).toBe(422);
    expect((await viewer.call('GET', '/wallets?after=garbage')).status).toBe(422);

    await pay(made[7]!.uuid, '40');
    await tick(gw);
    const d = (await viewer.call('GET', `/wallets/${made[7]!.uuid}`)).body.result;
    expect(d.wallet).toMatchObject({ uuid: made[7]!.uuid, order_id: 'wal-7', status: 'active', url_callback: rx.url });
    expect(d.topups).toHaveLength(1);
    expect(d.topups[0]).toMatchObject({ amount: '40', currency: 'USDT', status: 'confirmed', outcome: 'credited' });
    expect(d.topups[0].explorer).toBeNull(); // a simulated transfer: no explorer knows it
    expect(d.webhooks).toHaveLength(1);
    expect(d.webhooks[0]).toMatchObject({ kind: 'wallet', status: 'delivered', object: `wallets/${made[7]!.uuid}` });
    expect(d.webhooks[0].attempts).toEqual([expect.objectContaining({ http_status: 200 })]);
    expect(d.can).toEqual({ block: true, refund: false });
    expect((await viewer.call('GET', '/wallets/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  it('blocks a wallet and refunds its blocked funds as the signed API does; a viewer can do neither', async () => {
    const w = await wallet('wal-block');
    expect((await viewer.call('POST', `/wallets/${w.uuid}/block`, {})).status).toBe(403);
    expect((await viewer.call('POST', `/wallets/${w.uuid}/refund`, { address: ADDR.TRON })).status).toBe(403);
    const blocked = await owner.call('POST', `/wallets/${w.uuid}/block`, { is_force_refund: false });
    expect(blocked.body).toEqual({ state: 0, result: { uuid: w.uuid, status: 'blocked' } });
    expect((await owner.call('POST', `/wallets/${w.uuid}/refund`, { address: ADDR.TRON })).body).toEqual({ state: 1, message: 'Nothing to withdraw' });
    await pay(w.uuid, '30');
    const d = (await owner.call('GET', `/wallets/${w.uuid}`)).body.result;
    expect(d.wallet.status).toBe('blocked');
    expect(d.topups[0]).toMatchObject({ amount: '30', outcome: 'blocked' });
    expect(d.can.refund).toBe(true);
    const bad = await owner.call('POST', `/wallets/${w.uuid}/refund`, { address: 'not an address!' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toHaveProperty('address');
    const r = await owner.call('POST', `/wallets/${w.uuid}/refund`, { address: ADDR.TRON });
    expect(r.body).toEqual({ state: 0, result: { commission: '1.00', amount: '29.00' } });
    expect((await owner.call('POST', `/wallets/${w.uuid}/refund`, { address: ADDR.TRON })).body).toEqual({ state: 1, message: 'Refund is in process' });
    const after = (await owner.call('GET', `/wallets/${w.uuid}`)).body.result;
    expect(after.refund).toMatchObject({ address: ADDR.TRON, status: 'process' });
    expect(after.can.refund).toBe(false);
    expect(await actions()).toEqual(expect.arrayContaining([`wallet_block ${w.uuid}`, `wallet_refund ${w.uuid}`]));
  });

  it('lists failing deliveries first; retry now makes one due, keeps the order per object, refuses what it must', async () => {
    rx.status = 500;
    const inv = (await gw.api('/v1/payment', { amount: '10', currency: 'USDT', network: 'TRON', order_id: 'hook-1', url_callback: rx.url })).body.result;
    await simulatePay(gw.ctx, { invoice: inv.uuid });
    await tick(gw); // the first attempt fails
    const hooksOf = () => gw.ctx.storage.db.selectFrom('webhooks').selectAll().where('ref_id', '=', inv.uuid).orderBy('created_at').orderBy('id').execute();
    let [first] = await hooksOf();
    expect(first).toMatchObject({ status: 'pending', attempts: 1 });
    const view = (await viewer.call('GET', '/webhooks')).body.result;
    expect(view.failing.map((h: any) => h.id)).toContain(first!.id);
    const listed = view.failing.find((h: any) => h.id === first!.id);
    expect(listed).toMatchObject({ kind: 'payment', order_id: 'hook-1', failing: true, object: `invoices/${inv.uuid}` });
    expect(listed.attempts).toEqual([expect.objectContaining({ http_status: 500 })]);
    expect(view.items.some((h: any) => h.id === first!.id)).toBe(false);
    expect((await viewer.call('GET', '/webhooks?show=pending')).body.result.items.map((h: any) => h.id)).toContain(first!.id);

    // A second webhook about the same invoice queues behind the first.
    await gw.ctx.storage.db.insertInto('webhooks').values({ ...first!, id: first!.id.slice(0, -1) + (first!.id.endsWith('f') ? 'e' : 'f'), attempts: 0, next_attempt_at: gw.clock.now, created_at: first!.created_at + 1 }).execute();
    expect((await viewer.call('POST', `/webhooks/${first!.id}/retry`)).status).toBe(403);
    rx.status = 200;
    const [, second] = await hooksOf();
    const retried = await owner.call('POST', `/webhooks/${second!.id}/retry`);
    expect(retried.body).toEqual({ state: 0, result: { due: 2 } }); // the older one comes first
    [first] = await hooksOf();
    expect(first!.next_attempt_at).toBe(gw.clock.now);
    const before = rx.deliveries.length;
    await tick(gw);
    expect((await hooksOf()).map((h) => h.status)).toEqual(['delivered', 'delivered']);
    expect(rx.deliveries.slice(before).map((d) => d.headers['x-satchel-delivery'])).toEqual([first!.id, second!.id]);
    expect((await owner.call('POST', `/webhooks/${first!.id}/retry`)).body.message).toBe('This webhook was delivered; resend it from its invoice instead.');
    expect(await actions()).toContain(`webhook_retry ${second!.id}`);
  });

  it('retry now leaves a delivery a worker holds alone, and revives a failed one only when nothing newer went out', async () => {
    const inv = (await gw.api('/v1/payment', { amount: '11', currency: 'USDT', network: 'TRON', order_id: 'hook-2', url_callback: rx.url })).body.result;
    await simulatePay(gw.ctx, { invoice: inv.uuid });
    const [h] = await gw.ctx.storage.db.selectFrom('webhooks').selectAll().where('ref_id', '=', inv.uuid).execute();
    // As a worker's claim leaves it: no attempt yet, leased a minute ahead.
    await gw.ctx.storage.db.updateTable('webhooks').set({ next_attempt_at: gw.clock.now + 60_000 }).where('id', '=', h!.id).execute();
    expect((await owner.call('POST', `/webhooks/${h!.id}/retry`)).body).toEqual({ state: 1, message: 'This webhook is being delivered right now.', code: 'webhook_in_flight' });
    // Given up: one more attempt.
    await gw.ctx.storage.db.updateTable('webhooks').set({ status: 'failed', attempts: 13, next_attempt_at: gw.clock.now - 1 }).where('id', '=', h!.id).execute();
    expect((await owner.call('GET', '/webhooks?show=failed')).body.result.items.map((x: any) => x.id)).toContain(h!.id);
    expect((await owner.call('POST', `/webhooks/${h!.id}/retry`)).body).toEqual({ state: 0, result: { due: 1 } });
    await tick(gw);
    const [done] = await gw.ctx.storage.db.selectFrom('webhooks').selectAll().where('id', '=', h!.id).execute();
    expect(done).toMatchObject({ status: 'delivered', attempts: 14 });
    // A failed one older than a delivered one stays failed.
    const older = { ...done!, id: '00000000-0000-7000-8000-000000000001', status: 'failed', created_at: done!.created_at - 1 };
    await gw.ctx.storage.db.insertInto('webhooks').values(older).execute();
    expect((await owner.call('POST', `/webhooks/${older.id}/retry`)).body.message).toBe('A newer webhook about the same object was delivered already; resend from the object instead.');
    expect((await owner.call('POST', '/webhooks/not-a-uuid/retry')).status).toBe(404);
  });

  it('keeps default callback and return URLs, validated as the API does, and uses them for new invoices and wallets', async () => {
    expect((await viewer.call('GET', '/settings')).body.result).toEqual({ url_callback: null, url_return: null, url_success: null });
    expect((await viewer.call('POST', '/settings', { url_callback: rx.url })).status).toBe(403);
    const bad = await owner.call('POST', '/settings', { url_callback: 'javascript:alert(1)', url_return: 'ftp://shop.example/x', url_success: 'https://' + 'a'.repeat(260) + '.example' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual({ url_callback: ['validation.url'], url_return: ['validation.url'], url_success: ['validation.max.string'] });
    const saved = await owner.call('POST', '/settings', { url_callback: ` ${rx.url} `, url_return: 'https://shop.example/back', url_success: 'https://shop.example/thanks' });
    expect(saved.body.result).toEqual({ url_callback: rx.url, url_return: 'https://shop.example/back', url_success: 'https://shop.example/thanks' });
    expect((await viewer.call('GET', '/settings')).body.result.url_return).toBe('https://shop.example/back');

    gw.ctx.merchants.invalidate(gw.merchant.id);
    const plain = (await gw.api('/v1/payment', { amount: '5', currency: 'USDT', network: 'TRON', order_id: 'def-1' })).body.result;
    const own = (await gw.api('/v1/payment', { amount: '5', currency: 'USDT', network: 'TRON', order_id: 'def-2', url_callback: 'https://other.example/cb', url_return: 'https://other.example/r' })).body.result;
    const row = (id: string) => gw.ctx.storage.db.selectFrom('invoices').select(['url_callback', 'url_return', 'url_success']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(await row(plain.uuid)).toEqual({ url_callback: rx.url, url_return: 'https://shop.example/back', url_success: 'https://shop.example/thanks' });
    expect(await row(own.uuid)).toEqual({ url_callback: 'https://other.example/cb', url_return: 'https://other.example/r', url_success: 'https://shop.example/thanks' });
    expect(Object.keys(plain)).not.toContain('url_callback'); // the Invoice object is as the spec has it
    const before = rx.deliveries.length;
    await simulatePay(gw.ctx, { invoice: plain.uuid });
    await tick(gw);
    expect(rx.deliveries.slice(before).map((d) => d.json.order_id)).toEqual(['def-1']);
    const w = await gw.api('/v1/wallet', { currency: 'USDT', network: 'TRON', order_id: 'def-w' });
    const wr = await gw.ctx.storage.db.selectFrom('static_wallets').select('url_callback').where('id', '=', w.body.result.uuid).executeTakeFirstOrThrow();
    expect(wr.url_callback).toBe(rx.url);

    expect((await owner.call('POST', '/settings', { url_return: '' })).body.result).toEqual({ url_callback: rx.url, url_return: null, url_success: 'https://shop.example/thanks' });
    expect((await owner.call('POST', '/settings', { url_callback: 42 })).status).toBe(422);
    expect(await actions()).toContain('settings_update');
  });
});
