// Table types: Merchants, their profiles, their order ids and their static-wallet settings.
// Amounts are text (exact decimals); booleans are 0/1 integers; times are integer milliseconds
// since the epoch unless named *_at_s (seconds).

export interface MerchantsTable {
  id: string;
  name: string;
  payment_key: string;
  payout_key: string;
  is_blocked: number;
  created_at: number;
  /** Used when an invoice or static wallet is created without its own (migration 012). */
  default_url_callback?: string | null;
  /** Used when an invoice is created without url_return / url_success (migration 012). */
  default_url_return?: string | null;
  default_url_success?: string | null;
  /** 'payout' | 'either': the keys that may sign /v1/payment/refund (migration 016). */
  refund_key?: string;
  /** 0/1: payer emails of subscriptions (migration 029); off by default. */
  payer_emails?: number;
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
  /** The payment page's default language (a code of PAGE_LANGUAGES); null: the payer's browser decides. */
  language: string | null;
  updated_at: number;
}

/** Which kind of record holds a merchant's order_id (one of an invoice or a static wallet). */
export interface OrderIdsTable {
  merchant_id: string;
  order_id: string;
  owner_kind: string;
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

/** A merchant's receiving material for one watch-only network; the current one has no replaced_at. */
export interface MerchantCustodyTable {
  id: string;
  merchant_id: string;
  network: string;
  /** `extended-key`, `descriptor` or `address`. */
  kind: string;
  /** Canonical public material deposit addresses derive from. */
  material: string;
  /** What the merchant gave, as shown back (public: private keys are refused before storing). */
  summary: string;
  /** Who set it: `cli`, or `dashboard:<user id>`. */
  actor: string;
  created_at: number;
  replaced_at: number | null;
}
