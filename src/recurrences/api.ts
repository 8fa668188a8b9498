// POST /v1/recurrence/create, /info, /list and /cancel (docs/recurring.md).
import { randomUUID } from 'node:crypto';
import type { Ctx } from '../context.ts';
import { BusinessError, Msg, ValidationError } from '../errors.ts';
import type { Merchant } from '../merchants/store.ts';
import { claimOrderId } from '../merchants/order-ids.ts';
import { Decimal } from '../money/decimal.ts';
import { quoteRate } from '../pricing/rates.ts';
import { historyPage, type Page } from '../db/history.ts';
import type { CreateRecurrenceParams, Recurrence } from '../contracts/merchant-api/recurrences.ts';
import type { HistoryParams } from '../contracts/merchant-api/invoices.ts';
import type { RecordRef } from '../contracts/merchant-api/parse.ts';
import { CANCELLED, enqueueRecurrenceWebhook, presentRecurrence, type RecurrenceRow } from './recurrence-object.ts';

export const RecurrenceMsg = {
  notFound: 'Recurrence not found',
  alreadyCancelled: 'The recurrence is already cancelled',
} as const;

/** Places a payer is asked to pay in (as invoices: the chain's decimals, at most 8). */
function payerDecimals(ctx: Ctx, crypto: string): number {
  return Math.min(ctx.registry.decimalsOf(crypto), 8);
}

/** What the payer pays per period in `crypto`, and in US dollars, priced now (rounded up, never short). */
export async function payerFigures(ctx: Ctx, amount: string, currency: string, crypto: string): Promise<{ payer_amount: string; payer_amount_usd: string | null }> {
  const rate = await quoteRate(ctx, currency, crypto, null);
  const usd = await quoteRate(ctx, currency, 'USD', null).then(
    (q) => q.rate,
    () => null,
  );
  return {
    payer_amount: Decimal.parse(amount).mul(rate.rate).round(payerDecimals(ctx, crypto), 'up').toString(),
    payer_amount_usd: usd === null ? null : Decimal.parse(amount).mul(usd).round(2, 'down').toString(),
  };
}

/**
 * The spec's minimum for an amount of a recurrence (each period's price, and the discounted one):
 * in the cryptocurrency it will be paid in, the lowest minimum of the networks that carry it (the
 * payer may still choose the network); in a fiat currency nobody chose a cryptocurrency for yet,
 * one cent (or the currency's smallest unit), as for invoices. The chosen network's own minimum is
 * checked again when the payer subscribes, by the invoice's pricing.
 */
async function checkMinimum(ctx: Ctx, amount: string, currency: string, crypto: string | null): Promise<void> {
  if (crypto === null) {
    const decimals = ctx.registry.fiatCurrency(currency)?.decimals ?? ctx.registry.decimalsOf(currency);
    const min = Decimal.of(1n, decimals);
    if (Decimal.parse(amount).lt(min.toString())) throw new BusinessError(Msg.minAmount(min.toString(), currency));
    return;
  }
  const mins = ctx.chains.offeredNetworksOf(crypto).map((n) => ctx.registry.currencyOn(n.code, crypto)!.min);
  const min = mins.reduce((a, b) => (Decimal.parse(b).lt(a) ? b : a));
  const { payer_amount } = await payerFigures(ctx, amount, currency, crypto);
  if (Decimal.parse(payer_amount).lt(min)) throw new BusinessError(Msg.minAmount(min, crypto));
}

export async function findRecurrence(ctx: Ctx, merchantId: string, ref: RecordRef): Promise<RecurrenceRow | undefined> {
  const q = ctx.storage.db.selectFrom('recurrences').selectAll().where('merchant_id', '=', merchantId);
  return (ref.order_id !== null ? q.where('order_id', '=', ref.order_id) : q.where('id', '=', ref.uuid)).executeTakeFirst();
}

class OrderIdTaken extends Error {}

/**
 * Creates a recurrence in `wait_accept` (no money moves until the payer subscribes), or returns
 * the merchant's recurrence with this order_id. An order_id an invoice or a static wallet already
 * uses answers `{"order_id":["validation.unique"]}`, as they answer one of a recurrence.
 */
