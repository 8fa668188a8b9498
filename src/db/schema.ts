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

/** The merchant's public profile (migration 009); every column is shown to payers. */
export interface MerchantProfilesTable {
  merchant_id: string;
  display_name: string | null;
  /** #rrggbb as the merchant chose it; the page adjusts it per theme for contrast. */
  accent: string | null;
  /** 'dark' | 'light' | 'auto' */
  theme: string;
  /** Base64 of the logo's bytes (PNG, JPEG or WebP, at most 256 KB). */
  logo: string | null;
  logo_type: string | null;
  logo_sha256: string | null;
  updated_at: number;
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

export interface AddressPoolTable {
  network: string;
  source: string;
  idx: number;
  address: string;
  path: string;
  qr: string;
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

/** Which kind of record holds a merchant's order_id (one of an invoice or a static wallet). */
export interface OrderIdsTable {
  merchant_id: string;
  order_id: string;
  owner_kind: string;
}

export interface ChainScansTable {
  network: string;
  scanned_at: number;
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
  /** The start of the receiver's answer (migration 010; absent on rows written before it). */
  answer?: string | null;
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

/** Static wallets (migration 003): a standing deposit address per merchant order_id. */
export interface StaticWalletsTable {
  id: string;
  merchant_id: string;
  order_id: string;
  currency: string;
  network: string;
  address: string;
  address_path: string;
  url_callback: string | null;
  from_referral_code: string | null;
  /** active | blocked | in_active */
  status: string;
  is_force_refund: number;
  /** 1 once the creation fee has been charged (with the first top-up). */
  fee_charged: number;
  /** null | process | paid | fail: the one refund of blocked funds. */
  refund_status: string | null;
  refund_id: string | null;
  blocked_at: number | null;
  created_at: number;
  updated_at: number;
}

/** Each confirmed transfer into a static wallet and what became of it (migration 003). */
export interface WalletTopupsTable {
  id: string;
  wallet_id: string;
  merchant_id: string;
  network: string;
  txid: string;
  idx: number;
  currency: string;
  amount: string;
  from_address: string | null;
  /** credited | blocked | force_refund | refunded */
  outcome: string;
  commission: string;
  creation_fee: string;
  merchant_amount: string;
  payment_amount_usd: string | null;
  /** The forced refund of this top-up. */
  refund_id: string | null;
  /** The blocked-wallet refund that includes this top-up. */
  wallet_refund_id: string | null;
  created_at: number;
  updated_at: number;
}

/** Operator overrides of a merchant's business/personal wallet status (absent: active). */
export interface MerchantWalletsTable {
  merchant_id: string;
  /** business | personal */
  kind: string;
  currency: string;
  /** active | in_active */
  status: string;
  updated_at: number;
}

/** The last thing a driver said about each transaction we sent (so none is lost to a race). */
export interface OutgoingEventsTable {
  network: string;
  txid: string;
  /** confirmed | failed */
  status: string;
  confirmations: number;
  updated_at: number;
}

/** Dashboard users (migration 010). `merchant_id` is null for an instance admin. */
export interface DashboardUsersTable {
  id: string;
  merchant_id: string | null;
  /** Lower-cased. */
  email: string;
  /** owner | viewer | admin */
  role: string;
  /** scrypt$N$r$p$salt$hash, or null until the user has set a password. */
  password_hash: string | null;
  disabled: number;
  created_at: number;
  updated_at: number;
}

/** One-time set-password links (migration 010); only the SHA-256 of the token is stored. */
export interface DashboardLinksTable {
  token_hash: string;
  user_id: string;
  expires_at: number;
  used_at: number | null;
  created_at: number;
}

/** Dashboard sessions (migration 010); only the SHA-256 of the cookie's token is stored. */
export interface DashboardSessionsTable {
  token_hash: string;
  user_id: string;
  /** The CSRF token the page sends back in a header on every state-changing request. */
  csrf: string;
  created_at: number;
  seen_at: number;
  /** Absolute expiry; the idle expiry is measured from `seen_at`. */
  expires_at: number;
  ip: string | null;
}

/** Failed sign-ins per account ("account:<email>") and per address ("ip:<addr>") in a window. */
export interface DashboardLoginThrottleTable {
  key: string;
  failures: number;
  window_start: number;
}

/** What dashboard users did that moves money or changes settings (migration 010). */
export interface DashboardAuditTable {
  id: string;
  merchant_id: string | null;
  user_id: string | null;
  email: string;
  action: string;
  target: string | null;
  /** JSON. */
  detail: string | null;
  ip: string | null;
  created_at: number;
}

/** An incoming transfer set aside for the operator (it could not be processed); the scan went on. */
export interface SetAsideTransfersTable {
  network: string;
  txid: string;
  idx: number;
  currency: string;
  address: string;
  /** As the chain reported it, cut to 100 characters. */
  amount: string;
  reason: string;
  created_at: number;
}

export interface DB {
  merchants: MerchantsTable;
  merchant_profiles: MerchantProfilesTable;
  hd_counters: HdCountersTable;
  invoices: InvoicesTable;
  addresses: AddressesTable;
  address_pool: AddressPoolTable;
  chain_transfers: ChainTransfersTable;
  chain_cursors: ChainCursorsTable;
  chain_scans: ChainScansTable;
  order_ids: OrderIdsTable;
  sim_transactions: SimTransactionsTable;
  balances: BalancesTable;
  ledger_entries: LedgerEntriesTable;
  webhooks: WebhooksTable;
  webhook_attempts: WebhookAttemptsTable;
  payouts: PayoutsTable;
  static_wallets: StaticWalletsTable;
  wallet_topups: WalletTopupsTable;
  merchant_wallets: MerchantWalletsTable;
  outgoing_events: OutgoingEventsTable;
  set_aside_transfers: SetAsideTransfersTable;
  dashboard_users: DashboardUsersTable;
  dashboard_links: DashboardLinksTable;
  dashboard_sessions: DashboardSessionsTable;
  dashboard_login_throttle: DashboardLoginThrottleTable;
  dashboard_audit: DashboardAuditTable;
}

export type { Generated };
