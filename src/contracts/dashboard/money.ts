// The dashboard's payouts (list, detail, calculate then create) and settings that touch money or
// the payment page: API keys, the refund key, the merchant's public profile and its logo.
import * as z from 'zod/mini';
import { PAGE_LANGUAGES } from '../payer.ts';
import { decimal, get, NoBody, post, text } from './route.ts';

/** A payout as the merchant API presents it, with its order_id; the detail shows every field. */
export const Payout = z.looseObject({
  uuid: z.string(),
  /** The payout's order_id (absent in the answer of a creation). */
  order_id: z.optional(z.nullable(z.string())),
  status: z.string(),
  amount: decimal,
  currency: z.string(),
  network: z.nullable(z.string()),
  address: z.string(),
});
export type Payout = z.infer<typeof Payout>;

export const PayoutCalc = z.object({ commission: decimal, merchant_amount: decimal, payout_amount: decimal });
export type PayoutCalc = z.infer<typeof PayoutCalc>;

const PayoutForm = {
  amount: text,
  currency: text,
  network: text,
  address: text,
  is_subtract: z.optional(z.boolean()),
};

/**
 * One currency of a watch-only network's payout float (docs/networks.md, "The payout float"): what
 * it holds (as last read from the node; null while unknown), what it sent or accepted to send this
 * UTC day, and its caps (null: none). Amounts are decimal text.
 */
export const PayoutFloatLine = z.object({
  network: z.string(),
  currency: z.string(),
  address: z.nullable(z.string()),
  balance: z.nullable(decimal),
  spent_today: decimal,
  max_per_payout: z.nullable(decimal),
  max_per_day: z.nullable(decimal),
  left_today: z.nullable(decimal),
});
export type PayoutFloatLine = z.infer<typeof PayoutFloatLine>;

export const REFUND_KEYS = ['payout', 'either'] as const;
export type RefundKeySetting = (typeof REFUND_KEYS)[number];

export const Profile = z.object({
  display_name: z.nullable(z.string()),
  /** Lower-case #rrggbb, or null for the page's own colours. */
  accent: z.nullable(z.string()),
  theme: z.string(),
  /** The payment page's default language; null: the payer's browser decides. */
  language: z.nullable(z.enum(PAGE_LANGUAGES)),
  logo: z.nullable(z.object({ type: z.string(), sha256: z.string(), bytes: z.number() })),
  /** Where the logo is served from, when there is one. */
  logo_url: z.nullable(z.string()),
});
export type Profile = z.infer<typeof Profile>;

const KeyKind = z.enum(['payment', 'payout']);

export const moneyApi = {
  payouts: get('/payouts', z.object({ items: z.array(Payout), next: z.nullable(z.string()), previous: z.nullable(z.string()) }), { query: ['cursor'] }),
  payout: get('/payouts/:id', Payout),
  /** The gateway's payout floats (every watch-only network that has one), per currency. */
  floats: get('/payout-floats', z.array(PayoutFloatLine)),
  calc: post('/payouts/calc', 'manage', z.object(PayoutForm), PayoutCalc),
  create: post('/payouts', 'manage', z.object({ ...PayoutForm, order_id: text }), Payout),
  keys: get('/keys', z.object({ payment: z.string(), payout: z.string() }), { access: 'manage' }),
  rotate: post('/keys/rotate', 'manage', z.object({ kind: text, confirm: z.optional(z.boolean()), from: text }), z.object({ kind: KeyKind, key: z.string() })),
  refundKey: get('/refund-key', z.object({ refund_key: z.enum(REFUND_KEYS) })),
  setRefundKey: post('/refund-key', 'manage', z.object({ refund_key: text }), z.object({ refund_key: z.enum(REFUND_KEYS) })),
  /** Payer emails of subscriptions; `email_enabled`: whether the gateway has SMTP configured. */
  payerEmails: get('/payer-emails', z.object({ payer_emails: z.boolean(), email_enabled: z.boolean() })),
  setPayerEmails: post('/payer-emails', 'manage', z.object({ payer_emails: z.optional(z.unknown()) }), z.object({ payer_emails: z.boolean(), email_enabled: z.boolean() })),
  profile: get('/profile', Profile),
  saveProfile: post(
    '/profile',
    'manage',
    z.object({ display_name: z.optional(z.nullable(z.string())), accent: z.optional(z.nullable(z.string())), theme: z.optional(z.nullable(z.string())), language: z.optional(z.nullable(z.string())) }),
    Profile,
  ),
  /** `image`: the file as base64; the logo reader refuses anything else with its own message. */
  uploadLogo: post('/profile/logo', 'manage', z.object({ image: z.optional(z.unknown()) }), Profile),
  removeLogo: post('/profile/logo/remove', 'manage', NoBody, Profile),
} as const;
