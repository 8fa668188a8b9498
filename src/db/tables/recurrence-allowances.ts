// Automatic renewals on EVM networks (migration 028, src/recurrences/pulls.ts). Times are epoch
// milliseconds; amounts are decimal text.

export interface RecurrenceAllowancesTable {
  recurrence_id: string;
  network: string;
  currency: string;
  token: string;
  collector: string;
  payer_address: string;
  cap: string;
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
