// Unmatched payments through the dashboard's API as the page calls it: every signed-in user of the
// merchant lists them (another merchant's are never shown); an owner or an instance admin assigns
// one (the invoice credited, the action audited with the user) or marks one refunded; a viewer is
// refused (403) and nothing changes; refusals answer 422 with the reason, never 500; another
// merchant's payment is not found.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { createMerchant } from '../../src/merchants/store.ts';
import { createUser, issueSetPasswordLink } from '../../src/dashboard/users.ts';
import { browser, signedInOwner, type Browser } from '../dashboard/browser.ts';
import { startUnmatchedGateway, type UnmatchedGateway } from './setup.ts';

const PASSWORD = 'correct horse battery';

describe.each(await backends())('dashboard unmatched payments on $name', (backend) => {
  let gw: UnmatchedGateway;
  let owner: Browser;
  let viewer: Browser;
  const idOf = async (txid: string) => (await gw.ctx.storage.db.selectFrom('unmatched_payments').select('id').where('txid', '=', txid).executeTakeFirstOrThrow()).id;
  const statusOf = async (id: string) => (await gw.ctx.storage.db.selectFrom('unmatched_payments').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;

  beforeAll(async () => {
    gw = await startUnmatchedGateway(backend);
    owner = await signedInOwner(gw, 'owner', 'owner@shop.example', PASSWORD);
    viewer = await signedInOwner(gw, 'viewer', 'viewer@shop.example', PASSWORD);
  });
  afterAll(async () => gw?.close());

  it("lists the merchant's open payments for any signed-in user, and none of another merchant's", async () => {
    const mine = await gw.report({ amount: '12.5', memo: '<b>hi</b>' });
    const other = await createMerchant(gw.ctx.storage.db, 'Other');
    await gw.setMaterial(other.id, 'TOtherShopWallet00000000000000001', gw.clock.now);
    const theirs = await gw.report({ to: 'TOtherShopWallet00000000000000001' });

    for (const b of [owner, viewer]) {
      const r = await b.call('GET', '/unmatched');
      expect(r.status).toBe(200);
      const ids = r.body.result.items.map((i: { id: string }) => i.id);
      expect(ids).toContain(await idOf(mine.txid));
      expect(ids).not.toContain(await idOf(theirs.txid));
    }
    const item = (await owner.call('GET', '/unmatched')).body.result.items.find((i: { txid: string }) => i.txid === mine.txid);
    expect(item).toEqual({
      id: await idOf(mine.txid),
      network: 'TRON',
      currency: 'USDT',
      amount: '12.5',
      from: mine.from,
      to: mine.to,
      memo: '<b>hi</b>',
      reason: 'unknown_reference',
      txid: mine.txid,
      status: 'open',
      invoice_id: null,
      resolved_by: null,
      resolved_at: null,
      note: null,
      created_at: gw.clock.now,
    });
    expect((await owner.call('GET', '/unmatched?status=refunded')).body.result.items).toEqual([]);
    const bad = await owner.call('GET', '/unmatched?status=closed');
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe('The status is open, assigned, refunded or all.');
  });

  it('a viewer cannot assign or mark refunded (403); nothing changes', async () => {
    const t = await gw.report();
    const id = await idOf(t.txid);
    const inv = await gw.invoice('100');
    expect((await viewer.call('POST', `/unmatched/${id}/assign`, { invoice: inv.uuid })).status).toBe(403);
    expect((await viewer.call('POST', `/unmatched/${id}/refunded`, { note: 'x' })).status).toBe(403);
    expect(await statusOf(id)).toBe('open');
    // Without a session: 401.
    expect((await browser(gw).call('GET', '/unmatched')).status).toBe(401);
  });

  it('an owner assigns one: credited, audited with the owner; a second assign is refused with 422', async () => {
    const inv = await gw.invoice('100');
    const t = await gw.report({ amount: inv.payer_amount });
    const id = await idOf(t.txid);
    const before = await gw.balance();
    const r = await owner.call('POST', `/unmatched/${id}/assign`, { invoice: inv.uuid });
    expect(r.status).toBe(200);
    expect(r.body.result.invoice).toEqual({ id: inv.uuid, status: 'paid', is_final: true });
    expect(r.body.result.payment).toMatchObject({ id, status: 'assigned', invoice_id: inv.uuid, resolved_by: 'owner@shop.example' });
    expect(Number(await gw.balance())).toBeGreaterThan(Number(before));
    const audit = await gw.ctx.storage.db.selectFrom('dashboard_audit').selectAll().where('action', '=', 'unmatched_assign').where('target', '=', id).executeTakeFirstOrThrow();
    expect(audit).toMatchObject({ email: 'owner@shop.example', merchant_id: gw.merchant.id });
    // Owners read it in the audit log.
    const log = await owner.call('GET', '/audit');
    expect(log.body.result.map((e: { action: string }) => e.action)).toContain('unmatched_assign');

    const again = await owner.call('POST', `/unmatched/${id}/assign`, { invoice: inv.uuid });
    expect(again.status).toBe(422);
    expect(again.body.message).toBe(`Payment ${id} was already assigned to invoice ${inv.uuid}: nothing was changed.`);
  });

  it('refusals answer with the reason: a final invoice, another network, a bad uuid, another merchant\'s payment', async () => {
    const t = await gw.report();
    const id = await idOf(t.txid);
    const eth = await gw.invoice('100', { network: 'ETH' });
    const wrong = await owner.call('POST', `/unmatched/${id}/assign`, { invoice: eth.uuid });
    expect(wrong.status).toBe(422);
    expect(wrong.body.message).toBe(`Invoice ${eth.uuid} is paid on ETH, this payment arrived on TRON: nothing was changed.`);
    const noUuid = await owner.call('POST', `/unmatched/${id}/assign`, { invoice: 'order-1042' });
    expect(noUuid.status).toBe(422);
    expect(noUuid.body.message).toBe('Give the uuid of the invoice to credit.');
    expect((await owner.call('POST', `/unmatched/not-a-uuid/assign`, { invoice: eth.uuid })).status).toBe(404);

    const stranger = await createMerchant(gw.ctx.storage.db, 'Stranger');
    await gw.setMaterial(stranger.id, 'TStrangerWallet000000000000000001', gw.clock.now);
    const theirs = await idOf((await gw.report({ to: 'TStrangerWallet000000000000000001' })).txid);
    const notMine = await owner.call('POST', `/unmatched/${theirs}/refunded`, {});
    expect(notMine.status).toBe(404);
    expect(notMine.body.message).toBe(`No unmatched payment ${theirs} of this merchant`);
    expect(await statusOf(theirs)).toBe('open');
    expect(await statusOf(id)).toBe('open');
  });

  it('an instance admin marks one refunded on the merchant in view, with a note', async () => {
    const user = await createUser(gw.ctx.storage, { merchantId: null, email: 'admin@gateway.example', role: 'admin' }, gw.clock.now);
    const token = await issueSetPasswordLink(gw.ctx.storage, user.id, gw.clock.now);
    const admin = browser(gw, '10.0.0.9');
    expect((await admin.call('POST', '/set-password', { token, password: PASSWORD })).status).toBe(200);
    const t = await gw.report({ amount: '3' });
    const id = await idOf(t.txid);
    const before = await gw.balance();
    const r = await admin.call('POST', `/unmatched/${id}/refunded?merchant=${gw.merchant.id}`, { note: 'returned, tx 77aa' });
    expect(r.status).toBe(200);
    expect(r.body.result).toMatchObject({ id, status: 'refunded', note: 'returned, tx 77aa', resolved_by: 'admin@gateway.example' });
    expect(await gw.balance()).toBe(before);
    const listed = (await owner.call('GET', '/unmatched?status=refunded')).body.result.items;
    expect(listed.map((i: { id: string }) => i.id)).toEqual([id]);
  });
});
