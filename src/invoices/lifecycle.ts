// The invoice state machine (docs/lifecycle.md), recomputed from what the chain shows. Every move
// happens in one transaction with its ledger credit and its webhook, so a crash loses nothing and a
// transfer seen twice is credited once.
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Ctx } from '../context.ts';
import type { ChainTransfersTable, DB } from '../db/schema.ts';
import { statement, statementsByColumns } from '../db/statement.ts';
import { Decimal } from '../money/decimal.ts';
import { post } from '../ledger/index.ts';
import { enqueueWebhook } from '../webhooks/outbox.ts';
import { paymentWebhookFields, signedBody } from '../webhooks/payload.ts';
import type { InvoiceRow } from './invoice-object.ts';
import { FINAL_STATUSES } from '../contracts/merchant-api/webhooks.ts';
import { creditFor } from '../pricing/invoice-price.ts';
import { commissionPercent, rateIfQuick } from '../pricing/rates.ts';

/** Statuses a payment or the clock can move an invoice out of. Refunds, locks and system
 * failures belong to an operator or to the refund flow. */
const RECOMPUTABLE = new Set(['process', 'check', 'paid', 'paid_over', 'wrong_amount', 'cancel', 'fail']);
/** Statuses that keep their place (a refund is under way or done) while late money is still credited. */
const CREDIT_ONLY = new Set(['refund_process', 'refund_paid', 'refund_fail']);

export interface Tally {
  confirmed: Decimal;
  pending: Decimal;
  pendingOnTime: number;
  lateDrop: boolean;
  last: { txid: string; from: string | null } | null;
  confirmations: { current: number; required: number } | null;
}

const transfersOf = statement<{ id: string }, Selectable<ChainTransfersTable>>((db, p) =>
  db.selectFrom('chain_transfers').selectAll().where('owner_kind', '=', 'invoice').where('owner_id', '=', p.id).orderBy('seen_at'),
);

export async function tally(trx: Kysely<DB> | Transaction<DB>, inv: InvoiceRow, required: number): Promise<Tally> {
  return tallyOf((await transfersOf(trx, { id: inv.id })).rows, inv, required);
}

/** The tally of an invoice's transfers (`rows`: every transfer to it, oldest first). */
function tallyOf(rows: ReadonlyArray<Selectable<ChainTransfersTable>>, inv: InvoiceRow, required: number): Tally {
  const expiresMs = Number(inv.expired_at) * 1000;
  let confirmed = Decimal.ZERO;
  let pending = Decimal.ZERO;
  let pendingOnTime = 0;
  let lateDrop = false;
  let last: Tally['last'] = null;
  let current: number | null = null;
  for (const t of rows) {
    if (inv.payer_currency && t.currency.toUpperCase() !== inv.payer_currency.toUpperCase()) continue;
    if (t.status === 'dropped') {
      if (Number(t.updated_at) >= expiresMs) lateDrop = true;
      continue;
    }
    last = { txid: t.txid, from: t.from_address };
    if (t.status === 'confirmed') confirmed = confirmed.add(t.amount);
    else {
      pending = pending.add(t.amount);
      if (Number(t.seen_at) < expiresMs) pendingOnTime++;
      current = current === null ? t.confirmations : Math.min(current, t.confirmations);
    }
  }
  return { confirmed, pending, pendingOnTime, lateDrop, last, confirmations: current === null ? null : { current, required } };
}

/** The status docs/lifecycle.md gives an invoice for what it received, at `now`. */
export function nextStatus(inv: InvoiceRow, t: Tally, now: number): string {
  const expired = now >= Number(inv.expired_at) * 1000;
  if (!inv.payer_amount) return expired ? 'cancel' : 'process';
  const required = Decimal.parse(inv.payer_amount);
  const threshold = required.sub(required.percent(inv.accuracy_payment_percent));
  const hasPending = t.pending.gt('0');
  if (t.confirmed.gt('0') && t.confirmed.gte(threshold)) return t.confirmed.gt(required) ? 'paid_over' : 'paid';
  if (t.confirmed.gt('0') && inv.is_payment_multiple === 0) return 'wrong_amount';
  // A payment seen before expiry but confirmed after it still counts as on time.
  if (!expired || t.pendingOnTime > 0) return hasPending ? 'check' : 'process';
  if (t.confirmed.gt('0')) return 'wrong_amount';
  return t.lateDrop ? 'fail' : 'cancel';
}

