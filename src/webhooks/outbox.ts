// The webhook outbox (D3): a row written in the same transaction as the change that causes it, so
// a crash can neither lose a notification nor invent one. WebhookDeliverer sends what is here.
import { randomBytes } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';

export type WebhookKind = 'payment' | 'wallet' | 'payout';

export interface NewWebhook {
  merchantId: string;
  kind: WebhookKind;
  /** The invoice, static wallet or payout it is about. */
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

/**
 * A UUIDv7 (RFC 9562) whose 12-bit counter makes ids from this process strictly increasing, even
 * within one millisecond: webhooks about the same invoice are delivered in (created_at, id) order,
 * so `check` is never overtaken by the `paid` queued right after it.
 */
export function timeOrderedId(): string {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    counter = randomBytes(2).readUInt16BE(0) & 0x3ff; // leaves room to count up within the millisecond
  } else if (++counter > 0xfff) {
    lastMs++;
    counter = 0;
  }
  const b = randomBytes(16);
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
  await db
    .insertInto('webhooks')
    .values({
      id,
      merchant_id: w.merchantId,
      kind: w.kind,
      ref_id: w.refId,
      url: w.url,
      body: w.body,
      status: 'pending',
      attempts: 0,
      next_attempt_at: w.now,
      allow_private: w.allowPrivate ? 1 : 0,
      created_at: w.now,
      delivered_at: null,
      last_status: null,
      last_error: null,
    })
    .execute();
  return id;
}
