// Recurring payments (migration 027, src/recurrences/). Times are epoch milliseconds.

export interface RecurrencesTable {
  id: string;
  merchant_id: string;
  order_id: string | null;
  name: string;
  /** Decimal text in `currency`. */
  amount: string;
  currency: string;
  to_currency: string | null;
  payer_currency: string | null;
  network: string | null;
  payer_amount: string | null;
  payer_amount_usd: string | null;
  url_callback: string | null;
  discount_days: number | null;
  discount_amount: string | null;
  end_of_discount: number | null;
  /** weekly | monthly | three_month */
  period: string;
  /** wait_accept | active | wait_payment | inactive | cancel_by_merchant | cancel_by_user */
  status: string;
  additional_data: string | null;
  /** The period of the latest invoice made (0: the first one). */
  period_index: number;
  invoice_id: string | null;
  /** Period `anchor_period` starts at `anchor_at`; each later one a period further. */
  anchor_at: number | null;
  anchor_period: number;
  next_due_at: number | null;
  grace_until: number | null;
  last_pay_off: number | null;
  created_at: number;
  updated_at: number;
  version: number;
  /** The address the payer gave when subscribing, for the subscription emails (migration 029). */
  payer_email?: string | null;
  /** The payer's language (a code of the payment page's languages), for those emails. */
  payer_lang?: string | null;
}

/** The outbox of payer emails of subscriptions (migration 029, src/recurrences/emails.ts). */
export interface RecurrenceEmailsTable {
  id: string;
  recurrence_id: string;
  merchant_id: string;
  /**
   * The recurrence's version after the transition that queued it: one email per transition. A
   * fallback reminder (a pull that fell back) has the negated period: one per period.
   */
  transition: number;
  /** subscribed | renewal_due | renewal_auto | paid | failed | cancelled */
  kind: string;
  recipient: string;
  lang: string;
  invoice_id: string | null;
  /** pending | sending | sent | failed | skipped (a renewal_auto superseded by the fallback reminder) */
  status: string;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  created_at: number;
  sent_at: number | null;
}