/** The invoice columns a reconciliation may set (`patch`), then its id. */
const updateInvoice = statementsByColumns<Partial<InvoiceRow> & { id: string }>((db, p, columns) => {
  const values = p as Record<string, unknown>;
  return db
    .updateTable('invoices')
    .set(Object.fromEntries(columns.map((c) => [c, values[c]])) as Partial<InvoiceRow>)
    .where('id', '=', p.id);
});

const paymentKeyOf = statement<{ id: string }, { payment_key: string }>((db, p) => db.selectFrom('merchants').select('payment_key').where('id', '=', p.id));

const lockInvoice = statement<{ id: string }, InvoiceRow>((db, p, dialect) => {
  const q = db.selectFrom('invoices').selectAll().where('id', '=', p.id);
  return dialect.forUpdate(q);
});

/**
 * Recomputes one invoice inside `trx`: status, amounts, credit and webhook. Returns the updated row.
 * Callers hold no lock; this takes the invoice row's lock first.
 */
export async function reconcileInvoice(ctx: Ctx, trx: Transaction<DB>, invoiceId: string): Promise<InvoiceRow | null> {
  const inv = (await lockInvoice(trx, { id: invoiceId })).rows[0];
  if (!inv || !(RECOMPUTABLE.has(inv.status) || CREDIT_ONLY.has(inv.status))) return inv ?? null;
  const now = ctx.now();
  const network = ctx.registry.network(inv.network);
  const required = network ? ctx.chains.confirmations(network.code) : 1;
  const transfers = (await transfersOf(trx, { id: inv.id })).rows;
  const t = tallyOf(transfers, inv, required);
  let status = CREDIT_ONLY.has(inv.status) ? inv.status : nextStatus(inv, t, now);
  // A final invoice never reopens: a deep reorganisation after crediting is an operator's matter.
  if (FINAL_STATUSES.has(inv.status) && !FINAL_STATUSES.has(status)) status = inv.status;

  const patch: Partial<InvoiceRow> = {};
  if (status !== inv.status) patch.status = status;
  const isFinal = FINAL_STATUSES.has(status) ? 1 : 0;
  if (isFinal !== inv.is_final) patch.is_final = isFinal;
  const paid = t.confirmed.gt('0') ? t.confirmed.toString() : null;
  if (paid !== (inv.payment_amount === null ? null : Decimal.parse(inv.payment_amount).toString())) {
    patch.payment_amount = paid;
    patch.payment_amount_usd = paid ? await usdValue(ctx, paid, inv.payer_currency!) : null;
  }
  if (t.last && (t.last.txid !== inv.txid || t.last.from !== inv.from_address)) {
    patch.txid = t.last.txid;
    patch.from_address = t.last.from;
  }

  // Credit the merchant when a payment is final (and again for whatever arrives late).
  const credits = status === 'paid' || status === 'paid_over' || status === 'wrong_amount' || CREDIT_ONLY.has(status);
  if (credits && inv.payer_amount && inv.payer_currency && paid) {
    const decimals = ctx.registry.currencyOn(inv.network!, inv.payer_currency)?.decimals ?? 18;
    const originalMerchant = Decimal.parse(inv.payer_amount).sub(inv.commission ?? '0').round(decimals, 'down').toString();
    const target = creditFor(paid, inv.payer_amount, originalMerchant, decimals).merchantAmount;
    const delta = Decimal.parse(target).sub(inv.credited);
    if (delta.gt('0')) {
      await post(trx, {
        merchantId: inv.merchant_id,
        wallet: 'business',
        currency: inv.payer_currency,
        amount: delta.toString(),
        reason: 'invoice_payment',
        ref: { kind: 'invoice', id: inv.id },
        key: `invoice:${inv.id}:credit:${target}`,
        now,
      });
      patch.credited = target;
      patch.merchant_amount = target;
    }
  }

  const foreign = await creditForeignTransfers(ctx, trx, inv, transfers, now);
  if (foreign) patch.comments = foreign;

  if (Object.keys(patch).length === 0) return inv;
  patch.updated_at = now;
  patch.version = inv.version + 1;
  const columns = Object.keys(patch).sort();
  await updateInvoice(trx, columns, { ...patch, id: inv.id });
  const updated = { ...inv, ...patch };
  // Every move is announced, and so is money credited without a move (a late payment).
  if ((patch.status || patch.credited) && inv.url_callback) await enqueueInvoiceWebhook(ctx, trx, updated);
  return updated;
}

