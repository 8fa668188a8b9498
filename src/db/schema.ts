// Table types. Amounts are text (exact decimals); booleans are 0/1 integers on both databases;
// times are integer milliseconds since the epoch unless named *_at_s (seconds).
import type { Generated } from 'kysely';

export interface MerchantsTable {
  id: string;
  name: string;
  payment_key: string;
  payout_key: string;
  is_blocked: number;
  created_at: number;
}

export interface HdCountersTable {
  key: string;
  next_index: number;
}

export interface InvoicesTable {
  id: string;
  merchant_id: string;
  order_id: string;
  amount: string;
  currency: string;
  network: string | null;
  payer_currency: string | null;
  payer_amount: string | null;
  exchange_rate: string | null;
  rate_source: string | null;
  discount_percent: number | null;
  discount: string | null;
  commission: string | null;
  commission_percent: string | null;
  merchant_amount: string | null;
  payment_amount: string | null;
  payment_amount_usd: string | null;
  address: string | null;
  address_path: string | null;
  from_address: string | null;
  txid: string | null;
  status: string;
  is_final: number;
  url_return: string | null;
  url_success: string | null;
  url_callback: string | null;
  is_payment_multiple: number;
  lifetime: number;
  to_currency: string | null;
  subtract: number;
  accuracy_payment_percent: string;
  additional_data: string | null;
  currencies: string | null;
  except_currencies: string | null;
  course_source: string | null;
  from_referral_code: string | null;
  payer_email: string | null;
  theme: string | null;
  comments: string | null;
  expired_at: number;
  created_at: number;
  updated_at: number;
  version: number;
  credited: string;
  resend_count: number;
}

/** Every address the gateway ever handed out, so none is reused and each can be recovered. */
export interface AddressesTable {
  address: string;
  network: string;
  path: string;
  owner_kind: string;
  owner_id: string;
  created_at: number;
}

export interface ChainTransfersTable {
  network: string;
  txid: string;
  idx: number;
  currency: string;
  address: string;
  from_address: string | null;
  amount: string;
  block_height: number | null;
  block_hash: string | null;
  confirmations: number;
  /** seen | confirmed | dropped */
  status: string;
  owner_kind: string;
  owner_id: string;
  seen_at: number;
  confirmed_at: number | null;
  updated_at: number;
}

export interface ChainCursorsTable {
  network: string;
  cursor: string;
  updated_at: number;
}

export interface SimTransactionsTable {
  network: string;
  txid: string;
  idx: number;
  from_address: string | null;
  to_address: string;
  currency: string;
  amount: string;
  block_height: number | null;
  confirmations: number;
  /** pending | mined | dropped | failed */
  status: string;
  /** in (a payment to us) | out (a payout we sent) */
  direction: string;
  rev: number;
  created_at: number;
}

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

export interface WebhooksTable {
  id: string;
  merchant_id: string;
  /** payment | wallet | payout */
  kind: string;
  ref_id: string;
  url: string;
  /** The exact body delivered, `sign` included. */
  body: string;
  /** pending | delivered | failed */
  status: string;
  attempts: number;
  next_attempt_at: number;
  allow_private: number;
  created_at: number;
  delivered_at: number | null;
  last_status: number | null;
  last_error: string | null;
}

export interface WebhookAttemptsTable {
  id: string;
  webhook_id: string;
  at: number;
  http_status: number | null;
  latency_ms: number;
  error: string | null;
}

export interface DB {
  merchants: MerchantsTable;
  hd_counters: HdCountersTable;
  invoices: InvoicesTable;
  addresses: AddressesTable;
  chain_transfers: ChainTransfersTable;
  chain_cursors: ChainCursorsTable;
  sim_transactions: SimTransactionsTable;
  balances: BalancesTable;
  ledger_entries: LedgerEntriesTable;
  webhooks: WebhooksTable;
  webhook_attempts: WebhookAttemptsTable;
}

export type { Generated };
