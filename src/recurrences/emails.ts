// Payer emails of subscriptions (docs/recurring.md, "Emails"). The payer may give an address (and
// their language) when subscribing; when the operator configured SMTP and the merchant turned the
// emails on, each status change of the recurrence that a payer should hear about queues one email
// in the transaction of the change (the same moment its `recurrence` webhook is queued), and the
// `recurrences` job sends what is queued. A row is claimed (pending -> sending) by one statement
// before its message goes out, so two workers side by side, or a job run twice, send it once; a
// process that dies while the SMTP server holds the message leaves it `sending`, never sent again.
// Statuses of a row: pending | sending | sent | failed | skipped (a `renewal_auto` superseded by the
// reminder of a pull that fell back before it went out).
import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Ctx } from '../context.ts';
import type { DB, RecurrencesTable } from '../db/schema.ts';
import { BusinessError } from '../errors.ts';
import { addressProblem } from '../mail/index.ts';
import { money } from '../money/format.ts';
import { PAGE_LANGUAGES, type PageLanguage } from '../contracts/payer.ts';
import type { RecurrencePeriod } from '../contracts/merchant-api/recurrences.ts';
import { recurrenceEmail, type EmailKind } from './email-texts/index.ts';
import { allowanceCovers, pullerOf, waitsForNode, type PullFallback } from './pulls.ts';

/** What a payer may give with the subscription: an address for the emails, and their language. */
export interface PayerContact {
  email: string | null;
  lang: PageLanguage;
}

const MAX_EMAIL = 254;
/** Sends after which a message the SMTP server keeps refusing is given up (`failed`). */
const MAX_ATTEMPTS = 5;
const RETRY_MS = [60_000, 300_000, 1_800_000, 7_200_000];

/**
 * The optional `email` and `lang` of the subscribe body (null: neither given). A bad email is
 * refused (nothing is written then); a language the page does not have is English.
 */
export function parsePayerContact(body: Record<string, unknown>): PayerContact | null {
  if (body.email === undefined && body.lang === undefined) return null;
  const lang = typeof body.lang === 'string' && (PAGE_LANGUAGES as readonly string[]).includes(body.lang) ? (body.lang as PageLanguage) : 'en';
  const raw = body.email;
  if (raw === undefined || raw === null || raw === '') return { email: null, lang };
  if (typeof raw !== 'string') throw new BusinessError('The email address must be a text', 'email_invalid');
  const email = raw.trim();
  if (email.length > MAX_EMAIL) throw new BusinessError(`The email address is longer than ${MAX_EMAIL} characters`, 'email_invalid');
  const problem = addressProblem(email);
  if (problem) throw new BusinessError(problem.startsWith('must') ? `The email address ${problem}` : 'The email address is not valid', 'email_invalid');
  return { email, lang };
}

/** Which email a recurrence's new state calls for (null: none). */
export function emailKindOf(row: Pick<RecurrencesTable, 'status' | 'period_index'>): EmailKind | null {
  switch (row.status) {
    case 'active':
      return row.period_index === 0 ? 'subscribed' : 'paid';
    case 'wait_payment':
      return 'renewal_due';
    case 'inactive':
      return 'failed';
    case 'cancel_by_merchant':
    case 'cancel_by_user':
      return 'cancelled';
    default:
      return null;
  }
}

/**
 * Whether the renewal `row` now waits for (`wait_payment`) will be pulled by the worker: an active
 * allowance on its network and payer currency, and a collector on that network. Its payer is then told that nothing is to be done
 * (`renewal_auto`), not asked to pay by hand: a prompt payer would pay twice (`paid_over`). A pull
 * that falls back after all sends the renewal reminder then (queuePullFallbackEmail).
 */
