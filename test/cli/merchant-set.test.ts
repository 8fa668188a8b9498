// `satchel merchant set`: a value it does not know, for any of its options, is refused with a
// message naming the option and the value, a non-zero exit, and nothing changed, even when the
// other option of the same command is right (it is not applied alone).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findMerchant, payerEmailsOn, refundKeySetting } from '../../src/merchants/store.ts';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { satchel } from './in-process.ts';

describe.each(await backends())('satchel merchant set on $name', (backend) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(backend);
  });
  afterAll(async () => gw?.close());

  const state = async () => {
    const m = (await findMerchant(gw.ctx.storage.db, gw.merchant.id))!;
    const audited = await gw.ctx.storage.db.selectFrom('dashboard_audit').select('id').where('merchant_id', '=', gw.merchant.id).execute();
    return { emails: payerEmailsOn(m), refundKey: refundKeySetting(m), audited: audited.length };
  };

  it.each([
    [['--payer-emails', 'on', '--refund-key', 'eiter'], /^--refund-key takes payout or either, not "eiter"; nothing was changed$/],
    [['--refund-key', 'either', '--payer-emails', 'yes'], /^--payer-emails takes on or off, not "yes"; nothing was changed$/],
    [['--refund-key', ''], /^--refund-key takes payout or either, not ""/],
    [['--payer-emails', 'ON'], /^--payer-emails takes on or off, not "ON"/],
    [['--refund-key', 'Payout', '--payer-emails', 'off'], /^--refund-key takes payout or either, not "Payout"/],
  ])('refuses %j and changes nothing', async (options, message) => {
    const before = await state();
    const r = await satchel(gw, 'merchant', 'set', '--merchant', gw.merchant.id, ...options);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.out).toBe('');
    expect(await state()).toEqual(before);
  });

  it('applies both options when both are right', async () => {
    const before = await state();
    const r = await satchel(gw, 'merchant', 'set', '--merchant', gw.merchant.id, '--payer-emails', before.emails ? 'off' : 'on', '--refund-key', before.refundKey === 'either' ? 'payout' : 'either');
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(await state()).toEqual({ emails: !before.emails, refundKey: before.refundKey === 'either' ? 'payout' : 'either', audited: before.audited + 2 });
  });
});
