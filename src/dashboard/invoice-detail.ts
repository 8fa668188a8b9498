// One invoice as the dashboard shows it: what the payer was asked and paid, the quotes its price
// was made from, a timeline of what happened, the chain transfers with explorer links, every
// webhook with its attempts and exact body, and the refunds made of it.
import type { Ctx } from '../context.ts';
import { explorerTxUrl } from '../chain/explorer.ts';
import { payerChoices } from '../invoices/payer.ts';
import type { Merchant } from '../merchants/store.ts';
import { NotFoundError } from '../errors.ts';
import { presentInvoice, presentOptions, PRESENTED_COLUMNS } from '../invoices/invoice-object.ts';
import { MAX_RESENDS, RESENDABLE_STATUSES } from '../webhooks/resend.ts';
import type { SourceQuote } from '../rates/service.ts';
import type { TimelineEvent } from '../contracts/dashboard/invoices.ts';

export type { TimelineEvent };

function bodyStatus(body: string): string | null {
  try {
    const parsed = JSON.parse(body) as { status?: unknown };
    return typeof parsed.status === 'string' ? parsed.status : null;
  } catch {
    return null;
  }
}

/** The stored quotes the price was made from; empty for an invoice priced before they were kept. */
function rateQuotes(text: string | null): SourceQuote[] {
  if (!text) return [];
  try {
    const parsed = JSON.parse(text) as unknown;
    return Array.isArray(parsed) ? (parsed as SourceQuote[]) : [];
  } catch {
    return [];
  }
}

export async function invoiceDetail(ctx: Ctx, merchant: Merchant, id: string) {
  const db = ctx.storage.db;
  const row = await db
    .selectFrom('invoices')
    .select([...PRESENTED_COLUMNS, 'url_callback', 'url_return', 'url_success', 'resend_count', 'lifetime', 'payer_email', 'exchange_rate', 'rate_source', 'rate_quotes'])
    .where('merchant_id', '=', merchant.id)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw new NotFoundError('Invoice not found');
  const simulate = ctx.chains.simulator && row.is_final !== 1;
  const needed = row.network ? (ctx.registry.network(row.network)?.confirmations ?? null) : null;
  const transfers = (
    await db.selectFrom('chain_transfers').selectAll().where('owner_kind', '=', 'invoice').where('owner_id', '=', id).orderBy('seen_at').execute()
  ).map((t) => ({
    network: t.network,
    txid: t.txid,
    idx: t.idx,
    currency: t.currency,
    amount: t.amount,
    from_address: t.from_address,
    confirmations: t.confirmations,
    confirmations_needed: needed,
    status: t.status,
    seen_at: t.seen_at,
    confirmed_at: t.confirmed_at,
    explorer: explorerTxUrl(ctx, t.network, t.txid),
  }));
  const hooks = await db.selectFrom('webhooks').selectAll().where('ref_id', '=', id).where('merchant_id', '=', merchant.id).orderBy('created_at').orderBy('id').execute();
  const attempts = hooks.length
    ? await db.selectFrom('webhook_attempts').selectAll().where('webhook_id', 'in', hooks.map((h) => h.id)).orderBy('at').execute()
    : [];
  const webhooks = hooks.map((h) => ({
    id: h.id,
    kind: h.kind,
    url: h.url,
    status: h.status,
    body: h.body,
    created_at: h.created_at,
    delivered_at: h.delivered_at,
    next_attempt_at: h.status === 'pending' ? h.next_attempt_at : null,
    attempts: attempts.filter((a) => a.webhook_id === h.id).map((a) => ({ at: a.at, http_status: a.http_status, latency_ms: a.latency_ms, error: a.error, answer: a.answer ?? null })),
  }));
  const refunds = await db
    .selectFrom('payouts')
    .select(['id', 'amount', 'currency', 'network', 'address', 'status', 'txid', 'created_at'])
    .where('merchant_id', '=', merchant.id)
    .where('kind', '=', 'refund')
    .where('ref_id', '=', id)
    .orderBy('created_at')
    .execute();

  // Each event is a code with its parameters (amounts as decimal strings, codes as codes): the
  // dashboard words it in the user's language (src/dashboard-ui/timeline.tsx).
  const timeline: TimelineEvent[] = [{ at: row.created_at, code: 'created', params: { amount: row.amount, currency: row.currency } }];
  for (const t of transfers) {
    const params = { amount: t.amount, currency: t.currency, network: t.network };
    timeline.push({ at: t.seen_at, code: 'transfer_seen', params });
    if (t.confirmed_at) timeline.push({ at: t.confirmed_at, code: 'transfer_confirmed', params });
    if (t.status === 'dropped') timeline.push({ at: t.seen_at, code: 'transfer_dropped', params });
  }
  for (const h of webhooks) {
    const status = bodyStatus(h.body);
    timeline.push({ at: h.created_at, code: 'webhook_queued', params: status ? { status } : {} });
  }
  for (const r of refunds) timeline.push({ at: r.created_at, code: 'refund_requested', params: { amount: r.amount, currency: r.currency, status: r.status } });
  if (!row.is_final) timeline.push({ at: Number(row.expired_at) * 1000, code: 'expires', params: {} });
  timeline.sort((a, b) => a.at - b.at);

  // An open invoice on a network that is not offered any more: the payer page shows no address.
  const why = row.is_final !== 1 && row.network ? ctx.chains.whyNotOffered(row.network) : null;
  return {
    unavailable: why && row.network ? { network: row.network, reason: why } : null,
    invoice: {
      ...presentInvoice(row, presentOptions(ctx)),
      url_callback: row.url_callback,
      url_return: row.url_return,
      url_success: row.url_success,
      payer_email: row.payer_email,
      exchange_rate: row.exchange_rate,
      rate_source: row.rate_source,
      resend_count: row.resend_count,
      created_ms: row.created_at,
      payer_page: `${ctx.config.publicUrl}/pay/${row.id}`,
    },
    rate_quotes: rateQuotes(row.rate_quotes),
    timeline,
    transfers,
    webhooks,
    refunds,
    can: {
      resend: Boolean(row.url_callback) && RESENDABLE_STATUSES.has(row.status) && row.resend_count < MAX_RESENDS,
      refund: row.is_final === 1 && ['paid', 'paid_over', 'refund_fail', 'refund_paid'].includes(row.status),
      simulate,
    },
    /** What the simulate action may choose for the payer while the invoice has no currency. */
    choices: simulate && !row.address ? (await payerChoices(ctx, row.id)).filter((c) => ctx.chains.isSimulated(c.network)) : [],
  };
}