export async function collectedAutomatically(ctx: Ctx, trx: Transaction<DB>, row: Pick<RecurrencesTable, 'id' | 'network' | 'payer_currency' | 'invoice_id'>): Promise<boolean> {
  // A network without a collector to pull with falls back at once: the payer is asked to pay. One
  // whose node has not answered yet is pulled once it does.
  if (row.network === null || row.payer_currency === null || (pullerOf(ctx, row.network) === null && !waitsForNode(ctx, row.network))) return false;
  const allowance = await trx
    .selectFrom('recurrence_allowances')
    .select('created_at')
    .where('recurrence_id', '=', row.id)
    .where('status', '=', 'active')
    .where('network', '=', row.network)
    .where('currency', '=', row.payer_currency)
    .executeTakeFirst();
  if (allowance === undefined || row.invoice_id === null) return false;
  // Only an allowance recorded before the renewal invoice pulls it (allowanceCovers of ./pulls.ts).
  const inv = await trx.selectFrom('invoices').select('created_at').where('id', '=', row.invoice_id).executeTakeFirst();
  return inv !== undefined && allowanceCovers(allowance, inv);
}

/** Whether `row`'s payer gets emails: an address, SMTP configured, the merchant's switch on. */
async function mailable(ctx: Ctx, trx: Transaction<DB>, row: RecurrencesTable): Promise<boolean> {
  if (!row.payer_email || !ctx.mail.configured) return false;
  const merchant = await trx.selectFrom('merchants').select('payer_emails').where('id', '=', row.merchant_id).executeTakeFirst();
  return merchant !== undefined && Number(merchant.payer_emails ?? 0) === 1;
}

/** One row of the outbox, unique per (recurrence, transition): a second queueing of the same one is a no-op. */
async function queue(ctx: Ctx, trx: Transaction<DB>, row: RecurrencesTable, kind: EmailKind, transition: number, invoiceId: string | null): Promise<void> {
  const now = ctx.now();
  await trx
    .insertInto('recurrence_emails')
    .values({
      id: randomUUID(),
      recurrence_id: row.id,
      merchant_id: row.merchant_id,
      transition,
      kind,
      recipient: row.payer_email!,
      lang: row.payer_lang ?? 'en',
      invoice_id: invoiceId,
      status: 'pending',
      attempts: 0,
      next_attempt_at: now,
      last_error: null,
      created_at: now,
      sent_at: null,
    })
    .onConflict((oc) => oc.columns(['recurrence_id', 'transition']).doNothing())
    .execute();
}

/**
 * Queues the payer's email for `row` as it now stands, in the transaction of its status change
 * (the outbox: a crash neither loses nor invents one). Nothing without SMTP, without the
 * merchant's switch on, or without the payer's address. One per transition: the row's version.
 */
export async function enqueueRecurrenceEmail(ctx: Ctx, trx: Transaction<DB>, row: RecurrencesTable, invoiceId: string | null): Promise<void> {
  let kind = emailKindOf(row);
  if (kind === null || !(await mailable(ctx, trx, row))) return;
  if (kind === 'renewal_due' && (await collectedAutomatically(ctx, trx, row))) kind = 'renewal_auto';
  await queue(ctx, trx, row, kind, row.version, invoiceId);
}

/**
 * The fallback reminder's outbox key: a renewal's period (1 and up) negated, so it never meets a
 * version (0 and up) and each period gets one reminder however often its pull falls back.
 */
const fallbackTransition = (period: number): number => -period;

/**
 * A renewal the worker meant to pull fell back to its invoice (`PullFallback` of ./pulls.ts: a
 * short allowance or balance, a refused or reverted pull): the payer is asked to pay by hand with
 * the `renewal_due` email after all, once per recurrence and period. The job's `fallback` hook of
 * pullRenewals. Nothing when the recurrence moved on meanwhile (paid, cancelled, lapsed). A
 * `renewal_auto` email of the same renewal not sent yet is dropped (`skipped`): the payer gets the
 * reminder alone, never "nothing to do" and "please pay" side by side. Written with `trx`, the
 * transaction that records the pull's fallback (a crash between them cannot lose the reminder).
 */
