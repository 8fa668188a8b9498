// The dashboard's payouts (list, detail, calculate then create) and settings that touch money:
// API keys (shown by prefix, rotated once confirmed) and the merchant's public profile.
import { dashboardRoute, type DashboardRouteGroup } from './api.ts';
import { moneyApi } from '../../contracts/dashboard/money.ts';
import { calcPayout, createPayout } from '../../payouts/create.ts';
import { listPayouts, payoutInfo } from '../../payouts/queries.ts';
import { audit } from '../../dashboard/audit.ts';
import { KeyChangedError, UserInputError } from '../../dashboard/errors.ts';
import { parseRefundKeySetting, payerEmailsOn, refundKeySetting, rotateMerchantKey, setPayerEmails, setRefundKeySetting } from '../../merchants/store.ts';
import { getProfile, logoPath, updateProfile, type MerchantProfile } from '../../merchants/profile.ts';
import { LOGO_BODY_LIMIT, LOGO_TOO_LARGE, logoFromBody } from '../../dashboard/settings.ts';
import { isUuid } from '../../contracts/rules.ts';
import { withOrderIds } from '../../dashboard/payout-orders.ts';
import { NotFoundError } from '../../errors.ts';
import { calcPayoutOp, createPayoutOp, payoutInfoOp, payoutListOp } from '../../contracts/merchant-api/payouts.ts';
import { paramsFor } from '../signed-api.ts';
import { floatLines } from '../../outgoing/float.ts';

/** What the create form sends, as the signed API takes it. */
function payoutInput(body: Record<string, unknown>) {
  const text = (k: string) => (typeof body[k] === 'string' ? (body[k] as string).trim() : body[k]);
  return {
    amount: text('amount'),
    currency: text('currency'),
    network: text('network'),
    address: text('address'),
    is_subtract: body.is_subtract === true,
    ...(body.order_id !== undefined ? { order_id: text('order_id') } : {}),
  };
}

