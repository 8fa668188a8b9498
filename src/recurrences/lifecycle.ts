// The life of a recurrence (docs/recurring.md): the payer subscribes (the first period's invoice),
// a paid period makes it `active` until the next period starts, a renewal invoice is made then
// (`wait_payment`), and one left unpaid past the grace period makes it `inactive`. Every period is
// paid by an ordinary invoice (made through the invoices feature), linked to the recurrence and
// unique per period. Every status change is one transaction with its `recurrence` webhook.
import type { Ctx } from '../context.ts';
import { BusinessError, NotFoundError } from '../errors.ts';
import type { CreateInvoiceParams } from '../contracts/merchant-api/invoices.ts';
import type { RecurrencePeriod } from '../contracts/merchant-api/recurrences.ts';
import { days, periodStart } from './periods.ts';
import { payerFigures, RecurrenceMsg } from './api.ts';
import { loadRecurrence, PAYER_CANCELLABLE } from './payer.ts';
import { CANCELLED, enqueueRecurrenceWebhook, type RecurrenceRow } from './recurrence-object.ts';
import type { PayerContact } from './emails.ts';

/** The invoice statuses that pay a period. */
const PAID: ReadonlySet<string> = new Set(['paid', 'paid_over']);
/** A payment seen but not yet confirmed: the grace period waits for it to settle. */
const SETTLING: ReadonlySet<string> = new Set(['check']);

/** How long the payer of the first period's invoice has to pay it (it can be refreshed after). */
const FIRST_INVOICE_LIFETIME_S = 3600;

export interface Logger {
  error(o: unknown, msg?: string): void;
}

/** The order_id of a period's invoice: made of the recurrence's uuid, which no one knows before it exists. */
export function periodOrderId(recurrenceId: string, period: number): string {
  return `recurrence-${recurrenceId}-${period}`;
}

async function load(ctx: Ctx, id: string): Promise<RecurrenceRow | undefined> {
  return ctx.storage.db.selectFrom('recurrences').selectAll().where('id', '=', id).executeTakeFirst();
}

/** What a period costs: the discounted price for the first period of a recurrence with a discount. */
function priceOf(rec: RecurrenceRow, period: number): string {
  return period === 0 && rec.discount_amount !== null ? rec.discount_amount : rec.amount;
}

/** Creates (or finds: the order_id is the period's) the invoice of one period. */
async function periodInvoice(ctx: Ctx, rec: RecurrenceRow, period: number, lifetimeS: number): Promise<{ uuid: string; status: string }> {
  const merchant = await ctx.merchants.get(rec.merchant_id);
  if (!merchant) throw new Error(`merchant ${rec.merchant_id} not found`);
  const params: CreateInvoiceParams = {
    amount: priceOf(rec, period),
    currency: rec.currency,
    order_id: periodOrderId(rec.id, period),
    network: rec.network,
    url_return: null,
    url_success: null,
    url_callback: rec.url_callback,
    is_payment_multiple: true,
    lifetime: lifetimeS,
    to_currency: rec.payer_currency,
    subtract: 0,
    accuracy_payment_percent: '0',
    additional_data: rec.additional_data,
    currencies: null,
    except_currencies: null,
    course_source: null,
    from_referral_code: null,
    discount_percent: null,
    is_refresh: true,
    payer_email: null,
    theme: null,
  };
  const { invoice } = await ctx.features.invoices.create(ctx, merchant, params, { recurrenceId: rec.id, period });
  return { uuid: invoice.uuid, status: invoice.status };
}

/**
 * The payer subscribes (`POST /api/pay/recurrence/{uuid}/subscribe`): chooses the currency and
 * network every period is paid in and gets the first period's invoice (the discounted price when
 * there is a discount). The recurrence stays `wait_accept` until that invoice is paid. Asked
 * again, it answers the same invoice (refreshed when it expired unpaid); the first choice stands.
 * `contact`: the payer's address and language for the emails (./emails.ts): the first address given
 * stays (a later call neither replaces nor clears it); until one is given, the latest language.
 */
