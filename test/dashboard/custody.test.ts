// Settings → Receiving, through the dashboard's API as the page calls it: every signed-in user sees
// each network's custody and material (and the warning about real networks in hot custody); only
// an owner of the merchant changes it, with the password given again in the same request (viewer
// and instance admin refused, a missing or wrong password refused, nothing changed); a change is
// audited with the owner's email and announced by the signed webhook; bad input is answered 422
// with the problem named; a contract cold address is accepted with a warning.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { createUser, issueSetPasswordLink } from '../../src/dashboard/users.ts';
import { browser, signedInOwner, type Browser } from './browser.ts';
import { COLD_A, COLD_A_BAD_CHECKSUM, COLD_B, DEPTH2_TPUB, TPRV, TPUB, ZERO, everythingStored, signedWith, startCustodyGateway, type CustodyGateway } from '../custody/setup.ts';

const PASSWORD = 'correct horse battery';

describe.each(await backends())('dashboard receiving settings on $name', (backend) => {
  let gw: CustodyGateway;
  let owner: Browser;

  async function signedInAdmin(): Promise<Browser> {
    const user = await createUser(gw.ctx.storage, { merchantId: null, email: 'admin@gateway.example', role: 'admin' }, gw.clock.now);
    const token = await issueSetPasswordLink(gw.ctx.storage, user.id, gw.clock.now);
    const b = browser(gw, '10.0.0.9');
    expect((await b.call('POST', '/set-password', { token, password: PASSWORD })).status).toBe(200);
    return b;
  }
  const custodyRows = () => gw.ctx.storage.db.selectFrom('merchant_custody').selectAll().where('merchant_id', '=', gw.merchant.id).execute();

  beforeAll(async () => {
    gw = await startCustodyGateway(backend);
    await gw.ctx.storage.db.updateTable('merchants').set({ default_url_callback: 'https://shop.example.test/hook' }).where('id', '=', gw.merchant.id).execute();
    owner = await signedInOwner(gw, 'owner', 'owner@shop.example', PASSWORD);
  });
  afterAll(async () => gw?.close());

  it('shows each real network, the material, and warns about real networks in hot custody', async () => {
    const r = await owner.call('GET', '/receiving');
    expect(r.status).toBe(200);
    expect(r.body.result.hot_networks).toEqual(['DOGE']);
    const byCode = Object.fromEntries(r.body.result.networks.map((n: { network: string }) => [n.network, n]));
    expect(byCode.ETH).toMatchObject({ mode: 'watch-only', inputs: ['address'], current: null, offered: false });
    expect(byCode.LTC).toMatchObject({ mode: 'watch-only', inputs: ['xpub', 'descriptor'], current: null, offered: false });
    expect(byCode.DOGE).toMatchObject({ mode: 'hot', current: null });
  });

  it('refuses a viewer and an instance admin (403), and an owner without the right password (403): nothing changed', async () => {
    const viewer = await signedInOwner(gw, 'viewer', 'viewer@shop.example', PASSWORD);
    const asViewer = await viewer.call('POST', '/receiving', { network: 'ETH', address: COLD_A, password: PASSWORD });
    expect(asViewer.status).toBe(403);
    // A viewer still sees the settings.
    expect((await viewer.call('GET', '/receiving')).status).toBe(200);

    const admin = await signedInAdmin();
    const asAdmin = await admin.call('POST', `/receiving?merchant=${gw.merchant.id}`, { network: 'ETH', address: COLD_A, password: PASSWORD });
    expect(asAdmin.status).toBe(403);
    expect(asAdmin.body.message).toBe('Only an owner of the merchant can change what its payments are received into.');
    expect(asAdmin.body.code).toBe('role_forbidden');

    const noPassword = await owner.call('POST', '/receiving', { network: 'ETH', address: COLD_A });
    expect(noPassword.status).toBe(403);
    expect(noPassword.body.message).toBe('Enter your password to confirm this change: nothing was changed.');
    expect(noPassword.body.code).toBe('password_missing');
    const wrong = await owner.call('POST', '/receiving', { network: 'ETH', address: COLD_A, password: 'not my password at all' });
    expect(wrong.status).toBe(403);
    expect(wrong.body.message).toBe('The password is not right: nothing was changed.');
    expect(wrong.body.code).toBe('password_wrong');
    // Still signed in: a wrong password here does not end the session.
    expect((await owner.call('GET', '/receiving')).status).toBe(200);

    expect(await custodyRows()).toEqual([]);
    expect(await gw.ctx.storage.db.selectFrom('webhooks').select('id').where('kind', '=', 'custody').execute()).toEqual([]);
    expect(await gw.ctx.storage.db.selectFrom('dashboard_audit').select('id').where('action', '=', 'custody_change').execute()).toEqual([]);
  });

  it('an owner with the password sets and replaces it: audited with the owner, webhook signed, shown back', async () => {
    const set = await owner.call('POST', '/receiving', { network: 'eth', address: COLD_A, password: PASSWORD });
    expect(set.status).toBe(200);
    expect(set.body.result).toEqual({ outcome: 'set', network: 'ETH', summary: COLD_A, old: null, warning: null, warnings: [], webhook_url: 'https://shop.example.test/hook' });

    const inv = await gw.api('/v1/payment', { amount: '0.1', currency: 'ETH', network: 'ETH', order_id: 'dash-1' });
    expect(inv.body.state).toBe(0);

    const replaced = await owner.call('POST', '/receiving', { network: 'ETH', address: COLD_B, password: PASSWORD });
    expect(replaced.status).toBe(200);
    expect(replaced.body.result).toMatchObject({ outcome: 'replaced', summary: COLD_B, old: COLD_A });
    const same = await owner.call('POST', '/receiving', { network: 'ETH', address: COLD_B, password: PASSWORD });
    expect(same.body.result).toMatchObject({ outcome: 'unchanged', webhook_url: null });

    const audit = await gw.ctx.storage.db.selectFrom('dashboard_audit').selectAll().where('action', '=', 'custody_change').orderBy('id').execute();
    expect(audit.map((a) => [a.email, a.target, JSON.parse(a.detail!).from, JSON.parse(a.detail!).to])).toEqual([
      ['owner@shop.example', 'ETH', null, COLD_A],
      ['owner@shop.example', 'ETH', COLD_A, COLD_B],
    ]);
    // The owner reads it in the audit log.
    const log = await owner.call('GET', '/audit');
    expect(log.body.result.filter((e: { action: string }) => e.action === 'custody_change')).toHaveLength(2);

    const hooks = await gw.ctx.storage.db.selectFrom('webhooks').selectAll().where('kind', '=', 'custody').orderBy('id').execute();
    expect(hooks.map((h) => JSON.parse(h.body))).toMatchObject([
      { type: 'custody_changed', merchant: gw.merchant.id, network: 'ETH', old: null, new: COLD_A },
      { type: 'custody_changed', merchant: gw.merchant.id, network: 'ETH', old: COLD_A, new: COLD_B },
    ]);
    for (const h of hooks) expect(signedWith(h.body, gw.merchant.payment_key)).toBe(true);

    const shown = await owner.call('GET', '/receiving');
    const eth = shown.body.result.networks.find((n: { network: string }) => n.network === 'ETH');
    expect(eth).toMatchObject({ offered: true, current: { kind: 'address', summary: COLD_B, set_by: 'owner@shop.example', derived: 0 } });
  });

  it('answers bad input 422 naming the problem, with nothing stored; a private key is never stored', async () => {
    const before = JSON.stringify(await custodyRows());
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ network: 'ETH', address: COLD_A_BAD_CHECKSUM }, /bad checksum/],
      [{ network: 'ETH', address: ZERO }, /zero address/],
      [{ network: 'LTC', xpub: DEPTH2_TPUB }, /depth 3.*this one has depth 2/],
      [{ network: 'LTC', descriptor: `wpkh(${TPRV}/0/*)` }, /PRIVATE key/],
      [{ network: 'LTC', xpub: TPRV }, /PRIVATE key/],
      [{ network: '' , address: COLD_A }, /Choose the network/],
    ];
    for (const [body, message] of cases) {
      const r = await owner.call('POST', '/receiving', { ...body, password: PASSWORD });
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.body.message).toMatch(message);
      expect(r.raw).not.toContain(TPRV.slice(4, 60));
    }
    const deposit = (await gw.ctx.storage.db.selectFrom('addresses').select('address').where('network', '=', 'ETH').executeTakeFirstOrThrow()).address;
    const loop = await owner.call('POST', '/receiving', { network: 'ETH', address: deposit, password: PASSWORD });
    expect(loop.status).toBe(422);
    expect(loop.body.message).toContain('is a deposit address of this gateway');
    expect(JSON.stringify(await custodyRows())).toBe(before);
    expect(await everythingStored(gw)).not.toContain(TPRV.slice(4, 60));
  });

  it('accepts an extended public key, and a contract cold address with a warning', async () => {
    const ltc = await owner.call('POST', '/receiving', { network: 'LTC', xpub: TPUB, password: PASSWORD });
    expect(ltc.status).toBe(200);
    expect(ltc.body.result).toMatchObject({ outcome: 'set', network: 'LTC', summary: TPUB, warning: null });
    const contract = '0x2222222222222222222222222222222222222222';
    await gw.anvil.rpc('anvil_setCode', [contract, '0x6080604052']);
    const r = await owner.call('POST', '/receiving', { network: 'ETH', address: contract, password: PASSWORD });
    expect(r.status).toBe(200);
    expect(r.body.result.warning).toMatch(/is a contract on ETH, not a plain account/);
    // The same warning as a code, for the dashboard to word in the owner's language.
    expect(r.body.result.warnings).toEqual([{ code: 'contract_address', params: { address: expect.stringMatching(/^0x2{40}$/i), network: 'ETH' } }]);
  });
});
