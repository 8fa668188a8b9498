// The outbox worker (docs/webhooks.md): claims due webhooks, sends each once, records every attempt
// and schedules retries. Any number of workers may share a PostgreSQL database.
import { sql } from 'kysely';
import type { Ctx } from '../context.ts';
import { BLOCKED_PRIVATE, DEFAULT_TIMEOUT_MS, sendWebhook, type SendResult } from './send.ts';
import { Lanes, targetOf, type TargetOf } from './lanes.ts';
import { recordAttempts, Recorder, type WebhookRow } from './record.ts';

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

/** Deliveries in flight at once per worker. */
const LANES = 16;

/** Rows one claim takes at most. */
const CLAIM = 50;

/**
 * Claimed groups a continuous run holds waiting per target (see Lanes). Claims leave a target out
 * from half of this, and take at most half of it: a claim never brings a target more than it may
 * hold, so nothing claimed is handed straight back.
 */
const WAITING_PER_TARGET = 2 * CLAIM;

/**
 * Attempts in flight at once to one callback target (scheme, host and port), by default: half the
 * lanes. A busy merchant's receiver still gets as many attempts at once as the whole worker gave
 * before lanes were capped per target (8), and a receiver that hangs holds at most half the lanes.
 */
export const DEFAULT_PER_TARGET = 8;

export interface DelivererOptions {
  fetch?: typeof fetch;
  /** Per attempt; default 10 s. */
  timeoutMs?: number;
  /** Attempts in flight at once to one target; default DEFAULT_PER_TARGET. */
  perTarget?: number;
  /** Where a refused target is reported (once per target and process). */
  log?: { warn?(o: unknown, msg?: string): void };
}

/** The webhooks about one thing (invoice, wallet, payout), oldest first, and the lease they hold. */
interface Group {
  rows: WebhookRow[];
  target: TargetOf;
  leaseUntil: number;
}

/** One stretch of delivering: its lanes and the recorder its attempts go through. */
interface Session {
  lanes: Lanes<Group>;
  recorder: Recorder;
  attempted: number;
}

export class WebhookDeliverer {
  private readonly timeoutMs: number;
  private readonly perTarget: number;
  /** Targets whose refusal as private was logged already: one line per target, not per webhook. */
  private readonly reportedPrivate = new Set<string>();

  constructor(
    private readonly ctx: Ctx,
    private readonly opts: DelivererOptions = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.perTarget = Math.max(1, opts.perTarget ?? DEFAULT_PER_TARGET);
  }

  /**
   * Sends the webhooks that are due (one claim of at most `limit`); returns how many were
   * attempted. Webhooks about the same invoice (wallet, payout) go out one after another in the
   * order they were queued, and none overtakes an older one that is still being retried. A failing
   * webhook never makes this throw; a database that cannot be reached does. Once `signal` aborts
   * (shutting down), attempts under way finish and the claimed webhooks not yet begun are handed back.
   */
  async runOnce(limit = CLAIM, signal?: AbortSignal): Promise<number> {
    // One claim and nothing after it: everything claimed waits its turn here.
    const s = this.session(Infinity, signal);
    await this.take(s, await this.claim(limit, []));
    // Each group ends by starting the next waiting one: once none runs, none waits.
    await s.lanes.settled();
    await this.end(s);
    return s.attempted;
  }

  /**
   * Delivers until `signal` aborts. Lanes take new work as they free up: whenever one is free
   * and nothing claimed can use it, the next claim is made (at most `limit` rows), leaving out the
   * targets that already have all the attempts and waiting work they may; with nothing due it looks
   * again after `idleMs`. A slow receiver thus delays only its own webhooks. Errors (the database
   * away) go to `onError`; delivery goes on after `idleMs`.
   */
  async run(signal: AbortSignal, o: { idleMs: number; limit?: number; onError: (err: unknown) => void }): Promise<void> {
    while (!signal.aborted) {
      const s = this.session(WAITING_PER_TARGET, signal);
      try {
        while (!signal.aborted && !s.recorder.failed) {
          if (!s.lanes.hungry) {
            await s.lanes.pause(o.idleMs, signal, 'lane');
            continue;
          }
          const groups = await this.claim(Math.min(o.limit ?? CLAIM, WAITING_PER_TARGET / 2), s.lanes.skipped());
          // Nothing new: wait for the next look, or for a target that was left out to have room.
          if ((await this.take(s, groups)) === 0) await s.lanes.pause(o.idleMs, signal, 'room');
        }
      } catch (err) {
        o.onError(err);
      } finally {
        await this.end(s).catch(o.onError);
      }
      if (!signal.aborted && s.recorder.failed) o.onError(new Error('webhook attempts could not be recorded'));
      if (!signal.aborted) await s.lanes.pause(o.idleMs, signal, 'lane');
    }
  }

  private session(waitingPerTarget: number, signal?: AbortSignal): Session {
    const recorder = new Recorder((batch) => recordAttempts(this.ctx.storage, batch));
    const s: Session = {
      recorder,
      attempted: 0,
      lanes: new Lanes<Group>({ lanes: LANES, perTarget: this.perTarget, waitingPerTarget, work: (g) => this.work(s, g, signal) }),
    };
    return s;
  }

