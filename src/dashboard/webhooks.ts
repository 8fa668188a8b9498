// The dashboard's webhooks view: recent deliveries across invoices, static wallets and payouts,
// the failing ones first, each with its attempts; and "retry now", which makes a failing or
// waiting delivery due at once without touching what the outbox guarantees (src/webhooks/deliver.ts):
// every delivery is still attempted until a 2xx answer, and none about the same object overtakes an
// older one.
import type { Kysely } from 'kysely';
import type { Delivery } from '../contracts/dashboard/webhooks.ts';
import type { Ctx } from '../context.ts';
import type { DB, WebhooksTable } from '../db/schema.ts';
import { NotFoundError } from '../errors.ts';
import { nextDelay } from '../webhooks/deliver.ts';
import { UserInputError } from './errors.ts';
import { cursorOf, parseCursor, type Cursor } from './invoice-search.ts';

export const WEBHOOK_PAGE = 25;
/** At most this many failing deliveries are listed above the recent ones. */
export const FAILING_LIMIT = 50;
/** How much later than its schedule a waiting delivery's next attempt may be and still be waiting
 * (recording an attempt takes a moment); a claimed one is leased a minute or more ahead. */
const SCHEDULE_SLACK_MS = 5_000;

type Row = WebhooksTable;

const isFailing = (r: Pick<Row, 'status' | 'attempts'>) => r.status === 'failed' || (r.status === 'pending' && r.attempts > 0);

function sent(body: string): { order_id: string | null; status: string | null } {
  try {
    const b = JSON.parse(body) as { order_id?: unknown; status?: unknown };
    return { order_id: typeof b.order_id === 'string' ? b.order_id : null, status: typeof b.status === 'string' ? b.status : null };
  } catch {
    return { order_id: null, status: null };
  }
}

async function present(db: Kysely<DB>, rows: Row[]): Promise<Delivery[]> {
  if (rows.length === 0) return [];
  const attempts = await db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('webhook_id', 'in', rows.map((r) => r.id))
    .orderBy('at')
    .execute();
  const topupIds = rows.filter((r) => r.kind === 'wallet').map((r) => r.ref_id);
  const walletOf = new Map(
    topupIds.length ? (await db.selectFrom('wallet_topups').select(['id', 'wallet_id']).where('id', 'in', topupIds).execute()).map((t) => [t.id, t.wallet_id]) : [],
  );
  return rows.map((r) => {
    const { order_id, status } = sent(r.body);
    const wallet = walletOf.get(r.ref_id);
    return {
      id: r.id,
      kind: r.kind,
      ref_id: r.ref_id,
      object: r.kind === 'payment' ? `invoices/${r.ref_id}` : r.kind === 'payout' ? `payouts/${r.ref_id}` : wallet ? `wallets/${wallet}` : null,
      order_id,
      status_sent: status,
      url: r.url,
      status: r.status,
      failing: isFailing(r),
      attempts: attempts
        .filter((a) => a.webhook_id === r.id)
        .map((a) => ({ at: a.at, http_status: a.http_status, latency_ms: a.latency_ms, error: a.error, answer: a.answer ?? null })),
      body: r.body,
      created_at: r.created_at,
      delivered_at: r.delivered_at,
      next_attempt_at: r.status === 'pending' ? r.next_attempt_at : null,
      last_status: r.last_status,
      last_error: r.last_error,
    };
  });
}

/** Every delivery about these objects of one kind, oldest first, with attempts. */
export async function deliveriesOf(db: Kysely<DB>, merchantId: string, kind: string, refIds: string[]): Promise<Delivery[]> {
  if (refIds.length === 0) return [];
  const rows = await db
    .selectFrom('webhooks')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('kind', '=', kind)
    .where('ref_id', 'in', refIds)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return present(db, rows);
}

export type WebhookShow = 'all' | 'failed' | 'pending' | 'delivered';

export function parseShow(v: unknown): WebhookShow {
  if (v === undefined || v === '' || v === null) return 'all';
  if (v === 'all' || v === 'failed' || v === 'pending' || v === 'delivered') return v;
  throw new UserInputError('Show all, failed, pending or delivered deliveries.', 'bad_delivery_filter');
}

/**
 * The deliveries view. `failing` (first page only, show=all): deliveries that gave up or whose
 * attempts failed so far, newest first. `items`: the rest of the recent ones (or those of one
 * status), newest first, in keyset pages; `next` continues.
 */
