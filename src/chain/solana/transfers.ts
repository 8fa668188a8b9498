// What one transaction paid a merchant wallet, matched in memory against the wallet's open
// references (Solana Pay: the reference rides as an extra read-only account key of the transfer
// instruction). Rules:
// - a failed transaction (meta.err) pays nothing;
// - a System transfer to the wallet, or an SPL Token transfer/transferChecked into the wallet's
//   associated token account of a configured mint (transferChecked must name that mint), whose
//   extra accounts list a watched reference credits that invoice its instruction's amount;
// - all credits of one currency are capped by what actually reached the merchant in the
//   transaction: the wallet's lamport change for SOL; for a token, the change of the merchant's
//   ATA balance for that mint, read from the node's token balances (an entry of another mint or
//   another owner does not count). Credits are given in instruction order, so two invoices paid in
//   one transaction are each credited their own amount, and a transaction that takes back what
//   it sent (or pays less than its instructions say) credits no more than arrived;
// - what arrived beyond the credits is an unmatched payment: with the key a transfer listed that
//   is no watched reference (`unknown_reference`), or without any (`no_reference`).
// A token of another mint never reaches these accounts (its ATA is another address, not watched).
import { Decimal } from '../../money/decimal.ts';
import { SYSTEM_PROGRAM_ID, TOKEN_PROGRAM_ID } from './address.ts';
import type { SolanaTx } from './answers.ts';

export interface WatchedToken {
  code: string;
  mint: string;
  decimals: number;
  /** The merchant wallet's associated token account for this mint. */
  ata: string;
}

export interface WalletWatch {
  wallet: string;
  /** Reference key → deposit key. */
  refs: Map<string, string>;
  tokens: WatchedToken[];
}

export interface Payment {
  txid: string;
  /** The instruction index (transfer), or past the instructions (unmatched: one per currency). */
  idx: number;
  kind: 'transfer' | 'unmatched';
  currency: string;
  from: string | null;
  /** The deposit key (transfer) or the merchant wallet (unmatched; a token arrived at its ATA). */
  to: string;
  /** Decimal text in currency units. */
  amount: string;
  memo: string | null;
  reason: 'no_reference' | 'unknown_reference' | null;
}

function u64le(b: Uint8Array, at: number): bigint {
  let v = 0n;
  for (let i = 7; i >= 0; i--) v = (v << 8n) | BigInt(b[at + i]!);
  return v;
}

interface Leg {
  idx: number;
  /** 'SOL' side or a token's index in w.tokens. */
  pot: number;
  amount: bigint;
  from: string;
  extras: string[];
}

/** The transfer legs into the wallet (pot -1) or its watched ATAs (pot = token index). */
function legs(tx: SolanaTx, w: WalletWatch): Leg[] {
  const out: Leg[] = [];
  tx.instructions.forEach((ix, idx) => {
    const d = ix.data;
    const a = ix.accounts;
    if (ix.programId === SYSTEM_PROGRAM_ID && d.length === 12 && d[0] === 2 && d[1] === 0 && d[2] === 0 && d[3] === 0 && a.length >= 2 && a[1] === w.wallet) {
      out.push({ idx, pot: -1, amount: u64le(d, 4), from: a[0]!, extras: a.slice(2) });
      return;
    }
    if (ix.programId !== TOKEN_PROGRAM_ID) return;
    if (d.length === 10 && d[0] === 12 && a.length >= 4) {
      const pot = w.tokens.findIndex((t) => t.ata === a[2] && t.mint === a[1] && t.decimals === d[9]);
      if (pot >= 0) out.push({ idx, pot, amount: u64le(d, 1), from: a[3]!, extras: a.slice(4) });
      return;
    }
    if (d.length === 9 && d[0] === 3 && a.length >= 3) {
      const pot = w.tokens.findIndex((t) => t.ata === a[1]);
      if (pot >= 0) out.push({ idx, pot, amount: u64le(d, 1), from: a[2]!, extras: a.slice(3) });
    }
  });
  return out;
}

/** What reached each pot in the transaction (negative or zero: nothing arrived). */
function arrived(tx: SolanaTx, w: WalletWatch, pot: number): bigint {
  if (pot < 0) {
    const i = tx.accountKeys.indexOf(w.wallet);
    return i < 0 ? 0n : tx.postBalances[i]! - tx.preBalances[i]!;
  }
  const t = w.tokens[pot]!;
  const i = tx.accountKeys.indexOf(t.ata);
  if (i < 0) return 0n;
  const bal = (list: SolanaTx['preTokenBalances']) => {
    const e = list.find((b) => b.accountIndex === i);
    // Only the merchant's account of the configured mint counts.
    if (!e || e.mint !== t.mint || (e.owner !== null && e.owner !== w.wallet)) return 0n;
    return e.amount;
  };
  return bal(tx.postTokenBalances) - bal(tx.preTokenBalances);
}

export function matchTransaction(tx: SolanaTx, w: WalletWatch, native: { code: string; decimals: number }): Payment[] {
  if (tx.err !== null) return [];
  const all = legs(tx, w);
  const out: Payment[] = [];
  const pots = [-1, ...w.tokens.map((_, k) => k)];
  for (const pot of pots) {
    const currency = pot < 0 ? native.code : w.tokens[pot]!.code;
    const decimals = pot < 0 ? native.decimals : w.tokens[pot]!.decimals;
    let left = arrived(tx, w, pot);
    if (left <= 0n) continue;
    let stranger: Leg | null = null;
    for (const leg of all.filter((l) => l.pot === pot)) {
      const ref = leg.extras.find((k) => w.refs.has(k));
      if (ref === undefined) {
        stranger ??= leg;
        continue;
      }
      const credit = leg.amount < left ? leg.amount : left;
      if (credit <= 0n) continue;
      left -= credit;
      out.push({ txid: tx.signature, idx: leg.idx, kind: 'transfer', currency, from: leg.from, to: w.refs.get(ref)!, amount: Decimal.fromBaseUnits(credit, decimals).toString(), memo: null, reason: null });
    }
    if (left > 0n) {
      const memo = stranger?.extras[0] ?? null;
      out.push({
        txid: tx.signature,
        idx: tx.instructions.length + 1 + pot,
        kind: 'unmatched',
        currency,
        from: stranger?.from ?? tx.accountKeys[0] ?? null,
        // The wallet, as the merchant's custody material names it (a token arrived at its ATA).
        to: w.wallet,
        amount: Decimal.fromBaseUnits(left, decimals).toString(),
        memo,
        reason: memo === null ? 'no_reference' : 'unknown_reference',
      });
    }
  }
  return out;
}
