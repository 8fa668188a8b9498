// The ledger's one invariant checked over a whole database: every balance equals the sum of its
// entries (an entry without a balance row, or a balance without entries that is not zero, is a
// mismatch too). Used to verify a copied database before it is committed (`satchel db copy`).
// Entries are read a chunk at a time by id, so memory grows with the number of balances, not of
// entries; amounts are summed as exact decimals, never as JavaScript numbers.
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { Decimal } from '../money/decimal.ts';

const keyOf = (r: { merchant_id: string; kind: string; currency: string }) => `${r.merchant_id} ${r.kind} ${r.currency}`;

/** One line per balance whose amount differs from the sum of its ledger entries (none: all agree). */
export async function ledgerMismatches(db: Kysely<DB> | Transaction<DB>, chunk = 5000): Promise<string[]> {
  const sums = new Map<string, Decimal>();
  let after: string | null = null;
  for (;;) {
    let q = db.selectFrom('ledger_entries').select(['id', 'merchant_id', 'kind', 'currency', 'amount']).orderBy('id').limit(chunk);
    if (after !== null) q = q.where('id', '>', after);
    const rows = await q.execute();
    for (const r of rows) sums.set(keyOf(r), (sums.get(keyOf(r)) ?? Decimal.ZERO).add(r.amount));
    if (rows.length < chunk) break;
    after = rows[rows.length - 1]!.id;
  }
  const problems: string[] = [];
  const balances = await db.selectFrom('balances').select(['merchant_id', 'kind', 'currency', 'amount']).execute();
  for (const b of balances) {
    const key = keyOf(b);
    const sum = sums.get(key) ?? Decimal.ZERO;
    sums.delete(key);
    if (!Decimal.parse(b.amount).eq(sum)) {
      problems.push(`balance ${b.merchant_id} ${b.kind} ${b.currency} is ${b.amount} but its ledger entries sum to ${sum.toString()}`);
    }
  }
  for (const [key, sum] of sums) problems.push(`ledger entries of ${key} sum to ${sum.toString()} but there is no balance row`);
  return problems;
}
