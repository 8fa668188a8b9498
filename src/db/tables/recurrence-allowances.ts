// Automatic renewals on EVM networks (migrations 028 and 030, src/recurrences/pulls.ts). Times are epoch
// milliseconds; amounts are decimal text.

export interface RecurrenceAllowancesTable {
  recurrence_id: string;
  network: string;
  currency: string;
  token: string;
  collector: string;
  payer_address: string;
  cap: string;
  /** The amount per period the payer approved (migration 030): no pull takes more. Null only for
   * a row older than the column whose recurrence is gone. */
  amount_per_period: string | null;
  approve_txid: string | null;
  /** active | revoked */
  status: string;
  created_at: number;
  updated_at: number;
}

export interface RecurrencePullsTable {
  id: string;
  recurrence_id: string;
  period: number;
  invoice_id: string;
  network: string;
  currency: string;
  from_address: string;
  to_address: string;
  amount: string;
  txid: string | null;
  /** planned | sent | confirmed | failed | skipped */
  status: string;
  error: string | null;
  created_at: number;
  updated_at: number;
}
