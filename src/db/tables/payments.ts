// Table types: Money in: invoices, static wallets and their top-ups.
// Amounts are text (exact decimals); booleans are 0/1 integers; times are integer milliseconds
// since the epoch unless named *_at_s (seconds).

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
  /** JSON [{source, price, received_at, used}]: the quotes the price was made from. */
  rate_quotes: string | null;
  discount_percent: number | null;
  discount: string | null;
  commission: string | null;
  commission_percent: string | null;
  merchant_amount: string | null;
  payment_amount: string | null;
  payment_amount_usd: string | null;
  address: string | null;
  address_path: string | null;
  /** The comment the payer must send with the payment, where a network tells invoices apart by it
   * (`address` is then the merchant's account); null elsewhere (migration 024). */
  payment_comment: string | null;
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
  /** The recurrence whose period this invoice pays (migration 027), or null. */
  recurrence_id: string | null;
  /** Which period of it (0: the first). */
  recurrence_period: number | null;
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
  /** As on invoices: the comment every top-up must carry, or null (migration 024). */
  payment_comment: string | null;
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
