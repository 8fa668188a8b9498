// Typings of the Satchel widget (`/widget.js`), served beside it as `/widget.d.ts`.
// Copy this file into a TypeScript shop (e.g. `types/satchel.d.ts`) to type `window.Satchel`.

export type SatchelTheme = 'light' | 'dark' | 'auto';

export type SatchelMode = 'modal' | 'inline';

export type SatchelInvoiceStatus =
  | 'process'
  | 'check'
  | 'paid'
  | 'paid_over'
  | 'fail'
  | 'wrong_amount'
  | 'cancel'
  | 'system_fail'
  | 'refund_process'
  | 'refund_fail'
  | 'refund_paid'
  | 'locked';

/** Who is paid: the merchant's public profile (set with `satchel merchant update` or the dashboard). */
export interface SatchelMerchant {
  display_name: string | null;
  /** A path on the gateway's origin, e.g. `/logos/{sha256}.png`. */
  logo_url: string | null;
  /** `#rrggbb` as the merchant chose it. */
  accent: string | null;
  /** The merchant's default theme; null for "auto". */
  theme: 'dark' | 'light' | null;
  /** The page's default language (when the link has no `?lang=`); null: the payer's browser decides. */
  language: 'en' | 'es' | 'pt' | 'ru' | 'tr' | 'zh' | 'ar' | 'fa' | 'de' | 'fr' | 'it' | 'nl' | 'pl' | 'uk' | 'ja' | 'ko' | 'id' | 'vi' | 'hi' | 'th' | null;
}

/** What the payment page shows of an invoice: its public fields only. Amounts are decimal strings. */
export interface SatchelInvoice {
  kind: 'invoice';
  uuid: string;
  order_id: string;
  status: SatchelInvoiceStatus;
  is_final: boolean;
  amount: string;
  currency: string;
  currency_is_fiat: boolean;
  payer_currency: string | null;
  network: string | null;
  network_name: string | null;
  payer_amount: string | null;
  payment_amount: string | null;
  remaining: string | null;
  address: string | null;
  /** The comment the payer must send with the payment where the network needs one (TON); else null. */
  payment_comment: string | null;
  /** The payment must be made with `wallet_uri` or the QR code, which carry a reference no payer can type (Solana Pay); a payment typed in by hand cannot be matched. */
  link_required: boolean;
  qr_content: string | null;
  wallet_uri: string | null;
  confirmations: { current: number; required: number } | null;
  /** The payer may pay in several parts: an underpayment leaves the invoice open. */
  is_payment_multiple: boolean;
  /** The latest transaction seen for this invoice, once there is one. */
  txid: string | null;
  /** That transaction on the network's explorer; null on simulated (test) networks. */
  explorer_url: string | null;
  /** Unix seconds. */
  expired_at: number;
  /** Unix seconds when it was settled (`paid`, `paid_over`); null otherwise. */
  paid_at: number | null;
  /** Unix milliseconds when the gateway answered. */
  server_time: number;
  url_return: string | null;
  url_success: string | null;
  theme: 'light' | 'dark' | null;
  merchant: SatchelMerchant;
  test_mode: boolean;
  /** What a browser wallet needs to pay (EVM networks, while something is due); null otherwise. */
  evm: {
    chain_id: number;
    chain_name: string;
    rpc_urls: string[];
    explorer_url: string | null;
    native: { name: string; symbol: string; decimals: number };
    /** The ERC-20 contract; null when the payer pays in the chain's native coin. */
    contract: string | null;
    decimals: number;
  } | null;
  options: Array<{ currency: string; name: string; networks: Array<{ network: string; network_name: string; amount: string }> }> | null;
  /** `network`: the open invoice's network is not offered any more; no address is shown. */
  unavailable: 'network' | null;
}

/** A static wallet's public fields (when the widget shows `/pay/wallet/{uuid}`). */
export interface SatchelWallet {
  kind: 'wallet';
  uuid: string;
  status: 'active' | 'blocked' | 'in_active';
  currency: string;
  network: string;
  network_name: string;
  /** Null when `unavailable`. */
  address: string | null;
  /** The comment the payer must send with the payment where the network needs one (TON); else null. */
  payment_comment: string | null;
  /** The payment must be made with `wallet_uri` or the QR code, which carry a reference no payer can type (Solana Pay); a payment typed in by hand cannot be matched. */
  link_required: boolean;
  qr_content: string | null;
  wallet_uri: string | null;
  merchant: SatchelMerchant;
  test_mode: boolean;
  /** `network`: the wallet's network is not offered any more; no address is shown. */
  unavailable: 'network' | null;
  server_time: number;
}

export interface SatchelEventPayloads {
  /** The page has loaded the invoice (null when it could not: an `error` follows). */
  loaded: { kind: 'invoice' | 'wallet'; uuid: string } | null;
  /** The status changed (also sent once after `loaded` with the first status). */
  status: SatchelInvoice | SatchelWallet;
  /** The invoice is paid (`paid` or `paid_over`). Confirm it on your server before shipping. */
  paid: SatchelInvoice;
  /** The invoice expired unpaid (status `cancel`). */
  expired: SatchelInvoice;
  /** The modal was closed, or the inline widget unmounted. */
  closed: { reason: 'user' | 'api' };
  /** Nothing can be shown: `not_found`, `unreachable`, `timeout` (the page did not load in 20 s), `bad_invoice`. */
  error: { code: string; message: string };
}

export type SatchelEventType = keyof SatchelEventPayloads;

/** Passed to `onEvent`, and the `detail` of the DOM CustomEvent `satchel:<type>`. */
export type SatchelEvent = {
  [T in SatchelEventType]: {
    type: T;
    /** The widget instance that sent it (one per modal or inline frame). */
    instance: string;
    /** The invoice (or static wallet) uuid. */
    invoice: string;
    mode: SatchelMode;
    payload: SatchelEventPayloads[T];
  };
}[SatchelEventType];

export interface SatchelOptions {
  /** `auto` (default): the invoice's theme if it has one, else the payer's system preference. */
  theme?: SatchelTheme;
  /** Page language (`en`, `es`, `pt`, `ru`, `tr`, `zh`); default: the payer's browser languages. */
  lang?: string;
  /** Called for every event, before the DOM event is dispatched. */
  onEvent?: (event: SatchelEvent) => void;
  /** Accessible name of the iframe and the modal. Default `Payment`. */
  title?: string;
}

export interface SatchelHandle {
  readonly instance: string;
  readonly invoice: string;
  readonly mode: SatchelMode;
  /** Closes the modal (or unmounts the inline frame); sends `closed` with reason `api`. Idempotent. */
  close(): void;
  /** The same as close(). */
  unmount(): void;
}

export interface SatchelApi {
  readonly version: string;
  /** Opens the invoice (uuid or its `url`) in a modal. One modal at a time: a new one closes the old. */
  open(invoice: string, options?: SatchelOptions): SatchelHandle;
  /** Shows the invoice inside `element` (or the element a selector names), replacing its content until unmounted. */
  mount(element: Element | string, invoice: string, options?: SatchelOptions): SatchelHandle;
}

export type SatchelDomEventMap = {
  [T in SatchelEventType as `satchel:${T}`]: CustomEvent<Extract<SatchelEvent, { type: T }>>;
};

declare global {
  interface Window {
    Satchel?: SatchelApi;
  }
  interface HTMLElementEventMap extends SatchelDomEventMap {}
  interface DocumentEventMap extends SatchelDomEventMap {
    /** The loader has run: `window.Satchel` is ready. */
    'satchel:ready': Event;
  }
}
