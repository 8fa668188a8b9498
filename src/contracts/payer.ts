// The payer API: what the hosted payment page reads and the server answers.
// Single source of truth for both sides, so it must stay free of DOM and Node APIs.
import * as z from 'zod/mini';
import { INVOICE_STATUSES, type InvoiceStatus } from './invoice-status.ts';
import { RECURRENCE_PERIODS, RECURRENCE_STATUSES } from './recurrence-status.ts';

export { INVOICE_STATUSES, type InvoiceStatus };

export const WALLET_STATUSES = ['active', 'blocked', 'in_active'] as const;
export type WalletStatus = (typeof WALLET_STATUSES)[number];

/** A decimal amount as a string, e.g. "15.00" or "0.00012345". Never a JS number. */
const decimal = z.string().check(z.regex(/^-?\d+(\.\d+)?$/));

export const PayerNetworkOption = z.object({
  network: z.string(),
  network_name: z.string(),
  amount: decimal,
});
export type PayerNetworkOption = z.infer<typeof PayerNetworkOption>;

export const PayerCurrencyOption = z.object({
  currency: z.string(),
  name: z.string(),
  networks: z.array(PayerNetworkOption),
});
export type PayerCurrencyOption = z.infer<typeof PayerCurrencyOption>;

/** The payment page's languages (src/page/i18n has one file per code). */
export const PAGE_LANGUAGES = ['en', 'es', 'pt', 'ru', 'tr', 'zh', 'ar', 'fa', 'de', 'fr', 'it', 'nl', 'pl', 'uk', 'ja', 'ko', 'id', 'vi', 'hi', 'th'] as const;
export type PageLanguage = (typeof PAGE_LANGUAGES)[number];

