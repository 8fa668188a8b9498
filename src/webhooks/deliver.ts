// The outbox worker (D3, D8): claims due webhooks, sends each once, records every attempt and
// schedules retries. Any number of workers may share a PostgreSQL database.
import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Ctx } from '../context.ts';
import type { WebhooksTable } from '../db/schema.ts';
import { sizedChunks, statementsByColumns, statementsBySize } from '../db/statement.ts';
import { DEFAULT_TIMEOUT_MS, sendWebhook, type SendResult } from './send.ts';

type WebhookRow = Selectable<WebhooksTable>;

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Waits after the 1st, 2nd, ... failed attempt; after the last listed, every 6 hours. */
const SCHEDULE = [10 * SECOND, 30 * SECOND, MINUTE, 5 * MINUTE, 15 * MINUTE, 30 * MINUTE, HOUR, 2 * HOUR, 4 * HOUR];
const THEN_EVERY = 6 * HOUR;

/** A webhook is retried until this long after it was created, then marked failed. */
export const GIVE_UP_AFTER_MS = 26 * HOUR;

/** No attempt after this many: the schedule puts the 13th 25 h 51 min after the first, and a 14th
 * would come after GIVE_UP_AFTER_MS. */
export const MAX_ATTEMPTS = 13;

/**
 * The wait before the next attempt after `attempts` failed ones: 10 s, 30 s, 1 min, 5 min, 15 min,
 * 30 min, 1 h, 2 h, 4 h, then every 6 h; null once MAX_ATTEMPTS have been made. 0 before the first.
 */
export function nextDelay(attempts: number): number | null {
  if (attempts <= 0) return 0;
  if (attempts >= MAX_ATTEMPTS) return null;
  return SCHEDULE[attempts - 1] ?? THEN_EVERY;
}

/** Deliveries in flight at once within one runOnce. */
const PARALLEL = 8;

export interface DelivererOptions {
  fetch?: typeof fetch;
  /** Per attempt; default 10 s. */
  timeoutMs?: number;
}

export class WebhookDeliverer {
  private readonly timeoutMs: number;

  constructor(
    private readonly ctx: Ctx,
    private readonly opts: DelivererOptions = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /**
   * Sends the webhooks that are due (at most `limit`); returns how many were attempted. Webhooks
   * about the same invoice (wallet, payout) go out one after another in the order they were
   * queued, and none overtakes an older one that is still being retried. A failing webhook never
   * makes this throw; a database that cannot be reached does. Once `signal` aborts (shutting
   * down), attempts under way finish and the claimed webhooks not yet begun are handed back.
   */
  async runOnce(limit = 50, signal?: AbortSignal): Promise<number> {
    const groups = await this.claim(limit);
    const recorder = new Recorder((batch) => this.record(batch));
    let attempted = 0;
    let next = 0;
    const lane = async () => {
      while (next < groups.length) {
        const group = groups[next++]!;
        for (let i = 0; i < group.length; i++) {
          const row = group[i]!;
          if (signal?.aborted || recorder.failed) {
            await this.release(group.slice(i)).catch(() => {});
            break;
          }
          attempted++;
          const status = await this.deliver(row, recorder);
          if (status === 'pending') {
            // The rest waits behind it: hand it back now rather than when the lease ends. It stays
            // behind this one, whose lease holds until its attempt is recorded.
            await this.release(group.slice(i + 1)).catch(() => {});
            break;
          }
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL, groups.length) }, lane));
    await recorder.drain();
    return attempted;
  }