export async function subscribe(ctx: Ctx, uuid: string, currency: unknown, network: unknown, contact: PayerContact | null = null): Promise<{ recurrence: RecurrenceRow; invoice: string }> {
  if (typeof currency !== 'string' || typeof network !== 'string' || currency === '' || network === '') {
    throw new BusinessError('Choose a currency and a network', 'choice_missing');
  }
  const rec = /^[0-9a-f-]{36}$/i.test(uuid) ? await load(ctx, uuid.toLowerCase()) : undefined;
  if (!rec) throw new NotFoundError('Recurrence not found');
  if (rec.status !== 'wait_accept') throw new BusinessError('The subscription is not waiting to be accepted', 'not_waiting');
  const cur = currency.toUpperCase();
  const net = network.toUpperCase();
  if (rec.payer_currency !== null && rec.payer_currency !== cur) throw new BusinessError('The merchant asks for another currency', 'not_available');
  if (rec.network !== null && rec.network !== net) throw new BusinessError('The first choice stands', 'already_chosen');
  const def = ctx.registry.currencyOn(net, cur);
  if (!def || !ctx.chains.offered(net)) throw new BusinessError('Not available', 'not_available');
  const figures = await payerFigures(ctx, rec.amount, rec.currency, def.code);
  const chosen: RecurrenceRow = { ...rec, payer_currency: def.code, network: net };
  // The invoice is made (and its address handed out) before the choice is recorded: a crash in
  // between leaves an invoice that the next call finds by its order_id.
  const invoice = await periodInvoice(ctx, chosen, 0, FIRST_INVOICE_LIFETIME_S);
  const recurrence = await ctx.storage.write(async (trx) => {
    const row = await ctx.storage.forUpdate(trx.selectFrom('recurrences').selectAll().where('id', '=', rec.id)).executeTakeFirstOrThrow();
    if (row.status !== 'wait_accept') throw new BusinessError('The subscription is not waiting to be accepted', 'not_waiting');
    // The first address given stays: anyone holding the link may call subscribe while it waits to
    // be accepted, and a later call must not take the payer's emails over (nor silence them by
    // clearing it). Its language stays with it. Until an address is given, the latest call's counts.
    const who = contact === null || row.payer_email !== null ? {} : { payer_email: contact.email, payer_lang: contact.lang };
    if (row.invoice_id === invoice.uuid) {
      if (Object.keys(who).length > 0) await trx.updateTable('recurrences').set(who).where('id', '=', row.id).execute();
      return { ...row, ...who };
    }
    const patch = { payer_currency: def.code, network: net, ...figures, ...who, invoice_id: invoice.uuid, period_index: 0, updated_at: ctx.now(), version: row.version + 1 };
    await trx.updateTable('recurrences').set(patch).where('id', '=', row.id).execute();
    return { ...row, ...patch };
  });
  return { recurrence, invoice: invoice.uuid };
}

/**
 * The payer cancels from the recurrence's page (`POST /api/pay/recurrence/{uuid}/cancel`), after
 * confirming there: `cancel_by_user`, in one transaction with its `recurrence` webhook (no
 * invoice), as the merchant's cancel. Only a running subscription (`active`, `wait_payment`) can
 * be; a cancelled one is refused (`already_cancelled`), as one not running (`not_running`), and
 * nothing changes. A renewal invoice still open simply expires.
 */
export async function cancelByUser(ctx: Ctx, uuid: string): Promise<RecurrenceRow> {
  const { id } = await loadRecurrence(ctx, uuid);
  return ctx.storage.write(async (trx) => {
    const cur = await ctx.storage.forUpdate(trx.selectFrom('recurrences').selectAll().where('id', '=', id)).executeTakeFirstOrThrow();
    if (CANCELLED.has(cur.status)) throw new BusinessError(RecurrenceMsg.alreadyCancelled, 'already_cancelled');
    if (!PAYER_CANCELLABLE.has(cur.status)) throw new BusinessError('The subscription is not running', 'not_running');
    const now = ctx.now();
    const patch = { status: 'cancel_by_user', next_due_at: null, grace_until: null, updated_at: now, version: cur.version + 1 };
    await trx.updateTable('recurrences').set(patch).where('id', '=', id).execute();
    const next = { ...cur, ...patch };
    await enqueueRecurrenceWebhook(ctx, trx, next, null);
    return next;
  });
}

/** Grace period after a renewal is due before an unpaid recurrence becomes `inactive`. */
function graceMs(ctx: Ctx): number {
  return ctx.config.recurrenceGraceMs;
}

/** A paid period: `active` until the next one starts. The first payment anchors the schedule. */
async function onPaid(ctx: Ctx, id: string): Promise<boolean> {
  return ctx.storage.write(async (trx) => {
    const rec = await ctx.storage.forUpdate(trx.selectFrom('recurrences').selectAll().where('id', '=', id)).executeTakeFirst();
    if (!rec || (rec.status !== 'wait_accept' && rec.status !== 'wait_payment') || !rec.invoice_id) return false;
    const inv = await trx.selectFrom('invoices').select(['id', 'status']).where('id', '=', rec.invoice_id).executeTakeFirst();
    if (!inv || !PAID.has(inv.status)) return false;
    const now = ctx.now();
    const patch: Partial<RecurrenceRow> = { status: 'active', last_pay_off: now, grace_until: null, updated_at: now, version: rec.version + 1 };
    let schedule = { anchor_at: Number(rec.anchor_at), anchor_period: rec.anchor_period, period: rec.period as RecurrencePeriod };
    if (rec.status === 'wait_accept') {
      // With a discount, the first period lasts discount_days and full periods start after it.
      const end = rec.discount_days !== null ? now + days(Number(rec.discount_days)) : null;
      schedule = { anchor_at: end ?? now, anchor_period: end === null ? 0 : 1, period: schedule.period };
      Object.assign(patch, { end_of_discount: end, anchor_at: schedule.anchor_at, anchor_period: schedule.anchor_period });
    }
    patch.next_due_at = periodStart(schedule, rec.period_index + 1);
    await trx.updateTable('recurrences').set(patch).where('id', '=', rec.id).execute();
    await enqueueRecurrenceWebhook(ctx, trx, { ...rec, ...patch }, inv.id);
    return true;
  });
}

