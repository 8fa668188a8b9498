// The dashboard's overview and invoices: list, search, CSV export, detail and the actions on one
// invoice (resend the webhook, refund, simulate a payment in test mode).
import * as z from 'zod/mini';
import { decimal, get, keysetPage, NoBody, post, text } from './route.ts';
import { Attempt } from './webhooks.ts';

export const ListedInvoice = z.object({
  id: z.string(),
  order_id: z.string(),
  amount: decimal,
  currency: z.string(),
  payer_amount: z.nullable(decimal),
  payer_currency: z.nullable(z.string()),
  network: z.nullable(z.string()),
  status: z.string(),
  payment_amount: z.nullable(decimal),
  created_at: z.number(),
});
export type ListedInvoice = z.infer<typeof ListedInvoice>;

/**
 * What happened to an invoice, as its timeline lists it: a code and its parameters (amounts as
 * decimal strings, statuses and networks as codes), which the dashboard words in the user's
 * language. `created`: amount, currency; `transfer_seen`, `transfer_confirmed`, `transfer_dropped`:
 * amount, currency, network; `webhook_queued`: status (the invoice status it carried, when it
 * carried one); `refund_requested`: amount, currency, status (the refund's payout status);
 * `expires`: none.
 */
export const TIMELINE_EVENTS = ['created', 'transfer_seen', 'transfer_confirmed', 'transfer_dropped', 'webhook_queued', 'refund_requested', 'expires'] as const;
export const TimelineEvent = z.object({ at: z.number(), code: z.enum(TIMELINE_EVENTS), params: z.record(z.string(), z.string()) });
export type TimelineEvent = z.infer<typeof TimelineEvent>;

/** Why a network is not offered (src/contracts/network-report.ts NotOfferedReason). */
export const NOT_OFFERED_REASONS = ['disabled', 'simulated in live mode', 'node not answering'] as const;

const Held = z.object({ currency: z.string(), amount: decimal, usd: z.nullable(decimal) });
export type Held = z.infer<typeof Held>;

export const DayPoint = z.object({
  /** YYYY-MM-DD (UTC). */
  day: z.string(),
  paid_usd: decimal,
  paid: z.number(),
  created: z.number(),
});
export type DayPoint = z.infer<typeof DayPoint>;

export const Overview = z.object({
  balances: z.object({ business: z.array(Held), personal: z.array(Held), total_usd: decimal }),
  days: z.array(DayPoint),
  latest: z.array(ListedInvoice),
  /** Networks whose node is faulty now: their payments are found once it recovers. */
  delayed_networks: z.array(z.string()),
});
export type Overview = z.infer<typeof Overview>;

/** What the filters offer: every network of the registry and every currency on them. */
export const Choices = z.object({
  networks: z.array(z.object({ code: z.string(), name: z.string() })),
  currencies: z.array(z.string()),
});
export type Choices = z.infer<typeof Choices>;

const maybeText = z.nullable(z.string());

export const InvoiceDetail = z.object({
  /** The invoice as the merchant API presents it, with what only the dashboard shows. */
  invoice: z.looseObject({
    uuid: z.string(),
    order_id: z.string(),
    status: z.string(),
    payer_page: z.string(),
    currency: z.string(),
    amount: decimal,
    payer_amount: z.nullable(decimal),
    payer_currency: maybeText,
    payment_amount: z.nullable(decimal),
    merchant_amount: z.nullable(decimal),
    network: maybeText,
    address: maybeText,
    url_callback: maybeText,
    comments: maybeText,
    additional_data: maybeText,
    exchange_rate: z.nullable(decimal),
    rate_source: maybeText,
    created_ms: z.number(),
  }),
  timeline: z.array(TimelineEvent),
  transfers: z.array(
    z.object({
      network: z.string(),
      txid: z.string(),
      idx: z.number(),
      currency: z.string(),
      amount: decimal,
      from_address: maybeText,
      confirmations: z.number(),
      confirmations_needed: z.nullable(z.number()),
      status: z.string(),
      seen_at: z.number(),
      explorer: maybeText,
    }),
  ),
  webhooks: z.array(
    z.object({
      id: z.string(),
      kind: z.string(),
      url: z.string(),
      status: z.string(),
      body: z.string(),
      created_at: z.number(),
      delivered_at: z.nullable(z.number()),
      next_attempt_at: z.nullable(z.number()),
      attempts: z.array(Attempt),
    }),
  ),
  refunds: z.array(
    z.object({
      id: z.string(),
      amount: decimal,
      currency: z.string(),
      network: z.string(),
      address: z.string(),
      status: z.string(),
      txid: maybeText,
      created_at: z.number(),
    }),
  ),
  rate_quotes: z.array(z.object({ source: z.string(), price: decimal, received_at: z.number(), used: z.boolean() })),
  can: z.object({ resend: z.boolean(), refund: z.boolean(), simulate: z.boolean() }),
  /** Why the open invoice cannot be paid (its network is not offered, and the reason), or null. */
  unavailable: z.nullable(z.object({ network: z.string(), reason: z.enum(NOT_OFFERED_REASONS) })),
  /** While the payer has not chosen: the currencies and networks the simulate action may choose. */
  choices: z.array(z.object({ currency: z.string(), network: z.string(), label: z.string() })),
});
export type InvoiceDetail = z.infer<typeof InvoiceDetail>;

export const SIMULATE_MODES = ['full', 'partial', 'over'] as const;

export const invoiceApi = {
  overview: get('/overview', Overview),
  choices: get('/choices', Choices),
  invoices: get('/invoices', keysetPage(ListedInvoice), { query: ['q', 'status', 'currency', 'network', 'from', 'to', 'after'] }),
  /** A download (text/csv), linked to rather than fetched. */
  csv: get('/invoices.csv', null, { query: ['q', 'status', 'currency', 'network', 'from', 'to'] }),
  invoice: get('/invoices/:id', InvoiceDetail),
  resend: post('/invoices/:id/resend', 'manage', NoBody, z.object({ queued: z.boolean() })),
  refund: post('/invoices/:id/refund', 'manage', z.object({ address: text, amount: text, is_subtract: z.optional(z.boolean()) }), z.object({ requested: z.boolean() })),
  simulate: post(
    '/invoices/:id/simulate',
    'manage',
    z.object({ mode: z.optional(z.string()), currency: text, network: text }),
    z.object({ txid: z.string(), amount: decimal, currency: z.string(), network: z.string(), address: z.string(), confirmed: z.boolean() }),
  ),
} as const;
