// The webhook outbox (docs/webhooks.md): a row written in the same transaction as the change that
// causes it, so a crash can neither lose a notification nor invent one. WebhookDeliverer sends what
// is here.
import { randomFillSync } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { DB, WebhooksTable } from '../db/schema.ts';
import { statement } from '../db/statement.ts';

/** `custody`: a merchant's receiving material changed (src/custody/change.ts); `unmatched`: a payment
 * to its receiving account named no invoice (src/unmatched/record.ts); `recurrence`: a recurring
 * payment's status changed (src/recurrences/). */
export type WebhookKind = 'payment' | 'wallet' | 'payout' | 'custody' | 'unmatched' | 'recurrence';

export interface NewWebhook {
  merchantId: string;
  kind: WebhookKind;
  /** The invoice, static wallet, payout or receiving material it is about. */
  refId: string;
  url: string;
  /** The exact body to deliver, `sign` included (see signedBody). */
  body: string;
  /** Deliver even to private, loopback and link-local addresses (test mode). */
  allowPrivate: boolean;
  now: number;
}

let lastMs = 0;
let counter = 0;

/** Random bytes drawn in bulk: one system call serves many ids. */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;
function random(n: number): Buffer {
  if (poolAt + n > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const out = Buffer.from(pool.subarray(poolAt, poolAt + n));
  poolAt += n;
  return out;
}

/**
 * A UUIDv7 (RFC 9562) whose 12-bit counter makes ids from this process strictly increasing, even
 * within one millisecond: webhooks about the same invoice are delivered in (created_at, id) order,
 * so `check` is never overtaken by the `paid` queued right after it.
 */
export function timeOrderedId(): string {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    counter = random(2).readUInt16BE(0) & 0x3ff; // leaves room to count up within the millisecond
  } else if (++counter > 0xfff) {
    lastMs++;
    counter = 0;
  }
  const b = random(16);
  b.writeUIntBE(lastMs, 0, 6);
  b[6] = 0x70 | (counter >> 8);
  b[7] = counter & 0xff;
  b[8] = 0x80 | (b[8]! & 0x3f);
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Queues a webhook for delivery as soon as a worker picks it up; returns its id (the value of
 * the `x-satchel-delivery` header). Call it inside the transaction of the status change. */
export async function enqueueWebhook(db: Kysely<DB> | Transaction<DB>, w: NewWebhook): Promise<string> {
  const id = timeOrderedId();
  await insertWebhook(db, {
    id,
    merchant_id: w.merchantId,
    kind: w.kind,
    ref_id: w.refId,
    url: w.url,
    body: w.body,
    next_attempt_at: w.now,
    allow_private: w.allowPrivate ? 1 : 0,
    created_at: w.now,
  });
  return id;
}

const insertWebhook = statement<Pick<WebhooksTable, 'id' | 'merchant_id' | 'kind' | 'ref_id' | 'url' | 'body' | 'next_attempt_at' | 'allow_private' | 'created_at'>>(
  (db, p) =>
    db.insertInto('webhooks').values({
      id: p.id,
      merchant_id: p.merchant_id,
      kind: p.kind,
      ref_id: p.ref_id,
      url: p.url,
      body: p.body,
      status: 'pending',
      attempts: 0,
      next_attempt_at: p.next_attempt_at,
      allow_private: p.allow_private,
      created_at: p.created_at,
      delivered_at: null,
      last_status: null,
      last_error: null,
    }),
);
