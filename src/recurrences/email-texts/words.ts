// The shape of the payer emails' words in one language (./europe.ts, ./asia.ts hold them).
// Placeholders, filled in by ../emails.ts: {name} the recurrence's name, {merchant} the merchant's
// name, {price} the amount per period (one of `period`, whose {amount} is "10.00 USDT").
import type { RecurrencePeriod } from '../../contracts/merchant-api/recurrences.ts';

/**
 * The emails a payer can get: subscribed (active), renewal due (wait_payment), the renewal collected
 * automatically (wait_payment with an active allowance: nothing to do), a renewal paid, failed
 * (inactive), cancelled.
 */
export const EMAIL_KINDS = ['subscribed', 'renewal_due', 'renewal_auto', 'paid', 'failed', 'cancelled'] as const;
export type EmailKind = (typeof EMAIL_KINDS)[number];

export interface EmailWords {
  period: Record<RecurrencePeriod, string>;
  subject: Record<EmailKind, string>;
  body: Record<EmailKind, string>;
  /** Before the renewal invoice's link. */
  pay: string;
  /** Before the subscription page's link. */
  page: string;
  /** Why the payer gets this email. */
  why: string;
}
