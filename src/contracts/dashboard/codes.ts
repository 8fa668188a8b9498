// The codes the dashboard shows a person, by what they describe, next to the lists other modules
// own (invoice and wallet statuses, unmatched reasons). The dashboard gives each a label in the
// user's language (src/dashboard-ui/i18n/); test/dashboard/labels.test.ts checks every code of
// these lists, and of the contracts' status enums, has one. The server writes them as text
// (src/db/tables/), so a code missing here still shows, under a neutral label and its raw code.
export { INVOICE_STATUSES } from '../invoice-status.ts';
export { WALLET_STATUSES } from '../payer.ts';

/** Payouts and every refund (an outgoing payment): the merchant API's payout statuses. */
export const PAYOUT_STATUSES = ['process', 'check', 'paid', 'fail', 'cancel', 'system_fail'] as const;
/** What an outgoing payment is for (table `payouts`, column `kind`). */
export const PAYOUT_KINDS = ['payout', 'refund', 'wallet_refund', 'force_refund'] as const;
/** A webhook's delivery (table `webhooks`). */
export const WEBHOOK_STATUSES = ['pending', 'delivered', 'failed'] as const;
/** What a webhook is about (src/webhooks/outbox.ts WebhookKind). */
export const WEBHOOK_KINDS = ['payment', 'wallet', 'payout', 'custody', 'unmatched', 'recurrence'] as const;
/** A subscription's state, which its `recurrence` webhook carries (src/contracts/merchant-api/recurrences.ts RECURRENCE_STATUSES). */
export const RECURRENCE_STATUSES = ['wait_accept', 'active', 'wait_payment', 'inactive', 'cancel_by_merchant', 'cancel_by_user'] as const;
/** A transfer the chain reported (table `chain_transfers`). */
export const TRANSFER_STATUSES = ['seen', 'confirmed', 'dropped'] as const;
/** What became of a static wallet's top-up (table `wallet_topups`, column `outcome`). */
export const TOPUP_OUTCOMES = ['credited', 'blocked', 'force_refund', 'refunded'] as const;
/** An unmatched payment's state (src/contracts/dashboard/unmatched.ts). */
export const UNMATCHED_STATUSES = ['open', 'assigned', 'refunded'] as const;
/** Why a payment matched nothing (src/unmatched/record.ts UNMATCHED_REASONS). */
export const UNMATCHED_REASONS = ['no_reference', 'unknown_reference', 'unreadable_reference', 'bounced'] as const;
/** A dashboard user's standing: removed, signed up, or invited without a password yet. */
export const USER_STATES = ['active', 'blocked', 'pending'] as const;
/** A dashboard user's role (table `dashboard_users`). */
export const USER_ROLES = ['owner', 'viewer', 'admin'] as const;
/** A readiness check's result (src/contracts/dashboard/readiness.ts). */
export const CHECK_RESULTS = ['OK', 'WARN', 'FAIL', 'SKIP'] as const;

/**
 * Input a dashboard operation refuses (src/dashboard/errors.ts UserInputError), each with the
 * `params` its sentence names (in brackets): a date not written as YYYY-MM-DD (field), a page
 * cursor that is not one, a filter's unknown status (status), currency (currency) or network
 * (network), a search too long, a logo missing, too large or not base64, an email address that is
 * not one or is taken (email), a role that is none, an instance admin given a merchant, an owner or
 * viewer given none, a merchant that does not exist (merchant), a password empty, too short (min)
 * or too long (max), a language the dashboard does not speak (languages), a webhook list filter
 * that is none, and a webhook resent while delivered, superseded or being delivered.
 */
export const INPUT_ERROR_CODES = [
  'bad_date',
  'bad_cursor',
  'unknown_status',
  'unknown_currency',
  'unknown_network',
  'search_too_long',
  'logo_missing',
  'logo_too_large',
  'logo_not_base64',
  'bad_email',
  'email_taken',
  'bad_role',
  'admin_has_merchant',
  'merchant_required',
  'unknown_merchant',
  'password_empty',
  'password_short',
  'password_long',
  'bad_language',
  'bad_delivery_filter',
  'webhook_delivered',
  'webhook_superseded',
  'webhook_in_flight',
] as const;
export type InputErrorCode = (typeof INPUT_ERROR_CODES)[number];

/**
 * The `code` of a dashboard API failure envelope (src/http/dashboard/api.ts): the dashboard words
 * each in the user's language. A failure without one carries a message particular to the request
 * (a refused amount, an address the network does not take), shown as the server wrote it.
 * `params` (when present) are the values the code's sentence names.
 */
export const DASHBOARD_ERROR_CODES = [
  'session_required',
  'bad_credentials',
  'csrf',
  'role_forbidden',
  'password_missing',
  'password_wrong',
  'link_expired',
  'key_changed',
  'login_throttled',
  'too_large',
  'validation',
  'not_found',
  ...INPUT_ERROR_CODES,
] as const;
export type DashboardErrorCode = (typeof DASHBOARD_ERROR_CODES)[number];

/** Every family of codes the dashboard labels, by the name its labels are filed under. */
export const CODE_FAMILIES = {
  invoice: 'INVOICE_STATUSES',
  payout: 'PAYOUT_STATUSES',
  payout_kind: 'PAYOUT_KINDS',
  wallet: 'WALLET_STATUSES',
  webhook: 'WEBHOOK_STATUSES',
  webhook_kind: 'WEBHOOK_KINDS',
  recurrence: 'RECURRENCE_STATUSES',
  transfer: 'TRANSFER_STATUSES',
  topup: 'TOPUP_OUTCOMES',
  unmatched: 'UNMATCHED_STATUSES',
  unmatched_reason: 'UNMATCHED_REASONS',
  user: 'USER_STATES',
  role: 'USER_ROLES',
  check: 'CHECK_RESULTS',
} as const;
export type CodeFamily = keyof typeof CODE_FAMILIES;
