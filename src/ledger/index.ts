// The append-only ledger (D5): every credit and debit is an entry written in the same transaction
// as the change that causes it; balances never go negative; a balance equals the sum of its entries.
import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Storage } from '../db/dialect.ts';
import { Decimal } from '../money/decimal.ts';

export type Wallet = 'business' | 'personal';

export class InsufficientFunds extends Error {
  constructor(
    readonly currency: string,
    readonly available: string,
  ) {
    super(`Insufficient ${currency} balance`);
  }
}

export interface Movement {
  merchantId: string;
  wallet: Wallet;
  currency: string;
  /** Signed decimal: positive credits, negative debits. */
  amount: string;
  reason: string;
  ref: { kind: string; id: string };
  /** Idempotency key: a second post with the same key changes nothing. */
  key: string;
  now: number;
}

/**
 * Books one movement inside `trx` (which the caller opened). Returns the new balance, or null if
 * the key was already booked. Throws InsufficientFunds when a debit would go below zero.
 */
export async function post(storage: Storage, trx: Transaction<DB>, m: Movement): Promise<string | null> {
  const currency = m.currency.toUpperCase();
  const seen = await trx.selectFrom('ledger_entries').select('id').where('key', '=', m.key).executeTakeFirst();
  if (seen) return null;
  // Create the balance row first so that there is always a row to lock.
  await trx
    .insertInto('balances')
    .values({ merchant_id: m.merchantId, kind: m.wallet, currency, amount: '0', updated_at: m.now })
    .onConflict((oc) => oc.columns(['merchant_id', 'kind', 'currency']).doNothing())
    .execute();
  const row = await storage
    .forUpdate(
      trx
        .selectFrom('balances')
        .select('amount')
        .where('merchant_id', '=', m.merchantId)
        .where('kind', '=', m.wallet)
        .where('currency', '=', currency),
    )
    .executeTakeFirstOrThrow();
  const next = Decimal.parse(row.amount).add(m.amount);
  if (next.isNegative()) throw new InsufficientFunds(currency, row.amount);
  const after = next.toString();
  await trx
    .updateTable('balances')
    .set({ amount: after, updated_at: m.now })
    .where('merchant_id', '=', m.merchantId)
    .where('kind', '=', m.wallet)
    .where('currency', '=', currency)
    .execute();
  await trx
    .insertInto('ledger_entries')
    .values({
      id: randomUUID(),
      merchant_id: m.merchantId,
      kind: m.wallet,
      currency,
      amount: Decimal.parse(m.amount).toString(),
      balance_after: after,
      reason: m.reason,
      ref_kind: m.ref.kind,
      ref_id: m.ref.id,
      key: m.key,
      created_at: m.now,
    })
    .execute();
  return after;
}

export async function balanceOf(db: Kysely<DB> | Transaction<DB>, merchantId: string, wallet: Wallet, currency: string): Promise<string> {
  const row = await db
    .selectFrom('balances')
    .select('amount')
    .where('merchant_id', '=', merchantId)
    .where('kind', '=', wallet)
    .where('currency', '=', currency.toUpperCase())
    .executeTakeFirst();
  return row ? Decimal.parse(row.amount).toString() : '0';
}

export async function balances(db: Kysely<DB>, merchantId: string, wallet?: Wallet): Promise<Array<{ wallet: string; currency: string; amount: string }>> {
  let q = db.selectFrom('balances').select(['kind', 'currency', 'amount']).where('merchant_id', '=', merchantId);
  if (wallet) q = q.where('kind', '=', wallet);
  const rows = await q.orderBy('currency').execute();
  return rows.map((r) => ({ wallet: r.kind, currency: r.currency, amount: r.amount }));
}

/** Sum of the entries of one balance (for audits and the ledger property test). */
export async function entriesSum(db: Kysely<DB>, merchantId: string, wallet: Wallet, currency: string): Promise<string> {
  const rows = await db
    .selectFrom('ledger_entries')
    .select('amount')
    .where('merchant_id', '=', merchantId)
    .where('kind', '=', wallet)
    .where('currency', '=', currency.toUpperCase())
    .execute();
  return rows.reduce((s, r) => s.add(r.amount), Decimal.ZERO).toString();
}

/**
 * Locks balances of one merchant and currency, in the order given (creating the missing ones at
 * zero), for a change that moves several of them: callers that take them in one fixed order cannot
 * each hold one and wait for the other.
 */
export async function lockBalances(storage: Storage, trx: Transaction<DB>, merchantId: string, wallets: readonly Wallet[], currency: string, now: number): Promise<void> {
  for (const kind of wallets) {
    await trx
      .insertInto('balances')
      .values({ merchant_id: merchantId, kind, currency, amount: '0', updated_at: now })
      .onConflict((oc) => oc.columns(['merchant_id', 'kind', 'currency']).doNothing())
      .execute();
    await storage
      .forUpdate(trx.selectFrom('balances').select('amount').where('merchant_id', '=', merchantId).where('kind', '=', kind).where('currency', '=', currency))
      .execute();
  }
}

/** The entries booked under these idempotency keys (its id, wallet and the balance after it). */
export async function entriesByKey(db: Kysely<DB> | Transaction<DB>, keys: string[]): Promise<Array<{ id: string; key: string; wallet: Wallet; balanceAfter: string }>> {
  if (keys.length === 0) return [];
  const rows = await db.selectFrom('ledger_entries').select(['id', 'key', 'kind', 'balance_after']).where('key', 'in', keys).execute();
  return rows.map((r) => ({ id: r.id, key: r.key, wallet: r.kind as Wallet, balanceAfter: r.balance_after }));
}