  /**
   * Takes due rows in a short transaction and pushes their next_attempt_at past the time this batch
   * can take (a lease), so no other worker picks them up meanwhile; on PostgreSQL, rows another
   * worker is claiming right now are skipped rather than waited for. A row is taken only when every
   * older pending webhook about the same thing is taken with it. Returns the rows grouped by what
   * they are about, oldest first.
   */
  private async claim(limit: number): Promise<WebhookRow[][]> {
    const { storage } = this.ctx;
    return storage.db.transaction().execute(async (trx) => {
      const now = this.ctx.now();
      const due = await storage
        .skipLocked(
          trx
            .selectFrom('webhooks')
            .selectAll()
            .where('status', '=', 'pending')
            .where('next_attempt_at', '<=', now)
            // Behind an older one that is waiting for its retry (or in flight elsewhere): not yet.
            .where(({ not, exists, selectFrom, eb }) =>
              not(
                exists(
                  selectFrom('webhooks as o')
                    .select('o.id')
                    .whereRef('o.ref_id', '=', 'webhooks.ref_id')
                    .whereRef('o.kind', '=', 'webhooks.kind')
                    .where('o.status', '=', 'pending')
                    .where('o.next_attempt_at', '>', now)
                    .where((o) =>
                      o.or([
                        o('o.created_at', '<', o.ref('webhooks.created_at')),
                        o.and([o('o.created_at', '=', o.ref('webhooks.created_at')), o('o.id', '<', o.ref('webhooks.id'))]),
                      ]),
                    ),
                ),
              ),
            )
            .orderBy('created_at')
            .orderBy('id')
            .limit(limit),
        )
        .execute();
      if (due.length === 0) return [];
      const taken = new Set(due.map((r) => r.id));
      const key = (r: { kind: string; ref_id: string }) => `${r.kind} ${r.ref_id}`;
      // An older pending sibling we did not take (another worker holds it, or the limit cut it
      // off) blocks everything after it.
      const siblings = await trx
        .selectFrom('webhooks')
        .select(['id', 'kind', 'ref_id'])
        .where('status', '=', 'pending')
        .where('ref_id', 'in', [...new Set(due.map((r) => r.ref_id))])
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      const blocked = new Set<string>();
      const eligible = new Set<string>();
      for (const s of siblings) {
        const k = key(s);
        if (blocked.has(k)) continue;
        if (taken.has(s.id)) eligible.add(s.id);
        else blocked.add(k);
      }
      const groups = new Map<string, WebhookRow[]>();
      for (const r of due) {
        if (!eligible.has(r.id)) continue;
        const g = groups.get(key(r)) ?? [];
        g.push(r);
        groups.set(key(r), g);
      }
      if (groups.size === 0) return [];
      const rows = [...groups.values()].flat();
      const longest = Math.max(...[...groups.values()].map((g) => g.length));
      // Longer than the batch can take (every attempt timing out), plus slack for the database;
      // both scale with the attempt time limit (10 s: at least 1 min, slack 30 s).
      const lease = Math.max(6 * this.timeoutMs, (Math.ceil(rows.length / PARALLEL) + longest + 1) * this.timeoutMs + 3 * this.timeoutMs);
      await trx
        .updateTable('webhooks')
        .set({ next_attempt_at: now + lease })
        .where('id', 'in', rows.map((r) => r.id))
        .execute();
      return [...groups.values()];
    });
  }

  private async release(rows: WebhookRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.ctx.storage.db
      .updateTable('webhooks')
      .set({ next_attempt_at: this.ctx.now() })
      .where('id', 'in', rows.map((r) => r.id))
      .where('status', '=', 'pending')
      .execute();
  }

  /**
   * One attempt; returns the webhook's status afterwards. The attempt is recorded by `recorder`,
   * together with others, and the next webhook about the same thing may go out before that
   * record is written: if it is never written (a crash, the database away), both are sent again
   * in their order, under their own delivery ids, once their leases end.
   */
  private async deliver(row: WebhookRow, recorder: Recorder): Promise<string> {
    const { ctx } = this;
    const at = ctx.now();
    const allowPrivate = row.allow_private === 1 || ctx.config.allowPrivateCallbacks;
    const r = await sendWebhook(row.url, row.body, {
      deliveryId: row.id,
      allowPrivate,
      timeoutMs: this.timeoutMs,
      fetch: this.opts.fetch,
    });
    const result = outcome(row, r, ctx.now());
    recorder.add({ row, at, r, result });
    return result.status ?? 'pending';
  }

  /**
   * Writes attempts and their outcomes in one transaction, without waiting for the disk: losing
   * it to a power cut only sends those webhooks again, under the same delivery ids.
   */
  private async record(batch: Attempt[]): Promise<void> {
    await this.ctx.storage.relaxedWrite(async (trx) => {
      let at = 0;
      for (const size of sizedChunks(batch.length)) {
        const values: Record<string, unknown> = {};
        for (let k = 0; k < size; k++) {
          const { row, at: started, r } = batch[at++]!;
          values[`id${k}`] = randomUUID();
          values[`webhook_id${k}`] = row.id;
          values[`at${k}`] = started;
          values[`http_status${k}`] = r.httpStatus;
          values[`latency_ms${k}`] = r.latencyMs;
          values[`error${k}`] = r.error;
          values[`answer${k}`] = r.answer ?? null;
        }
        await insertAttempts(trx, size, values);
      }
      // Deliveries (the usual outcome) are recorded together, per attempt count and answer;
      // anything else one by one. Each update is guarded against a worker whose lease ran out
      // recording over a newer attempt (`attempts` still what it was).
      const delivered = new Map<string, Attempt[]>();
      for (const a of batch) {
        if (a.result.status === 'delivered') {
          const key = `${a.row.attempts} ${a.r.httpStatus}`;
          const group = delivered.get(key) ?? [];
          group.push(a);
          delivered.set(key, group);
          continue;
        }
        const set: Partial<WebhookRow> = { attempts: a.row.attempts + 1, last_status: a.r.httpStatus, last_error: a.r.error, ...a.result };
        await recordOutcome(trx, Object.keys(set).sort(), { ...set, id: a.row.id, was: a.row.attempts });
      }
      for (const group of delivered.values()) {
        const first = group[0]!;
        const common = {
          was: first.row.attempts,
          attempts: first.row.attempts + 1,
          last_status: first.r.httpStatus,
          delivered_at: Math.max(...group.map((a) => Number(a.result.delivered_at))),
        };
        let k = 0;
        for (const size of sizedChunks(group.length)) {
          const values: Record<string, unknown> = { ...common };
          for (let j = 0; j < size; j++) values[`id${j}`] = group[k++]!.row.id;
          await markDelivered(trx, size, values);
        }
      }
    });
  }
}