  /** Hands claimed groups to the lanes; returns how many they kept (the rest are handed back). */
  private async take(s: Session, groups: Group[]): Promise<number> {
    const away = s.lanes.add(groups);
    if (away.length) await this.release(away.flatMap((g) => g.rows));
    return groups.length - away.length;
  }

  /** Hands back what was not begun, waits for what was, and writes every attempt. */
  private async end(s: Session): Promise<void> {
    const left = s.lanes.takeWaiting();
    if (left.length) await this.release(left.flatMap((g) => g.rows)).catch(() => {});
    await s.lanes.settled();
    await s.recorder.drain();
  }

  /** One lane's turn: the group's webhooks in order, stopping at one that stays pending. */
  private async work(s: Session, group: Group, signal?: AbortSignal): Promise<void> {
    if (!(await this.holdLease(group))) return;
    const rows = group.rows;
    for (let i = 0; i < rows.length; i++) {
      if (signal?.aborted || s.recorder.failed) {
        await this.release(rows.slice(i)).catch(() => {});
        return;
      }
      s.attempted++;
      if ((await this.deliver(rows[i]!, s.recorder)) === 'pending') {
        // The rest waits behind it: hand it back now rather than when the lease ends. It stays
        // behind this one, whose lease holds until its attempt is recorded.
        await this.release(rows.slice(i + 1)).catch(() => {});
        return;
      }
    }
  }

  /**
   * A group that waited for a lane may have used up much of its lease: before its first attempt the
   * lease is pushed to cover all of its attempts. Only while it is still ours (next_attempt_at as
   * this claim set it): one whose lease ran out and that another worker, or a later claim, took
   * is left to that one. Returns false when the group is no longer ours.
   */
  private async holdLease(g: Group): Promise<boolean> {
    const need = this.ctx.now() + (g.rows.length + 3) * this.timeoutMs;
    if (g.leaseUntil >= need) return true;
    const r = await this.ctx.storage.db
      .updateTable('webhooks')
      .set({ next_attempt_at: need })
      .where('id', 'in', g.rows.map((row) => row.id))
      .where('status', '=', 'pending')
      .where('next_attempt_at', '=', g.leaseUntil)
      .executeTakeFirst()
      .catch(() => null);
    if (Number(r?.numUpdatedRows ?? 0) !== g.rows.length) return false;
    g.leaseUntil = need;
    return true;
  }

  /**
   * Takes due rows in a short transaction and pushes their next_attempt_at past the time this batch
   * can take (a lease), so no other worker picks them up meanwhile; on PostgreSQL, rows another
   * worker is claiming right now are skipped rather than waited for. A row is taken only when every
   * older pending webhook about the same thing is taken with it. Webhooks whose URL starts with one
   * of `skip` (targets that can take no more now) are left for later. Returns the rows grouped by
   * what they are about, oldest first.
   */
  private async claim(limit: number, skip: readonly string[]): Promise<Group[]> {
    const { storage } = this.ctx;
    return storage.write(async (trx) => {
      const now = this.ctx.now();
      const due = await storage
        .skipLocked(
          trx
            .selectFrom('webhooks')
            .selectAll()
            .where('status', '=', 'pending')
            .where('next_attempt_at', '<=', now)
            .$if(skip.length > 0, (q) => q.where((eb) => eb.and(skip.map((p) => eb(sql<string>`substr(${eb.ref('webhooks.url')}, 1, ${p.length})`, '<>', p)))))
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
      // A group that waits longer for a lane renews its lease before it starts (holdLease).
      const lease = Math.max(6 * this.timeoutMs, (Math.ceil(rows.length / LANES) + longest + 1) * this.timeoutMs + 3 * this.timeoutMs);
      await trx
        .updateTable('webhooks')
        .set({ next_attempt_at: now + lease })
        .where('id', 'in', rows.map((r) => r.id))
        .execute();
      return [...groups.values()].map((g) => ({ rows: g, target: targetOf(g[0]!.url), leaseUntil: now + lease }));
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
    if (r.error === BLOCKED_PRIVATE) this.reportPrivate(row);
    const result = outcome(row, r, ctx.now());
    recorder.add({ row, at, r, result });
    return result.status ?? 'pending';
  }

  /**
   * In live mode a webhook to a private address is refused (a merchant could otherwise make the
   * gateway call into the operator's network); the merchant sees it on the dashboard, the operator
   * in the log, once per target, with the setting that allows it.
   */
  private reportPrivate(row: WebhookRow): void {
    let target: string;
    try {
      target = new URL(row.url).host;
    } catch {
      target = row.url;
    }
    const key = `${row.merchant_id}\0${target}`;
    if (this.reportedPrivate.has(key) || this.reportedPrivate.size >= 10_000) return;
    this.reportedPrivate.add(key);
    this.opts.log?.warn?.(
      { merchant: row.merchant_id, target, reason: 'private address' },
      'webhook target refused: it resolves to a private, loopback or link-local address, which is not called with real money; ' +
        'allow it with allow_private_callbacks (SATCHEL_ALLOW_PRIVATE_CALLBACKS=1) only if the shop really lives on a private network',
    );
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