/**
 * A payer may send another token to the invoice's address (USDT to an ETH invoice). It does not
 * pay the invoice, but money is never dropped: each such confirmed transfer is credited to the
 * merchant in its own currency, less that currency's commission, and noted in `comments`.
 * Returns the new comment, or null when nothing new was credited.
 */
async function creditForeignTransfers(
  ctx: Ctx,
  trx: Transaction<DB>,
  inv: InvoiceRow,
  transfers: ReadonlyArray<Selectable<ChainTransfersTable>>,
  now: number,
): Promise<string | null> {
  if (!inv.payer_currency) return null;
  const payerCurrency = inv.payer_currency.toUpperCase();
  const rows = transfers.filter((t) => t.status === 'confirmed' && t.currency !== payerCurrency);
  let note: string | null = null;
  for (const t of rows) {
    const def = ctx.registry.currencyOn(t.network, t.currency);
    const decimals = def?.decimals ?? 18;
    const pct = commissionPercent(ctx, t.currency, t.network, def?.commission_percent ?? '0');
    const gross = Decimal.parse(t.amount);
    const net = gross.sub(gross.percent(pct)).round(decimals, 'down');
    if (!net.gt('0')) continue;
    const booked = await post(trx, {
      merchantId: inv.merchant_id,
      wallet: 'business',
      currency: t.currency,
      amount: net.toString(),
      reason: 'invoice_other_currency',
      ref: { kind: 'invoice', id: inv.id },
      key: `invoice:${inv.id}:foreign:${t.network}:${t.txid}:${t.idx}`,
      now,
    });
    if (booked !== null) note = `Received ${gross.toString()} ${t.currency} (not ${inv.payer_currency}) in ${t.txid}; credited ${net.toString()} ${t.currency}`;
  }
  return note;
}

export async function enqueueInvoiceWebhook(ctx: Ctx, trx: Transaction<DB>, inv: InvoiceRow): Promise<void> {
  if (!inv.url_callback) return;
  const merchant = (await paymentKeyOf(trx, { id: inv.merchant_id })).rows[0];
  if (!merchant) throw new Error(`merchant ${inv.merchant_id} not found`);
  await enqueueWebhook(trx, {
    merchantId: inv.merchant_id,
    kind: 'payment',
    refId: inv.id,
    url: inv.url_callback,
    body: signedBody(paymentWebhookFields(inv, 'payment'), merchant.payment_key),
    allowPrivate: ctx.chains.isTestNetwork(inv.network),
    now: ctx.now(),
  });
}

async function usdValue(ctx: Ctx, amount: string, currency: string): Promise<string | null> {
  const rate = await rateIfQuick(ctx, currency, 'USD');
  return rate === null ? null : Decimal.parse(amount).mul(rate).round(2, 'down').toString();
}

/** Moves every open invoice whose time is up (a worker calls this). Returns how many it visited. */
export async function expireDue(ctx: Ctx, limit = 200): Promise<number> {
  const nowS = Math.floor(ctx.now() / 1000);
  const due = await ctx.storage.db
    .selectFrom('invoices')
    .select('id')
    .where('is_final', '=', 0)
    .where('status', '=', 'process')
    .where('expired_at', '<=', nowS)
    .limit(limit)
    .execute();
  for (const { id } of due) {
    await ctx.storage.write((trx) => reconcileInvoice(ctx, trx, id));
  }
  return due.length;
}
