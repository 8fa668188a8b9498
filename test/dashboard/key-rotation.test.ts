// Concurrent key rotations (two tabs, a double click, two owners): each answer's key is the key in
// force, or the request is refused; the key in force signs requests. On both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { signedInOwner, type Browser } from './browser.ts';
import { findMerchant } from '../../src/merchants/store.ts';

describe.each(await backends())('key rotation races on $name', (backend) => {
  let gw: TestGateway;
  let a: Browser;
  let b: Browser;
  beforeAll(async () => {
    gw = await startTestGateway(backend);
    a = await signedInOwner(gw, 'owner', 'tab-a@shop.example');
    b = await signedInOwner(gw, 'owner', 'tab-b@shop.example');
  });
  afterAll(async () => {
    await gw?.close();
  });

  for (const kind of ['payment', 'payout'] as const) {
    it(`two concurrent ${kind} key rotations from the same view: one key, in force and working`, async () => {
      for (let round = 0; round < 4; round++) {
        const shown = (await a.call('GET', '/keys')).body.result[kind] as string;
        const answers = await Promise.all([a, b].map((tab) => tab.call('POST', '/keys/rotate', { kind, confirm: true, from: shown })));
        const inForce = (await findMerchant(gw.ctx.storage.db, gw.merchant.id))![kind === 'payment' ? 'payment_key' : 'payout_key'];
        const won = answers.filter((r) => r.status === 200);
        expect(won).toHaveLength(1);
        expect(won[0]!.body.result).toEqual({ kind, key: inForce });
        for (const r of answers.filter((x) => x.status !== 200)) {
          expect(r.status).toBe(409);
          expect(r.body).toEqual({ state: 1, message: 'The key was rotated meanwhile (another tab or user). Reload to see the key in force.', code: 'key_changed' });
        }
        // The key in force signs; the one the page showed before is refused.
        const path = kind === 'payment' ? '/v1/payment/list' : '/v1/payout/list';
        const merchant = (await findMerchant(gw.ctx.storage.db, gw.merchant.id))!;
        expect((await gw.api(path, {}, { key: kind, merchant })).status).toBe(200);
      }
      const audited = (await a.call('GET', '/audit')).body.result.filter((e: any) => e.action === 'key_rotate' && e.target === kind);
      expect(audited).toHaveLength(4); // one per round: the refused rotations changed nothing
    });
  }

  it('a rotation from a stale view is refused and changes nothing', async () => {
    const before = (await findMerchant(gw.ctx.storage.db, gw.merchant.id))!.payment_key;
    const r = await a.call('POST', '/keys/rotate', { kind: 'payment', confirm: true, from: 'AAAAAA' });
    expect(r.status).toBe(409);
    expect((await findMerchant(gw.ctx.storage.db, gw.merchant.id))!.payment_key).toBe(before);
  });
});