/** Who is paid: the merchant's public profile, and nothing else of the merchant. */
export const PayerMerchant = z.object({
  display_name: z.nullable(z.string()),
  /** A path on the gateway's origin (/logos/{sha256}.{png|jpg|webp}). */
  logo_url: z.nullable(z.string()),
  /** #rrggbb as the merchant chose it; the page adjusts it per theme for contrast. */
  accent: z.nullable(z.string().check(z.regex(/^#[0-9a-f]{6}$/))),
  /** The merchant's default theme; null for "auto" (the payer's system preference). */
  theme: z.nullable(z.enum(['dark', 'light'])),
  /** The merchant's default language for the page: used when the link has no ?lang=, before the browser's. */
  language: z.nullable(z.enum(PAGE_LANGUAGES)),
});
export type PayerMerchant = z.infer<typeof PayerMerchant>;

/**
 * What a browser wallet needs to pay an EVM invoice: the chain (to switch to it, or add it) and
 * the token's contract. Public data of the network; null on other families, on simulated networks
 * and once nothing is due.
 */
export const PayerEvm = z.object({
  chain_id: z.number(),
  chain_name: z.string(),
  /** Public JSON-RPC endpoints for `wallet_addEthereumChain`; empty when none is known. */
  rpc_urls: z.array(z.string()),
  explorer_url: z.nullable(z.string()),
  native: z.object({ name: z.string(), symbol: z.string(), decimals: z.number() }),
  /** The ERC-20 contract of the payer's currency; null when it is the chain's native coin. */
  contract: z.nullable(z.string().check(z.regex(/^0x[0-9a-fA-F]{40}$/))),
  /** Decimals of the payer's currency on this network (amounts go to the wallet in base units). */
  decimals: z.number(),
});
export type PayerEvm = z.infer<typeof PayerEvm>;

export const PayerInvoice = z.object({
  kind: z.literal('invoice'),
  uuid: z.string(),
  order_id: z.string(),
  status: z.enum(INVOICE_STATUSES),
  is_final: z.boolean(),
  amount: decimal,
  currency: z.string(),
  currency_is_fiat: z.boolean(),
  payer_currency: z.nullable(z.string()),
  network: z.nullable(z.string()),
  network_name: z.nullable(z.string()),
  payer_amount: z.nullable(decimal),
  payment_amount: z.nullable(decimal),
  remaining: z.nullable(decimal),
  address: z.nullable(z.string()),
  /**
   * The comment the payer must send with the payment, where the network tells payments apart by it
   * (the address is then the merchant's own account, shared by all its invoices); null elsewhere,
   * and whenever `address` is. `qr_content` and `wallet_uri` carry it.
   */
  payment_comment: z.nullable(z.string()),
  /**
   * The payment must be made with `wallet_uri` or the QR code (`qr_content`), which carry a
   * reference no payer can type (a Solana Pay reference key): a payment typed in by hand, address
   * and amount, cannot be matched. False elsewhere, and whenever `address` is null.
   */
  link_required: z.boolean(),
  qr_content: z.nullable(z.string()),
  wallet_uri: z.nullable(z.string()),
  confirmations: z.nullable(z.object({ current: z.number(), required: z.number() })),
  /** The payer may pay in several parts: an underpayment leaves the invoice open (partly paid). */
  is_payment_multiple: z.boolean(),
  /** The latest transaction seen for this invoice, once there is one. */
  txid: z.nullable(z.string()),
  /** That transaction on the network's public explorer; null on simulated (test) networks. */
  explorer_url: z.nullable(z.string()),
  /** Unix seconds. */
  expired_at: z.number(),
  /** Unix seconds when the invoice was settled (`paid`, `paid_over`); null otherwise. For the receipt. */
  paid_at: z.nullable(z.number()),
  /** Unix milliseconds at the moment the server answered. */
  server_time: z.number(),
  url_return: z.nullable(z.string()),
  url_success: z.nullable(z.string()),
  theme: z.nullable(z.enum(['dark', 'light'])),
  merchant: PayerMerchant,
  test_mode: z.boolean(),
  /** Set when a browser wallet can pay the amount still due (EVM networks). */
  evm: z.nullable(PayerEvm),
  /** Non-null only while the payer must still choose a currency and network. */
  options: z.nullable(z.array(PayerCurrencyOption)),
  /**
   * Why the open invoice cannot be paid, or null. `network`: its network is not offered any more
   * (switched off, or simulated and test mode has ended); no address is shown, since nothing
   * watches it.
   */
  unavailable: z.nullable(z.literal('network')),
});
export type PayerInvoice = z.infer<typeof PayerInvoice>;

export const PayerWallet = z.object({
  kind: z.literal('wallet'),
  uuid: z.string(),
  status: z.enum(WALLET_STATUSES),
  currency: z.string(),
  network: z.string(),
  network_name: z.string(),
  /** Null when `unavailable`. */
  address: z.nullable(z.string()),
  /**
   * The comment the payer must send with the payment, where the network tells payments apart by it
   * (the address is then the merchant's own account, shared by all its invoices); null elsewhere,
   * and whenever `address` is. `qr_content` and `wallet_uri` carry it.
   */
  payment_comment: z.nullable(z.string()),
  /**
   * The payment must be made with `wallet_uri` or the QR code (`qr_content`), which carry a
   * reference no payer can type (a Solana Pay reference key): a payment typed in by hand, address
   * and amount, cannot be matched. False elsewhere, and whenever `address` is null.
   */
  link_required: z.boolean(),
  qr_content: z.nullable(z.string()),
  wallet_uri: z.nullable(z.string()),
  merchant: PayerMerchant,
  test_mode: z.boolean(),
  /** `network`: the wallet's network is not offered any more (see PayerInvoice.unavailable). */
  unavailable: z.nullable(z.literal('network')),
  /** Unix milliseconds at the moment the server answered. */
  server_time: z.number(),
});
export type PayerWallet = z.infer<typeof PayerWallet>;

/** How the current renewal is being collected from the payer's approved allowance (docs/recurring.md). */
export const AUTO_PULL_STATUSES = ['pending', 'sent', 'confirmed'] as const;
export const PayerAutoPull = z.object({
  /** pending: the worker is about to pull it; sent: the pull is broadcast; confirmed: it is final on chain. */
  status: z.enum(AUTO_PULL_STATUSES),
  /** The pull's transaction once sent. */
  txid: z.nullable(z.string()),
  /** That transaction on the network's explorer, when the gateway shows one for it. */
  explorer_url: z.nullable(z.string()),
});
export type PayerAutoPull = z.infer<typeof PayerAutoPull>;

/**
 * A recurrence as its payer sees it (docs/recurring.md): what is subscribed to, the choice of
 * currency and network while it is open, and where it stands. Never the merchant's url_callback or
 * additional_data.
 */
export const PayerRecurrence = z.object({
  kind: z.literal('recurrence'),
  uuid: z.string(),
  name: z.string(),
  status: z.enum(RECURRENCE_STATUSES),
  /** The price of a full period, in `currency`. */
  amount: decimal,
  currency: z.string(),
  currency_is_fiat: z.boolean(),
  period: z.enum(RECURRENCE_PERIODS),
  /** The first period's lower price and its length in days; null without a discount. */
  discount_amount: z.nullable(decimal),
  discount_days: z.nullable(z.number()),
  /** Unix seconds: when the discounted first period ends (set once the subscription is active). */
  end_of_discount: z.nullable(z.number()),
  /** Set once chosen (or fixed by the merchant's `to_currency`, for the currency). */
  payer_currency: z.nullable(z.string()),
  network: z.nullable(z.string()),
  network_name: z.nullable(z.string()),
  /** A full period's price in `payer_currency`, as priced when the payer subscribed. */
  payer_amount: z.nullable(decimal),
  /** Unix seconds: the next period's start (`active`), or when the unpaid one began (`wait_payment`). */
  next_payment_at: z.nullable(z.number()),
  /** Unix seconds: the end of the grace period of the unpaid renewal (`wait_payment` only). */
  pay_before: z.nullable(z.number()),
  /** The current period's invoice (the payer pays it on its own page); null before subscribing. */
  invoice_uuid: z.nullable(z.string()),
  /** What the payer may choose from: only while `wait_accept` and no choice is made yet. */
  options: z.nullable(z.array(PayerCurrencyOption)),
  /** Whether the payer may cancel it now (`active` or `wait_payment`). */
  can_cancel: z.boolean(),
  /** Automatic renewals (an allowance the gateway pulls each period from) are offered for the chosen currency and network. */
  auto_renew: z.boolean(),
  /**
   * The renewal due (`wait_payment`) is being collected automatically: the page shows no invoice to
   * pay (paying it too would pay twice). Null otherwise, and when the pull fell back to the invoice.
   * A server without it reads as null.
   */
  auto_pull: z._default(z.nullable(PayerAutoPull), null),
  merchant: PayerMerchant,
  test_mode: z.boolean(),
  /** Unix milliseconds at the moment the server answered. */
  server_time: z.number(),
});
export type PayerRecurrence = z.infer<typeof PayerRecurrence>;

/** `GET/POST /api/pay/recurrence/{uuid}/allowance`: what an automatic-renewal approval grants (docs/recurring.md). */
export const PayerAllowance = z.object({
  network: z.string(),
  currency: z.string(),
  token: z.string().check(z.regex(/^0x[0-9a-fA-F]{40}$/)),
  collector: z.string().check(z.regex(/^0x[0-9a-fA-F]{40}$/)),
  period: z.enum(RECURRENCE_PERIODS),
  amount_per_period: decimal,
  periods: z.number(),
  cap: decimal,
  next_pull_at: z.nullable(z.string()),
  revoke: z.string(),
  /** The chain as a browser wallet needs it (the invoice's `evm`); null when none applies. */
  chain: z.nullable(PayerEvm),
  recorded: z.nullable(z.object({ address: z.string(), status: z.string(), cap: decimal })),
  /** The token's EIP-712 domain when it has EIP-2612 permit (sign a Permit instead of sending approve), else null. */
  permit: z.optional(z.nullable(z.object({ name: z.string(), version: z.string(), chainId: z.number(), verifyingContract: z.string() }))),
  /** After posting a permit not yet mined: the collector's permit() transaction (post again once it is mined). */
  permit_tx: z.optional(z.string()),
});
export type PayerAllowance = z.infer<typeof PayerAllowance>;
export const PayerAllowanceEnvelope = z.object({ state: z.literal(0), result: PayerAllowance });

export const PayerRecurrenceEnvelope = z.object({ state: z.literal(0), result: PayerRecurrence });

/** `email` (for reminders) and `lang` (theirs) are optional; a server that does not keep them ignores them. */
export const SubscribeRequest = z.object({
  currency: z.string(),
  network: z.string(),
  email: z.optional(z.string()),
  lang: z.optional(z.enum(PAGE_LANGUAGES)),
});
export type SubscribeRequest = z.infer<typeof SubscribeRequest>;

/** The subscribe answer: the recurrence as it now stands (a payer view subset) and the first period's invoice. */
export const SubscribeResponseEnvelope = z.object({
  state: z.literal(0),
  result: z.object({ recurrence: z.object({ uuid: z.string(), status: z.enum(RECURRENCE_STATUSES) }), invoice: PayerInvoice }),
});

/** Why the payer API refused to cancel a recurrence (the page words it in the payer's language). */
export const CANCEL_REFUSALS = ['already_cancelled', 'not_running'] as const;
export type CancelRefusal = (typeof CANCEL_REFUSALS)[number];

export const PayerInvoiceEnvelope = z.object({ state: z.literal(0), result: PayerInvoice });
export const PayerWalletEnvelope = z.object({ state: z.literal(0), result: PayerWallet });
/**
 * Why the payer API refused a payer's choice of currency and network: the page says it in the
 * payer's language (src/page/i18n), `message` says it in English for other clients.
 */
export const CHOOSE_REFUSALS = ['choice_missing', 'not_available', 'already_chosen', 'expired'] as const;
export type ChooseRefusal = (typeof CHOOSE_REFUSALS)[number];
/** A recurrence's subscribe refuses as a choice does, and `not_waiting` once it left `wait_accept` (subscribed and paid, or ended). */
export const SUBSCRIBE_REFUSALS = [...CHOOSE_REFUSALS, 'not_waiting'] as const;
export type SubscribeRefusal = (typeof SUBSCRIBE_REFUSALS)[number];

/** `code`: one of CHOOSE_REFUSALS when the refusal has one (a page that does not know it shows `message`). */
export const PayerErrorEnvelope = z.object({ state: z.literal(1), message: z.string(), code: z.optional(z.string()) });
export type PayerErrorEnvelope = z.infer<typeof PayerErrorEnvelope>;

export const ChooseRequest = z.object({ currency: z.string(), network: z.string() });
export type ChooseRequest = z.infer<typeof ChooseRequest>;

export const SIMULATE_MODES = ['full', 'partial', 'over'] as const;
export type SimulateMode = (typeof SIMULATE_MODES)[number];

export const SimulateInvoiceRequest = z.object({
  invoice: z.string(),
  mode: z.enum(SIMULATE_MODES),
});
export type SimulateInvoiceRequest = z.infer<typeof SimulateInvoiceRequest>;

export const SimulateWalletRequest = z.object({ wallet: z.string(), amount: decimal });
export type SimulateWalletRequest = z.infer<typeof SimulateWalletRequest>;

export const SimulateResponseEnvelope = z.object({
  state: z.literal(0),
  result: z.object({ txid: z.string() }),
});
export type SimulateResponseEnvelope = z.infer<typeof SimulateResponseEnvelope>;

/** The id of the `<script type="application/json">` in which the server embeds the first view. */
export const INITIAL_VIEW_ID = 'satchel-initial';

/** What that element holds: the payer API's answer with its ETag, or a 404. */
export const InitialView = z.union([
  z.object({ etag: z.nullable(z.string()), result: PayerInvoice }),
  z.object({ status: z.literal(404) }),
]);
export type InitialView = z.infer<typeof InitialView>;

/** Paths of the payer API, relative to the page's origin. */
export const payerApiPaths = {
  invoice: (uuid: string) => `/api/pay/${encodeURIComponent(uuid)}`,
  choose: (uuid: string) => `/api/pay/${encodeURIComponent(uuid)}/choose`,
  wallet: (uuid: string) => `/api/pay/wallet/${encodeURIComponent(uuid)}`,
  recurrence: (uuid: string) => `/api/pay/recurrence/${encodeURIComponent(uuid)}`,
  subscribe: (uuid: string) => `/api/pay/recurrence/${encodeURIComponent(uuid)}/subscribe`,
  cancelRecurrence: (uuid: string) => `/api/pay/recurrence/${encodeURIComponent(uuid)}/cancel`,
  allowance: (uuid: string) => `/api/pay/recurrence/${encodeURIComponent(uuid)}/allowance`,
  simulate: () => '/simulator/pay',
} as const;

/** The invoice was settled: paid in full or overpaid. */
export function isSuccessStatus(status: InvoiceStatus): boolean {
  return status === 'paid' || status === 'paid_over';
}