export async function listDeliveries(db: Kysely<DB>, merchantId: string, show: WebhookShow, cursorText: unknown): Promise<{ failing: Delivery[]; items: Delivery[]; next: string | null }> {
  const cursor: Cursor | null = parseCursor(cursorText);
  const base = () => db.selectFrom('webhooks').selectAll().where('merchant_id', '=', merchantId);
  let failing: Row[] = [];
  if (show === 'all' && !cursor) {
    const failed = await base().where('status', '=', 'failed').orderBy('created_at', 'desc').orderBy('id', 'desc').limit(FAILING_LIMIT).execute();
    const retrying = await base().where('status', '=', 'pending').where('attempts', '>', 0).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(FAILING_LIMIT).execute();
    failing = [...failed, ...retrying].sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : -1)).slice(0, FAILING_LIMIT);
  }
  let q = base();
  if (show === 'all') q = q.where((eb) => eb.or([eb('status', '=', 'delivered'), eb.and([eb('status', '=', 'pending'), eb('attempts', '=', 0)])]));
  else q = q.where('status', '=', show);
  if (cursor) q = q.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(cursor.t, cursor.id)));
  const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(WEBHOOK_PAGE + 1).execute();
  const page = rows.slice(0, WEBHOOK_PAGE);
  return {
    failing: await present(db, failing),
    items: await present(db, page),
    next: rows.length > WEBHOOK_PAGE ? cursorOf(page[page.length - 1]!) : null,
  };
}

/** When a waiting delivery's next attempt was scheduled (what deliver.ts wrote after its last attempt). */
async function scheduledAt(db: Kysely<DB>, r: Row): Promise<number | null> {
  if (r.attempts === 0) return null;
  const last = await db.selectFrom('webhook_attempts').select(['at', 'latency_ms']).where('webhook_id', '=', r.id).orderBy('at', 'desc').limit(1).executeTakeFirst();
  const delay = nextDelay(r.attempts);
  if (!last || delay === null) return null;
  return last.at + last.latency_ms + delay;
}

/**
 * Makes the delivery due now. A pending one: it and every older pending delivery about the same
 * object (which go first anyway) become due, so the worker sends them in their order; a delivery
 * that a worker holds right now is left to it ("being delivered"). A failed one gets one more
 * attempt, unless a newer delivery about the same object was already delivered (sending the older
 * one now would overtake it: resend from the object instead). Delivered ones are not retried.
 * Every update is conditional on the row as read, so a worker that claims it meanwhile wins.
 */
export async function retryNow(ctx: Ctx, merchantId: string, id: string): Promise<{ due: number }> {
  const db = ctx.storage.db;
  const now = ctx.now();
  const w = await db.selectFrom('webhooks').selectAll().where('merchant_id', '=', merchantId).where('id', '=', id).executeTakeFirst();
  if (!w) throw new NotFoundError('Webhook not found');
  if (w.status === 'delivered') throw new UserInputError('This webhook was delivered; resend it from its invoice instead.', 'webhook_delivered');
  const siblings = await db
    .selectFrom('webhooks')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('kind', '=', w.kind)
    .where('ref_id', '=', w.ref_id)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const older = (s: Row) => s.created_at < w.created_at || (s.created_at === w.created_at && s.id < w.id);
  if (w.status === 'failed' && siblings.some((s) => !older(s) && s.id !== w.id && s.status === 'delivered')) {
    throw new UserInputError('A newer webhook about the same object was delivered already; resend from the object instead.', 'webhook_superseded');
  }
  const targets = [...siblings.filter((s) => older(s) && s.status === 'pending'), w];
  for (const t of targets) {
    if (t.status !== 'pending' || t.next_attempt_at <= now) continue;
    const planned = await scheduledAt(db, t);
    const waiting = planned === null ? t.attempts === 0 && t.next_attempt_at <= t.created_at + SCHEDULE_SLACK_MS : t.next_attempt_at <= planned + SCHEDULE_SLACK_MS;
    if (!waiting) throw new UserInputError('This webhook is being delivered right now.', 'webhook_in_flight');
  }
  let due = 0;
  await ctx.storage.write(async (trx) => {
    for (const t of targets) {
      if (t.status === 'pending' && t.next_attempt_at <= now) {
        due++;
        continue;
      }
      const r = await trx
        .updateTable('webhooks')
        // A failed one comes back for one attempt: deliver.ts fails it again at once if that fails
        // too, since it is past its give-up time or out of attempts.
        .set({ status: 'pending', next_attempt_at: now })
        .where('id', '=', t.id)
        .where('status', '=', t.status)
        .where('attempts', '=', t.attempts)
        .where('next_attempt_at', '=', t.next_attempt_at)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) throw new UserInputError('This webhook is being delivered right now.', 'webhook_in_flight');
      due++;
    }
  });
  return { due };
}