/**
 * The next period has started: its invoice is made (one per period, whatever crashes or other
 * workers do: the invoice's order_id is the period's and the pair is unique), and the recurrence
 * waits for it to be paid until the grace period ends. Returns the invoice, or null when the
 * recurrence was not due (any more).
 */
export async function renew(ctx: Ctx, id: string): Promise<string | null> {
  const rec = await load(ctx, id);
  if (!rec || rec.status !== 'active' || rec.next_due_at === null || Number(rec.next_due_at) > ctx.now()) return null;
  const period = rec.period_index + 1;
  const due = Number(rec.next_due_at);
  const lifetimeS = Math.max(300, Math.ceil((due + graceMs(ctx) - ctx.now()) / 1000));
  const invoice = await periodInvoice(ctx, rec, period, lifetimeS);
  return ctx.storage.write(async (trx) => {
    const cur = await ctx.storage.forUpdate(trx.selectFrom('recurrences').selectAll().where('id', '=', id)).executeTakeFirstOrThrow();
    // Another worker recorded this period first, or the recurrence was cancelled meanwhile.
    if (cur.status !== 'active' || cur.period_index >= period) return null;
    const now = ctx.now();
    const patch = { status: 'wait_payment', period_index: period, invoice_id: invoice.uuid, grace_until: due + graceMs(ctx), next_due_at: null, updated_at: now, version: cur.version + 1 };
    await trx.updateTable('recurrences').set(patch).where('id', '=', id).execute();
    await enqueueRecurrenceWebhook(ctx, trx, { ...cur, ...patch }, invoice.uuid);
    return invoice.uuid;
  });
}

/** The grace period is over and the period's invoice is unpaid (and no payment is settling): `inactive`. */
async function lapse(ctx: Ctx, id: string): Promise<boolean> {
  return ctx.storage.write(async (trx) => {
    const rec = await ctx.storage.forUpdate(trx.selectFrom('recurrences').selectAll().where('id', '=', id)).executeTakeFirst();
    if (!rec || rec.status !== 'wait_payment' || rec.grace_until === null || Number(rec.grace_until) > ctx.now()) return false;
    const inv = rec.invoice_id ? await trx.selectFrom('invoices').select(['id', 'status']).where('id', '=', rec.invoice_id).executeTakeFirst() : undefined;
    if (inv && (PAID.has(inv.status) || SETTLING.has(inv.status))) return false;
    // The period's pull under way (reserved or sent, not yet seen on the invoice): it may still pay
    // the period, so the subscription lapses only once that pull is confirmed short or falls back.
    const pull = await trx.selectFrom('recurrence_pulls').select('status').where('recurrence_id', '=', rec.id).where('period', '=', rec.period_index).executeTakeFirst();
    if (pull && (pull.status === 'planned' || pull.status === 'sent')) return false;
    const now = ctx.now();
    const patch = { status: 'inactive', next_due_at: null, updated_at: now, version: rec.version + 1 };
    await trx.updateTable('recurrences').set(patch).where('id', '=', id).execute();
    await enqueueRecurrenceWebhook(ctx, trx, { ...rec, ...patch }, inv?.id ?? null);
    return true;
  });
}

/**
 * The worker's job: paid periods first (a payment that arrived in time is never lapsed), then
 * lapses, then renewals due. Each step rechecks under the recurrence's row lock, so workers may
 * run it side by side. Returns how many recurrences moved.
 */
export async function advanceRecurrences(ctx: Ctx, log: Logger = console, limit = 200): Promise<number> {
  const db = ctx.storage.db;
  const now = ctx.now();
  let moved = 0;
  const paid = await db
    .selectFrom('recurrences')
    .innerJoin('invoices', 'invoices.id', 'recurrences.invoice_id')
    .select('recurrences.id')
    .where('recurrences.status', 'in', ['wait_accept', 'wait_payment'])
    .where('invoices.status', 'in', [...PAID])
    .limit(limit)
    .execute();
  for (const { id } of paid) if (await onPaid(ctx, id)) moved++;
  const lapsed = await db.selectFrom('recurrences').select('id').where('status', '=', 'wait_payment').where('grace_until', '<=', now).limit(limit).execute();
  for (const { id } of lapsed) if (await lapse(ctx, id)) moved++;
  const due = await db.selectFrom('recurrences').select('id').where('status', '=', 'active').where('next_due_at', '<=', now).limit(limit).execute();
  for (const { id } of due) {
    try {
      if ((await renew(ctx, id)) !== null) moved++;
    } catch (err) {
      // One recurrence whose invoice cannot be made now (no rate, wallet switched off) holds up no other.
      log.error({ err, recurrence: id }, 'renewal invoice could not be made');
    }
  }
  return moved;
}

/** Whether nothing moves this recurrence any more. */
export function isFinished(rec: Pick<RecurrenceRow, 'status'>): boolean {
  return CANCELLED.has(rec.status) || rec.status === 'inactive';
}
