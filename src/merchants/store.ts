import { randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB, MerchantsTable } from '../db/schema.ts';

export type Merchant = MerchantsTable;

function newKey(): string {
  return randomBytes(48).toString('base64url');
}

export async function createMerchant(db: Kysely<DB>, name: string, now = Date.now()): Promise<Merchant> {
  const m: Merchant = {
    id: randomUUID(),
    name,
    payment_key: newKey(),
    payout_key: newKey(),
    is_blocked: 0,
    created_at: now,
  };
  await db.insertInto('merchants').values(m).execute();
  return m;
}

export async function findMerchant(db: Kysely<DB>, id: string): Promise<Merchant | undefined> {
  return db.selectFrom('merchants').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listMerchants(db: Kysely<DB>): Promise<Merchant[]> {
  return db.selectFrom('merchants').selectAll().orderBy('created_at').execute();
}

export async function setMerchantBlocked(db: Kysely<DB>, id: string, blocked: boolean): Promise<boolean> {
  const r = await db.updateTable('merchants').set({ is_blocked: blocked ? 1 : 0 }).where('id', '=', id).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Merchants are read on every signed request; a short-lived cache keeps that off the database.
 * A block made by the CLI in another process takes effect within `ttlMs`. */
export class MerchantCache {
  private readonly entries = new Map<string, { at: number; merchant: Merchant | undefined }>();
  constructor(
    private readonly db: Kysely<DB>,
    private readonly ttlMs = 2000,
  ) {}

  async get(id: string): Promise<Merchant | undefined> {
    const now = Date.now();
    const hit = this.entries.get(id);
    if (hit && now - hit.at < this.ttlMs) return hit.merchant;
    const merchant = await findMerchant(this.db, id);
    if (this.entries.size > 10_000) this.entries.clear();
    this.entries.set(id, { at: now, merchant });
    return merchant;
  }

  invalidate(id: string): void {
    this.entries.delete(id);
  }
}

/**
 * Replaces one of the merchant's API keys if it is still `expected` (the key itself is its own
 * version: a compare-and-swap in one statement, so of two rotations that both started from the
 * same key exactly one wins, on every process). Returns the new key, which is shown once and never
 * again, or null when the key had changed meanwhile (nothing is written then). The old key stops
 * working at once (caches: call `MerchantCache.invalidate`).
 */
export async function rotateMerchantKey(db: Kysely<DB>, id: string, kind: 'payment' | 'payout', expected: string): Promise<string | null> {
  const key = newKey();
  const column = kind === 'payment' ? 'payment_key' : 'payout_key';
  const r = await db.updateTable('merchants').set({ [column]: key }).where('id', '=', id).where(column, '=', expected).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1 ? key : null;
}

/** Which keys may sign a merchant's refunds: the payout key (the spec's rule), or either key. */
export const REFUND_KEY_SETTINGS = ['payout', 'either'] as const;
export type RefundKeySetting = (typeof REFUND_KEY_SETTINGS)[number];

export function refundKeySetting(m: Merchant): RefundKeySetting {
  return m.refund_key === 'either' ? 'either' : 'payout';
}

/**
 * The keys that may sign `/v1/payment/refund`. `either` lets whoever holds the payment key (often
 * embedded in a shop) refund paid invoices to any address, capped at what was paid: a merchant's
 * choice, made in the dashboard or the CLI, for SDKs that sign refunds with the payment key.
 */
export function refundKeys(m: Merchant): ReadonlyArray<'payment' | 'payout'> {
  return refundKeySetting(m) === 'either' ? ['payout', 'payment'] : ['payout'];
}

/** The setting a form or command line names, or null when it names none of them. */
export function parseRefundKeySetting(v: unknown): RefundKeySetting | null {
  return typeof v === 'string' && (REFUND_KEY_SETTINGS as readonly string[]).includes(v) ? (v as RefundKeySetting) : null;
}

/** Stores the refund-key setting (already validated); false when there is no such merchant. */
export async function setRefundKeySetting(db: Kysely<DB>, id: string, setting: RefundKeySetting): Promise<boolean> {
  const r = await db.updateTable('merchants').set({ refund_key: setting }).where('id', '=', id).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Whether payers who gave an email get the subscription emails (docs/recurring.md); off by default. */
export function payerEmailsOn(m: Merchant): boolean {
  return Number(m.payer_emails ?? 0) === 1;
}

/** Turns the payer emails of subscriptions on or off; false when there is no such merchant. */
export async function setPayerEmails(db: Kysely<DB>, id: string, on: boolean): Promise<boolean> {
  const r = await db.updateTable('merchants').set({ payer_emails: on ? 1 : 0 }).where('id', '=', id).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export interface MerchantDefaults {
  url_callback: string | null;
  url_return: string | null;
  url_success: string | null;
}

/** The merchant's default URLs, as invoices and static wallets created without their own take them. */
export function merchantDefaults(m: Merchant): MerchantDefaults {
  return { url_callback: m.default_url_callback ?? null, url_return: m.default_url_return ?? null, url_success: m.default_url_success ?? null };
}

/** Stores already validated default URLs (null clears one). */
export async function setMerchantDefaults(db: Kysely<DB>, id: string, d: MerchantDefaults): Promise<void> {
  await db
    .updateTable('merchants')
    .set({ default_url_callback: d.url_callback, default_url_return: d.url_return, default_url_success: d.url_success })
    .where('id', '=', id)
    .execute();
}
