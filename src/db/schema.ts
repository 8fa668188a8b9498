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

export interface DB {
  merchants: MerchantsTable;
  hd_counters: HdCountersTable;
  invoices: InvoicesTable;
  addresses: AddressesTable;
}

export type { Generated };