export async function queuePullFallbackEmail(ctx: Ctx, trx: Transaction<DB>, f: PullFallback): Promise<void> {
  const row = await ctx.storage.forUpdate(trx.selectFrom('recurrences').selectAll().where('id', '=', f.recurrence)).executeTakeFirst();
  if (!row || row.status !== 'wait_payment' || row.invoice_id !== f.invoice || row.period_index !== f.period || f.period < 1) return;
  if (!(await mailable(ctx, trx, row))) return;
  // The payer already has this invoice's "renewal due" (queued at the transition): not twice.
  const due = await trx.selectFrom('recurrence_emails').select('id').where('recurrence_id', '=', row.id).where('kind', '=', 'renewal_due').where('invoice_id', '=', f.invoice).executeTakeFirst();
  if (due !== undefined) return;
  await trx
    .updateTable('recurrence_emails')
    .set({ status: 'skipped', last_error: 'superseded by the renewal reminder (the automatic pull fell back)' })
    .where('recurrence_id', '=', row.id)
    .where('kind', '=', 'renewal_auto')
    .where('invoice_id', '=', f.invoice)
    .where('status', '=', 'pending')
    .execute();
  await queue(ctx, trx, row, 'renewal_due', fallbackTransition(f.period), f.invoice);
}

async function merchantName(ctx: Ctx, merchantId: string): Promise<string> {
  const row = await ctx.storage.db
    .selectFrom('merchants')
    .leftJoin('merchant_profiles', 'merchant_profiles.merchant_id', 'merchants.id')
    .select(['merchants.name', 'merchant_profiles.display_name'])
    .where('merchants.id', '=', merchantId)
    .executeTakeFirst();
  return row?.display_name || row?.name || '';
}

/**
 * Sends the queued payer emails that are due; returns how many left. Each is claimed first by one
 * conditional update: whoever does not win it sends nothing. Once `signal` aborts (the step's
 * deadline, or shutdown) no further one is claimed: the rest stay pending for the next round.
 */
export async function sendRecurrenceEmails(ctx: Ctx, limit = 50, signal?: AbortSignal): Promise<number> {
  const db = ctx.storage.db;
  const now = ctx.now();
  const due = await db.selectFrom('recurrence_emails').selectAll().where('status', '=', 'pending').where('next_attempt_at', '<=', now).orderBy('created_at').limit(limit).execute();
  let sent = 0;
  for (const e of due) {
    if (signal?.aborted) break;
    const claim = await db
      .updateTable('recurrence_emails')
      .set({ status: 'sending', attempts: e.attempts + 1 })
      .where('id', '=', e.id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (Number(claim.numUpdatedRows) !== 1) continue;
    const rec = await db.selectFrom('recurrences').selectAll().where('id', '=', e.recurrence_id).executeTakeFirst();
    const result = rec
      ? await ctx.mail.send(
          recurrenceEmail({
            kind: e.kind as EmailKind,
            to: e.recipient,
            lang: ((PAGE_LANGUAGES as readonly string[]).includes(e.lang) ? e.lang : 'en') as PageLanguage,
            merchant: await merchantName(ctx, e.merchant_id),
            name: rec.name,
            amount: `${money(rec.amount)} ${rec.currency}`,
            period: rec.period as RecurrencePeriod,
            page: `${ctx.config.publicUrl}/pay/recurrence/${rec.id}`,
            invoice: e.invoice_id === null ? null : `${ctx.config.publicUrl}/pay/${e.invoice_id}`,
          }),
        )
      : ({ sent: false, reason: 'The recurrence is gone.' } as const);
    if (result.sent) {
      await db.updateTable('recurrence_emails').set({ status: 'sent', sent_at: ctx.now(), last_error: null }).where('id', '=', e.id).execute();
      sent++;
      continue;
    }
    // Refused or not reached: the server did not take it, so trying again sends it at most once.
    const retry = e.attempts + 1 < MAX_ATTEMPTS && ctx.mail.configured && rec !== undefined;
    await db
      .updateTable('recurrence_emails')
      .set({ status: retry ? 'pending' : 'failed', next_attempt_at: ctx.now() + (RETRY_MS[e.attempts] ?? RETRY_MS.at(-1)!), last_error: result.reason.slice(0, 500) })
      .where('id', '=', e.id)
      .execute();
  }
  return sent;
}
