// The ledger's consistency checks, for `satchel ledger verify` and the crash tests: every balance
// equals the sum of its ledger entries, every payout that debits the merchant has its debit in the
// ledger, and no payout has more than one live chain transaction (two would mean it was paid
// twice). Each finding is one line; the caller decides what to do with them. Amounts are compared
// as exact decimals, never as numbers.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { Decimal } from '../money/decimal.ts';

export interface LedgerReport {
  balances: number;
  payouts: number;
  mismatches: string[];
}

/** Entries are summed a page at a time, so a large ledger never sits in memory at once. */
const PAGE = 5000;
/** Outgoing transactions in these states no longer pay anything (superseded or never mined). */
const DEAD_TX_STATES = ['replaced', 'dropped', 'expired', 'failed', 'orphaned'];

const balanceKey = (merchant: string, wallet: string, currency: string) => `${merchant} ${wallet} ${currency}`;

export async function verifyLedger(db: Kysely<DB>): Promise<LedgerReport> {
  const mismatches: string[] = [];

  // 1. Balances against the sums of their entries (both ways: an entry sum with no balance row too).
  const sums = new Map<string, Decimal>();
  let after = '';
  for (;;) {
    const rows = await db.selectFrom('ledger_entries').select(['id', 'merchant_id', 'kind', 'currency', 'amount']).where('id', '>', after).orderBy('id').limit(PAGE).execute();
    for (const r of rows) {
      const k = balanceKey(r.merchant_id, r.kind, r.currency);
      sums.set(k, (sums.get(k) ?? Decimal.ZERO).add(r.amount));
    }
    if (rows.length < PAGE) break;
    after = rows[rows.length - 1]!.id;
  }
  const balances = await db.selectFrom('balances').select(['merchant_id', 'kind', 'currency', 'amount']).orderBy('merchant_id').orderBy('kind').orderBy('currency').execute();
  for (const b of balances) {
    const k = balanceKey(b.merchant_id, b.kind, b.currency);
    const sum = sums.get(k) ?? Decimal.ZERO;
    sums.delete(k);
    if (!Decimal.parse(b.amount).eq(sum)) mismatches.push(`balance ${k}: stored ${b.amount}, ledger sums to ${sum.toString()}`);
  }
  for (const [k, sum] of sums) if (!sum.eq(Decimal.ZERO)) mismatches.push(`balance ${k}: no balance row, ledger sums to ${sum.toString()}`);

  // 2. Every payout that takes money from the merchant has its debit (reason = the payout's kind).
  const payouts = await db.selectFrom('payouts').select(['id', 'kind', 'merchant_id', 'merchant_amount', 'debit_currency']).orderBy('created_at').orderBy('id').execute();
  const kinds = [...new Set(payouts.map((p) => p.kind))];
  const debits = kinds.length === 0 ? [] : await db.selectFrom('ledger_entries').select(['ref_id', 'reason', 'amount', 'currency', 'merchant_id']).where('ref_kind', 'in', kinds).execute();
  const debitOf = new Map<string, { amount: string; currency: string; merchant_id: string }>();
  for (const d of debits) if (Decimal.parse(d.amount).lt(Decimal.ZERO)) debitOf.set(`${d.ref_id} ${d.reason}`, d);
  for (const p of payouts) {
    const owed = Decimal.parse(p.merchant_amount);
    if (!owed.gt(Decimal.ZERO)) continue;
    const d = debitOf.get(`${p.id} ${p.kind}`);
    if (!d) mismatches.push(`payout ${p.id} (${p.kind}): no debit of ${p.merchant_amount} ${p.debit_currency} in the ledger`);
    else if (!Decimal.parse(d.amount).neg().eq(owed) || d.currency !== p.debit_currency || d.merchant_id !== p.merchant_id) {
      mismatches.push(`payout ${p.id} (${p.kind}): debit is ${d.amount} ${d.currency}, expected -${p.merchant_amount} ${p.debit_currency}`);
    }
  }

  // 3. At most one live chain transaction per payout (`request_id`), whatever the chain family.
  const live = new Map<string, string[]>();
  const outgoing = await db.selectFrom('scan_outgoing').select(['request_id', 'txid', 'status']).where('status', 'not in', DEAD_TX_STATES).orderBy('request_id').orderBy('attempt').orderBy('id').execute();
  for (const r of outgoing) live.set(r.request_id, [...(live.get(r.request_id) ?? []), r.txid]);
  for (const p of payouts) {
    const txids = live.get(p.id) ?? [];
    if (txids.length > 1) mismatches.push(`payout ${p.id} (${p.kind}): ${txids.length} chain transactions: ${txids.join(', ')}`);
  }

  return { balances: balances.length, payouts: payouts.length, mismatches };
}