export const moneyRoutes: DashboardRouteGroup = async (app, { ctx }) => {
  dashboardRoute(app, moneyApi.payouts, async ({ merchant, query }) => {
    const page = await listPayouts(ctx, merchant.id, paramsFor(ctx, payoutListOp, {}, typeof query.cursor === 'string' ? { cursor: query.cursor } : {}));
    return { items: await withOrderIds(ctx.storage.db, merchant.id, page.items), next: page.paginate.nextCursor, previous: page.paginate.previousCursor };
  });

  dashboardRoute(app, moneyApi.payout, async ({ merchant, req }) => {
    const id = (req.params as { id?: unknown }).id;
    if (!isUuid(id)) throw new NotFoundError('Payout not found');
    const [payout] = await withOrderIds(ctx.storage.db, merchant.id, [await payoutInfo(ctx, merchant.id, paramsFor(ctx, payoutInfoOp, { uuid: id.toLowerCase() }))]);
    if (!payout) throw new NotFoundError('Payout not found');
    return payout;
  });

  // The floats payouts on watch-only networks leave from: gateway-wide, as the merchant's payouts
  // meet them (a cap refusal names the same numbers).
  dashboardRoute(app, moneyApi.floats, async () => floatLines(ctx));

  dashboardRoute(app, moneyApi.calc, async ({ merchant, body }) => calcPayout(ctx, merchant, paramsFor(ctx, calcPayoutOp, payoutInput(body))));

  dashboardRoute(
    app,
    moneyApi.create,
    async ({ merchant, body, actor }) => {
      const input = payoutInput(body);
      const created = await createPayout(ctx, merchant, paramsFor(ctx, createPayoutOp, input));
      await audit(ctx.storage.db, actor, { merchantId: merchant.id, action: 'payout_create', target: String(input.order_id), detail: { amount: input.amount, currency: input.currency, network: input.network, address: input.address } }, ctx.now());
      return created;
    },
  );

  dashboardRoute(
    app,
    moneyApi.keys,
    async ({ merchant }) => ({
      // A prefix is enough to tell keys apart; the full key is never sent again.
      payment: merchant.payment_key.slice(0, 6),
      payout: merchant.payout_key.slice(0, 6),
    }),
  );

  dashboardRoute(
    app,
    moneyApi.rotate,
    async ({ merchant, body, actor }) => {
      const kind: 'payment' | 'payout' | null = body.kind === 'payment' || body.kind === 'payout' ? body.kind : null;
      if (!kind) throw new UserInputError('Choose the payment or the payout key.');
      if (body.confirm !== true) throw new UserInputError('Confirm the rotation: the current key stops working at once.');
      // The rotation replaces the key this request read, and only if the page's view of it (`from`,
      // the prefix it shows) is still true: a second tab or a double click is refused rather than
      // answered with a key that a concurrent rotation has already replaced.
      const current = kind === 'payment' ? merchant.payment_key : merchant.payout_key;
      if (body.from !== undefined && (typeof body.from !== 'string' || !current.startsWith(body.from) || body.from.length < 6)) throw new KeyChangedError();
      const key = await rotateMerchantKey(ctx.storage.db, merchant.id, kind, current);
      if (key === null) throw new KeyChangedError();
      ctx.merchants.invalidate(merchant.id);
      await audit(ctx.storage.db, actor, { merchantId: merchant.id, action: 'key_rotate', target: kind, detail: { prefix: key.slice(0, 6) } }, ctx.now());
      return { kind, key };
    },
  );

  dashboardRoute(app, moneyApi.refundKey, async ({ merchant }) => ({ refund_key: refundKeySetting(merchant) }));

  // Which key may sign /v1/payment/refund: the payout key (the spec's rule) or either key. The risk
  // of `either` is the merchant's to take, so only those who may manage the merchant can change it.
  dashboardRoute(
    app,
    moneyApi.setRefundKey,
    async ({ merchant, body, actor }) => {
      const next = parseRefundKeySetting(body.refund_key);
      if (!next) throw new UserInputError('Choose payout or either.');
      const before = refundKeySetting(merchant);
      await setRefundKeySetting(ctx.storage.db, merchant.id, next);
      ctx.merchants.invalidate(merchant.id);
      await audit(ctx.storage.db, actor, { merchantId: merchant.id, action: 'refund_key', target: next, detail: { from: before, to: next } }, ctx.now());
      return { refund_key: next };
    },
  );

  dashboardRoute(app, moneyApi.payerEmails, async ({ merchant }) => ({ payer_emails: payerEmailsOn(merchant), email_enabled: ctx.mail.configured }));

  // Payer emails of subscriptions (docs/recurring.md): sent only with SMTP configured, and only
  // to payers who gave an address; the switch is the merchant's.
  dashboardRoute(
    app,
    moneyApi.setPayerEmails,
    async ({ merchant, body, actor }) => {
      if (typeof body.payer_emails !== 'boolean') throw new UserInputError('Choose on or off.');
      const before = payerEmailsOn(merchant);
      await setPayerEmails(ctx.storage.db, merchant.id, body.payer_emails);
      ctx.merchants.invalidate(merchant.id);
      const on = body.payer_emails ? 'on' : 'off';
      await audit(ctx.storage.db, actor, { merchantId: merchant.id, action: 'payer_emails', target: on, detail: { from: before ? 'on' : 'off', to: on } }, ctx.now());
      return { payer_emails: body.payer_emails, email_enabled: ctx.mail.configured };
    },
  );

  dashboardRoute(app, moneyApi.profile, async ({ merchant }) => withLogoUrl(await getProfile(ctx.storage.db, merchant.id)));

  dashboardRoute(
    app,
    moneyApi.saveProfile,
    async ({ merchant, body, actor }) => {
      const patch: { display_name?: unknown; accent?: unknown; theme?: unknown; language?: unknown } = {};
      for (const k of ['display_name', 'accent', 'theme', 'language'] as const) if (k in body) patch[k] = body[k] === '' ? null : body[k];
      const profile = await updateProfile(ctx.storage.db, merchant.id, patch, ctx.now());
      await audit(ctx.storage.db, actor, { merchantId: merchant.id, action: 'profile_update', detail: patch }, ctx.now());
      return withLogoUrl(profile);
    },
  );

  dashboardRoute(
    app,
    moneyApi.uploadLogo,
    async ({ merchant, body, actor }) => {
      const profile = await updateProfile(ctx.storage.db, merchant.id, { logo: logoFromBody(body) }, ctx.now());
      await audit(ctx.storage.db, actor, { merchantId: merchant.id, action: 'profile_logo', target: 'upload', detail: { ...profile.logo } }, ctx.now());
      return withLogoUrl(profile);
    },
    { bodyLimit: LOGO_BODY_LIMIT, tooLarge: LOGO_TOO_LARGE },
  );

  dashboardRoute(
    app,
    moneyApi.removeLogo,
    async ({ merchant, actor }) => {
      const profile = await updateProfile(ctx.storage.db, merchant.id, { logo: null }, ctx.now());
      await audit(ctx.storage.db, actor, { merchantId: merchant.id, action: 'profile_logo', target: 'remove' }, ctx.now());
      return withLogoUrl(profile);
    },
  );
};

/** The profile as the settings form shows it: with the address the logo is served from. */
function withLogoUrl(profile: MerchantProfile): MerchantProfile & { logo_url: string | null } {
  return { ...profile, logo_url: profile.logo ? logoPath(profile.logo.sha256, profile.logo.type) : null };
}
