// The merchant's switch for payer emails of subscriptions: off by default; an owner turns it on
// in the dashboard (a viewer cannot), audited, and the dashboard says whether SMTP is configured;
// `satchel merchant set --payer-emails on|off` does the same from the command line. Both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { signedInOwner, type Browser } from '../dashboard/browser.ts';
import { merchantSetCli } from '../../src/cli/merchant-set.ts';
import { findMerchant, payerEmailsOn } from '../../src/merchants/store.ts';

describe.each(await backends())('payer emails switch on $name', (backend) => {
  let gw: TestGateway;
  let owner: Browser;
  let viewer: Browser;
  beforeAll(async () => {
    gw = await startTestGateway(backend);
    owner = await signedInOwner(gw, 'owner', 'pe-owner@shop.example');
    viewer = await signedInOwner(gw, 'viewer', 'pe-viewer@shop.example');
  });
  afterAll(async () => gw?.close());
  const stored = async () => payerEmailsOn((await findMerchant(gw.ctx.storage.db, gw.merchant.id))!);

  it('is off by default; a viewer cannot turn it on; an owner can, audited; bad input is refused', async () => {
    expect((await owner.call('GET', '/payer-emails')).body.result).toEqual({ payer_emails: false, email_enabled: false });
    expect((await viewer.call('POST', '/payer-emails', { payer_emails: true })).status).toBe(403);
    expect((await owner.call('POST', '/payer-emails', { payer_emails: 'yes' })).status).toBe(422);
    expect(await stored()).toBe(false);
    const set = await owner.call('POST', '/payer-emails', { payer_emails: true });
    expect([set.status, set.body.result]).toEqual([200, { payer_emails: true, email_enabled: false }]);
    expect(await stored()).toBe(true);
    expect((await viewer.call('GET', '/payer-emails')).body.result.payer_emails).toBe(true);
    const log = (await owner.call('GET', '/audit')).body.result.filter((e: any) => e.action === 'payer_emails');
    expect(log[0]).toMatchObject({ email: 'pe-owner@shop.example', target: 'on', detail: { from: 'off', to: 'on' } });
  });

  it('satchel merchant set --payer-emails turns it off, audited with the actor cli', async () => {
    const env = { SATCHEL_DATA_DIR: gw.config.dataDir, ...(gw.config.databaseUrl ? { DATABASE_URL: gw.config.databaseUrl } : {}), SATCHEL_MNEMONIC: 'x', LOG_LEVEL: 'silent' };
    const lines: string[] = [];
    const out = { log: (s: string) => lines.push(s), error: (s: string) => lines.push(s) };
    expect(await merchantSetCli(['--merchant', gw.merchant.id, '--payer-emails', 'maybe'], out, env)).toBe(2);
    expect(await merchantSetCli(['--merchant', gw.merchant.id], out, env)).toBe(2);
    expect(await stored()).toBe(true);
    expect(await merchantSetCli(['--merchant', gw.merchant.id, '--payer-emails', 'off'], out, env)).toBe(0);
    expect(lines.at(-1)).toBe(`Payers of ${gw.merchant.id} get no subscription emails.`);
    expect(await stored()).toBe(false);
    const log = (await owner.call('GET', '/audit')).body.result.filter((e: any) => e.action === 'payer_emails');
    expect(log[0]).toMatchObject({ email: 'cli', target: 'off', detail: { from: 'on', to: 'off' } });
  });
});