const insertAttempts = statementsBySize((db, p, size) =>
  db.insertInto('webhook_attempts').values(
    Array.from({ length: size }, (_, k) => ({
      id: p[`id${k}`],
      webhook_id: p[`webhook_id${k}`],
      at: p[`at${k}`],
      http_status: p[`http_status${k}`],
      latency_ms: p[`latency_ms${k}`],
      error: p[`error${k}`],
      answer: p[`answer${k}`],
    })),
  ),
);

const markDelivered = statementsBySize((db, p, size) =>
  db
    .updateTable('webhooks')
    .set({ status: 'delivered', delivered_at: p.delivered_at, attempts: p.attempts, last_status: p.last_status, last_error: null })
    .where('status', '=', 'pending')
    .where('attempts', '=', p.was)
    .where(
      'id',
      'in',
      Array.from({ length: size }, (_, k) => p[`id${k}`] as string),
    ),
);

/** How long attempts gather before they are written, and how many are written at once. */
const GATHER_MS = 50;
const FLUSH_AT = 250;

const recordOutcome = statementsByColumns<Partial<WebhookRow> & { id: string; was: number }>((db, p, columns) => {
  const values = p as Record<string, unknown>;
  return db
    .updateTable('webhooks')
    .set(Object.fromEntries(columns.map((c) => [c, values[c]])) as Partial<WebhookRow>)
    .where('id', '=', p.id)
    .where('status', '=', 'pending')
    .where('attempts', '=', p.was);
});

interface Attempt {
  row: WebhookRow;
  at: number;
  r: SendResult;
  result: Partial<WebhookRow>;
}

/**
 * Writes attempts as they come, many per transaction: a batch gathers for up to GATHER_MS (or
 * FLUSH_AT attempts) while the deliveries go on, then is written while the next gathers. Batches
 * are written in the order of their attempts; after one fails to be written nothing later is
 * (`failed`), so an attempt is never recorded while an earlier one about the same thing is not.
 */
class Recorder {
  private queue: Attempt[] = [];
  private writing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  failed = false;

  constructor(private readonly write: (batch: Attempt[]) => Promise<void>) {}

  add(a: Attempt): void {
    if (this.failed) return;
    this.queue.push(a);
    this.schedule();
  }

  private schedule(): void {
    if (this.writing || this.queue.length === 0) return;
    if (this.queue.length >= FLUSH_AT) this.start();
    else this.timer ??= setTimeout(() => this.start(), GATHER_MS);
  }

  private start(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.writing ??= this.writeOne().finally(() => {
      this.writing = null;
      this.schedule();
    });
  }

  private async writeOne(): Promise<void> {
    const batch = this.queue.splice(0);
    if (batch.length === 0 || this.failed) return;
    try {
      await this.write(batch);
    } catch {
      // The database failed: these leases run out and the webhooks are sent again.
      this.failed = true;
      this.queue = [];
    }
  }

  /** Writes everything gathered so far. */
  async drain(): Promise<void> {
    while (this.writing || (this.queue.length > 0 && !this.failed)) {
      if (!this.writing) this.start();
      await this.writing;
    }
  }
}

function outcome(row: WebhookRow, r: SendResult, now: number): Partial<WebhookRow> {
  const attempts = row.attempts + 1;
  if (r.ok) return { status: 'delivered', delivered_at: now };
  if (r.blocked) return { status: 'failed' };
  const deadline = Number(row.created_at) + GIVE_UP_AFTER_MS;
  const delay = nextDelay(attempts);
  if (delay === null || now >= deadline) return { status: 'failed' };
  // However late the worker runs, there is one last attempt at the deadline.
  return { next_attempt_at: Math.min(now + delay, deadline) };
}
