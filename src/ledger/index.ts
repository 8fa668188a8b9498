// The append-only ledger (docs/money.md): every credit and debit is an entry written in the same
// transaction as the change that causes it; balances never go negative; a balance equals the sum of
// its entries.
import { randomUUID } from 'node:crypto';
import type { Insertable, Kysely, Transaction } from 'kysely';
import type { DB, LedgerEntriesTable } from '../db/schema.ts';
import { statement } from '../db/statement.ts';
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

const bookedKey = statement<{ key: string }, { id: string }>((db, p) => db.selectFrom('ledger_entries').select('id').where('key', '=', p.key));
const lockBalance = statement<{ merchant_id: string; kind: Wallet; currency: string }, { amount: string }>((db, p, dialect) => {
  const q = db.selectFrom('balances').select('amount').where('merchant_id', '=', p.merchant_id).where('kind', '=', p.kind).where('currency', '=', p.currency);
  return dialect.forUpdate(q);
});
const createBalance = statement<{ merchant_id: string; kind: Wallet; currency: string; updated_at: number }>((db, p) =>
  db
    .insertInto('balances')
    .values({ merchant_id: p.merchant_id, kind: p.kind, currency: p.currency, amount: '0', updated_at: p.updated_at })
    .onConflict((oc) => oc.columns(['merchant_id', 'kind', 'currency']).doNothing()),
);
const setBalance = statement<{ merchant_id: string; kind: Wallet; currency: string; amount: string; updated_at: number }>((db, p) =>
  db
    .updateTable('balances')
    .set({ amount: p.amount, updated_at: p.updated_at })
    .where('merchant_id', '=', p.merchant_id)
    .where('kind', '=', p.kind)
    .where('currency', '=', p.currency),
);
const insertEntry = statement<Insertable<LedgerEntriesTable>>((db, p) =>
  db.insertInto('ledger_entries').values({
    id: p.id,
    merchant_id: p.merchant_id,
    kind: p.kind,
    currency: p.currency,
    amount: p.amount,
    balance_after: p.balance_after,
    reason: p.reason,
    ref_kind: p.ref_kind,
    ref_id: p.ref_id,
    key: p.key,
    created_at: p.created_at,
  }),
);

/**
 * Books one movement inside `trx` (which the caller opened). Returns the new balance, or null if
 * the key was already booked. Throws InsufficientFunds when a debit would go below zero.
 */
export async function post(trx: Transaction<DB>, m: Movement): Promise<string | null> {
  const currency = m.currency.toUpperCase();
  if ((await bookedKey(trx, { key: m.key })).rows.length > 0) return null;
  const balance = { merchant_id: m.merchantId, kind: m.wallet, currency };
  let row = (await lockBalance(trx, balance)).rows[0];
  if (!row) {
    // The first movement of this balance: create its row (or find the one a concurrent
    // transaction just created), then lock it.
    await createBalance(trx, { ...balance, updated_at: m.now });
    row = (await lockBalance(trx, balance)).rows[0];
    if (!row) throw new Error(`balance row missing for ${m.merchantId} ${m.wallet} ${currency}`);
  }
  const next = Decimal.parse(row.amount).add(m.amount);
  if (next.isNegative()) throw new InsufficientFunds(currency, row.amount);
  const after = next.toString();
  await setBalance(trx, { ...balance, amount: after, updated_at: m.now });
  await insertEntry(trx, {
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
  });
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
