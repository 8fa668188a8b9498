// Table types: Balances, the ledger, and money out (payouts, refunds, wallet refunds, sweeps of top-ups).
// Amounts are text (exact decimals); booleans are 0/1 integers; times are integer milliseconds
// since the epoch unless named *_at_s (seconds).

export interface BalancesTable {
  merchant_id: string;
  /** business | personal */
  kind: string;
  currency: string;
  amount: string;
  updated_at: number;
}

export interface LedgerEntriesTable {
  id: string;
  merchant_id: string;
  kind: string;
  currency: string;
  /** Signed decimal: credits positive, debits negative. */
  amount: string;
  balance_after: string;
  reason: string;
  ref_kind: string;
  ref_id: string;
  /** Idempotency key: the same movement is never booked twice. */
  key: string;
  created_at: number;
}

/** Outgoing payments (migration 003): merchant payouts, invoice refunds, blocked-wallet refunds and
 * forced refunds of top-ups to blocked static wallets. */
export interface PayoutsTable {
  id: string;
  merchant_id: string;
  /** payout | refund | wallet_refund | force_refund */
  kind: string;
  /** Unique per merchant (payouts only; null for the other kinds). */
  order_id: string | null;
  /** The invoice, static wallet or top-up a refund is about. */
  ref_id: string | null;
  /** Requested amount in `currency`. */
  amount: string;
  currency: string;
  network: string;
  address: string;
  memo: string | null;
  priority: string;
  is_subtract: number;
  /** What the address receives. */
  payer_currency: string;
  payer_amount: string;
  /** All fees, in `debit_currency`. */
  commission: string;
  /** Debited from the business balance in `debit_currency` ('0' when nothing is debited). */
  merchant_amount: string;
  debit_currency: string;
  /** JSON of the payout's `convert` object, or null. */
  convert: string | null;
  course_source: string | null;
  url_callback: string | null;
  /** process | check | paid | fail | cancel | system_fail */
  status: string;
  is_final: number;
  txid: string | null;
  confirmations: number;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}
