// `satchel merchant show`: the demo merchant's first-start banner again while its keys are the
// first ones; after a rotation, and for any other merchant, no keys.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../../src/merchants/store.ts';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { signedInOwner } from '../dashboard/browser.ts';
import { satchel } from './in-process.ts';

describe.each(await backends())('satchel merchant show on $name', (backend) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(backend);
    // The first start's merchant.
    await gw.ctx.storage.db.updateTable('merchants').set({ name: 'Demo shop' }).where('id', '=', gw.merchant.id).execute();
  });
  afterAll(async () => gw?.close());

  it('reprints the demo merchant keys and a request that works, until a key is rotated', async () => {
    const shown = await satchel(gw, 'merchant', 'show');
    expect(shown.code).toBe(0);
    expect(shown.out).toContain(`merchant: ${gw.merchant.id}\nname:     Demo shop`);
    expect(shown.out).toContain(`payment key:  ${gw.merchant.payment_key}`);
    expect(shown.out).toContain(`payout key:   ${gw.merchant.payout_key}`);
    // The printed request, as pasted: its sign is accepted for its body.
    const sign = /-H 'sign: ([0-9a-f]{32})'/.exec(shown.out)![1]!;
    const body = /-d '(.*)'$/m.exec(shown.out)![1]!;
    expect(shown.out).toContain(`curl -s https://pay.example.test/v1/payment`);
    const res = await gw.app.inject({ method: 'POST', url: '/v1/payment', payload: body, headers: { 'content-type': 'application/json', merchant: gw.merchant.id, sign } });
    expect(res.json()).toMatchObject({ state: 0 });

    const owner = await signedInOwner(gw);
    expect((await owner.call('POST', '/keys/rotate', { kind: 'payout', confirm: true })).status).toBe(200);
    const after = await satchel(gw, 'merchant', 'show', '--merchant', gw.merchant.id);
    expect(after.code).toBe(0);
    expect(after.out).toContain('API keys are shown only when they are made');
    expect(after.out).not.toContain(gw.merchant.payment_key);
  });

  it('shows another merchant without keys; asks for --merchant among several; refuses an unknown id', async () => {
    const other = await createMerchant(gw.ctx.storage.db, 'Corner shop');
    const shown = await satchel(gw, 'merchant', 'show', '--merchant', other.id);
    expect(shown.out).toBe(`merchant: ${other.id}\nname:     Corner shop\nstatus:   active\nAPI keys are shown only when they are made: by satchel merchant create, and when rotated in the dashboard (Settings).`);
    expect(await satchel(gw, 'merchant', 'show')).toMatchObject({ code: 2, err: expect.stringMatching(/pass --merchant <uuid>/) });
    expect(await satchel(gw, 'merchant', 'show', '--merchant', 'nope')).toMatchObject({ code: 2, err: '--merchant needs a merchant uuid, not "nope"' });
  });
});
