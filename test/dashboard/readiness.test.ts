// The dashboard's settings show the same readiness checks as `satchel doctor`, to an instance admin
// only (the checks read every merchant's callback URLs), and the network table to everyone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { browser, signedInOwner } from './browser.ts';
import { createUser, issueSetPasswordLink } from '../../src/dashboard/users.ts';

describe.each(await backends())('dashboard readiness on $name', (backend) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(backend, { env: { SATCHEL_BACKUP: 'nightly pg_dump to the NAS' } });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('an instance admin sees the doctor findings, each with its status and fix', async () => {
    const admin = await createUser(gw.ctx.storage, { merchantId: null, email: 'ops@gateway.example', role: 'admin' }, gw.clock.now);
    const b = browser(gw);
    const set = await b.call('POST', '/set-password', { token: await issueSetPasswordLink(gw.ctx.storage, admin.id, gw.clock.now), password: 'correct horse battery' });
    expect(set.status).toBe(200);
    const r = await b.call('GET', `/doctor?merchant=${gw.merchant.id}`);
    expect(r.status).toBe(200);
    const findings = r.body.result as Array<{ status: string; name: string; detail: string; fix?: string }>;
    // Every network simulated: not ready for real money, and the fix says what to do.
    expect(findings).toContainEqual(expect.objectContaining({ status: 'FAIL', name: 'networks', fix: expect.stringContaining('SATCHEL_NETWORKS') }));
    expect(findings).toContainEqual({ status: 'OK', check: 'backups', code: 'backups.described', params: { backup: 'nightly pg_dump to the NAS' }, name: 'backups', detail: 'nightly pg_dump to the NAS' });
    expect(findings.find((f) => f.name === 'public URL')).toBeDefined();
  });

  it("a merchant's owner is refused the checks but sees the network table", async () => {
    const owner = await signedInOwner(gw);
    const r = await owner.call('GET', '/doctor');
    expect(r.status).toBe(403);
    expect(r.body.message).toContain('Only an instance admin');
    const nets = await owner.call('GET', '/networks');
    expect(nets.status).toBe(200);
    expect(nets.body.result).toContainEqual(expect.objectContaining({ network: 'ETH', mode: 'test', offered: true }));
  });
});