export async function createRecurrence(ctx: Ctx, merchant: Merchant, params: CreateRecurrenceParams): Promise<Recurrence> {
  const { registry } = ctx;
  const orderId = params.order_id;
  if (orderId !== null) {
    const existing = await findRecurrence(ctx, merchant.id, { uuid: null, order_id: orderId });
    if (existing) return presentRecurrence(ctx, existing);
  }
  const currency = params.currency;
  if (!registry.isKnownCurrency(currency)) throw new BusinessError(Msg.currencyNotFound);
  if (registry.isCrypto(currency) && ctx.chains.offeredNetworksOf(currency).length === 0) throw new BusinessError(Msg.currencyNotFound);
  const toCurrency = params.to_currency;
  if (toCurrency && (!registry.isCrypto(toCurrency) || ctx.chains.offeredNetworksOf(toCurrency).length === 0)) throw new BusinessError(Msg.toCurrencyNotFound);
  const crypto = toCurrency ?? (registry.isCrypto(currency) ? currency : null);
  await checkMinimum(ctx, params.amount, currency, crypto);
  if (params.discount_amount !== null) await checkMinimum(ctx, params.discount_amount, currency, crypto);
  const figures = toCurrency ? await payerFigures(ctx, params.amount, currency, toCurrency) : null;

  const now = ctx.now();
  const row: RecurrenceRow = {
    id: randomUUID(),
    merchant_id: merchant.id,
    order_id: orderId,
    name: params.name,
    amount: Decimal.parse(params.amount).toString(),
    currency,
    to_currency: toCurrency,
    payer_currency: toCurrency,
    network: null,
    payer_amount: figures?.payer_amount ?? null,
    payer_amount_usd: figures?.payer_amount_usd ?? null,
    url_callback: params.url_callback ?? merchant.default_url_callback ?? null,
    discount_days: params.discount_days,
    discount_amount: params.discount_amount === null ? null : Decimal.parse(params.discount_amount).toString(),
    end_of_discount: null,
    period: params.period,
    status: 'wait_accept',
    additional_data: params.additional_data,
    period_index: 0,
    invoice_id: null,
    anchor_at: null,
    anchor_period: 0,
    next_due_at: null,
    grace_until: null,
    last_pay_off: null,
    created_at: now,
    updated_at: now,
    version: 1,
  };
  const inserted = await ctx.storage
    .write(async (trx) => {
      if (orderId !== null && (await claimOrderId(trx, merchant.id, orderId, 'recurrence')) !== 'recurrence') {
        throw new ValidationError({ order_id: ['validation.unique'] });
      }
      const r = await trx.insertInto('recurrences').values(row).onConflict((oc) => oc.columns(['merchant_id', 'order_id']).doNothing()).executeTakeFirst();
      if (Number(r.numInsertedOrUpdatedRows ?? 0n) === 0) throw new OrderIdTaken();
      return true;
    })
    .catch((e: unknown) => {
      if (e instanceof OrderIdTaken || ctx.storage.isUniqueViolation(e)) return false;
      throw e;
    });
  if (!inserted) {
    // A concurrent request with the same order_id won the race: answer with its recurrence.
    const winner = orderId === null ? undefined : await findRecurrence(ctx, merchant.id, { uuid: null, order_id: orderId });
    if (!winner) throw new Error('order_id conflict without a recurrence');
    return presentRecurrence(ctx, winner);
  }
  return presentRecurrence(ctx, row);
}

export async function recurrenceInfo(ctx: Ctx, merchantId: string, ref: RecordRef): Promise<Recurrence> {
  const row = await findRecurrence(ctx, merchantId, ref);
  if (!row) throw new BusinessError(RecurrenceMsg.notFound);
  return presentRecurrence(ctx, row);
}

/** Newest first, keyset cursors and date filters as the invoice history (src/db/history.ts). */
export async function listRecurrences(ctx: Ctx, merchantId: string, params: HistoryParams): Promise<Page<Recurrence>> {
  const base = ctx.storage.db.selectFrom('recurrences').selectAll().where('merchant_id', '=', merchantId);
  const { rows, paginate } = await historyPage(base, params);
  return { items: rows.map((r) => presentRecurrence(ctx, r)), paginate };
}

/**
 * Stops a recurrence for good (`cancel_by_merchant` or, from the payer's page, `cancel_by_user`):
 * no renewal is made any more, and the `recurrence` webhook says so. A recurrence already
 * cancelled is refused, and nothing changes.
 */
export async function cancelRecurrence(ctx: Ctx, merchantId: string | null, ref: RecordRef, by: 'cancel_by_merchant' | 'cancel_by_user'): Promise<Recurrence> {
  const row = await ctx.storage.write(async (trx) => {
    let q = trx.selectFrom('recurrences').selectAll();
    if (merchantId !== null) q = q.where('merchant_id', '=', merchantId);
    q = ref.order_id !== null ? q.where('order_id', '=', ref.order_id) : q.where('id', '=', ref.uuid);
    const cur = await ctx.storage.forUpdate(q).executeTakeFirst();
    if (!cur) throw new BusinessError(RecurrenceMsg.notFound);
    if (CANCELLED.has(cur.status)) throw new BusinessError(RecurrenceMsg.alreadyCancelled);
    const now = ctx.now();
    const patch = { status: by, next_due_at: null, grace_until: null, updated_at: now, version: cur.version + 1 };
    await trx.updateTable('recurrences').set(patch).where('id', '=', cur.id).execute();
    const next = { ...cur, ...patch };
    await enqueueRecurrenceWebhook(ctx, trx, next, null);
    return next;
  });
  return presentRecurrence(ctx, row);
}
