// Writing webhook attempts (every attempt is recorded): many per transaction, in the order
// they were made, so the deliverer's lanes never wait for the disk between attempts.
import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Storage } from '../db/dialect.ts';
import type { WebhooksTable } from '../db/schema.ts';
import { sizedChunks, statementsByColumns, statementsBySize } from '../db/statement.ts';
import type { SendResult } from './send.ts';

export type WebhookRow = Selectable<WebhooksTable>;

/**
 * Writes attempts and their outcomes in one transaction, without waiting for the disk: losing
 * it to a power cut only sends those webhooks again, under the same delivery ids.
 */
export async function recordAttempts(storage: Storage, batch: Attempt[]): Promise<void> {
  await storage.relaxedWrite(async (trx) => {
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

export interface Attempt {
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
export class Recorder {
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
