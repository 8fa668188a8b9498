// The in-memory match of one transaction against a wallet's references (src/chain/solana/transfers.ts),
// on transactions no honest runtime makes but a confused wallet or a program could: instructions that
// claim more than arrived, credits capped in instruction order, a token balance of another mint or
// owner, and a failed transaction.
import { describe, expect, it } from 'vitest';
import { base58 } from '@scure/base';
import { matchTransaction, type WalletWatch } from '../../../src/chain/solana/transfers.ts';
import type { SolanaTx } from '../../../src/chain/solana/answers.ts';
import { SYSTEM_PROGRAM_ID, TOKEN_PROGRAM_ID } from '../../../src/chain/solana/address.ts';

const key = (n: number) => base58.encode(new Uint8Array(32).fill(n));
const [PAYER, WALLET, REF_A, REF_B, ATA, MINT, OTHER_MINT] = [1, 2, 3, 4, 5, 6, 7].map(key) as [string, string, string, string, string, string, string];
const u64 = (v: bigint) => Array.from({ length: 8 }, (_, i) => Number((v >> BigInt(8 * i)) & 0xffn));
const solIx = (amount: bigint, refs: string[]) => ({ programId: SYSTEM_PROGRAM_ID, accounts: [PAYER, WALLET, ...refs], data: Uint8Array.from([2, 0, 0, 0, ...u64(amount)]) });
const tokIx = (amount: bigint, mint: string, refs: string[]) => ({ programId: TOKEN_PROGRAM_ID, accounts: [key(9), mint, ATA, PAYER, ...refs], data: Uint8Array.from([12, ...u64(amount), 6]) });
const watch: WalletWatch = { wallet: WALLET, refs: new Map([[REF_A, 'a'], [REF_B, 'b']]), tokens: [{ code: 'USDC', mint: MINT, decimals: 6, ata: ATA }] };
const SOL = { code: 'SOL', decimals: 9 };

function tx(p: Partial<SolanaTx>): SolanaTx {
  return { signature: 'sig', slot: 1, err: null, accountKeys: [PAYER, WALLET, SYSTEM_PROGRAM_ID, REF_A, REF_B], preBalances: [10n ** 12n, 0n, 1n, 0n, 0n], postBalances: [10n ** 12n, 0n, 1n, 0n, 0n], preTokenBalances: [], postTokenBalances: [], instructions: [], ...p };
}

describe('solana transfer matching', () => {
  it('two references each credited their own amount, capped in order by what reached the wallet', () => {
    const both = tx({ instructions: [solIx(300n, [REF_A]), solIx(400n, [REF_B])], postBalances: [0n, 700n, 1n, 0n, 0n] });
    expect(matchTransaction(both, watch, SOL).map((p) => [p.to, p.amount, p.idx])).toEqual([['a', '0.0000003', 0], ['b', '0.0000004', 1]]);
    // Only 500 arrived (something took 200 back in the same transaction): the second gets what is left.
    const short = tx({ instructions: [solIx(300n, [REF_A]), solIx(400n, [REF_B])], postBalances: [0n, 500n, 1n, 0n, 0n] });
    expect(matchTransaction(short, watch, SOL).map((p) => [p.to, p.amount])).toEqual([['a', '0.0000003'], ['b', '0.0000002']]);
    // Nothing arrived at all: nothing credited.
    expect(matchTransaction(tx({ instructions: [solIx(300n, [REF_A])] }), watch, SOL)).toEqual([]);
  });

  it('what arrived beyond the credits is unmatched, with the unknown key as memo', () => {
    const stranger = key(8);
    const t = tx({ instructions: [solIx(300n, [REF_A]), solIx(50n, [stranger])], accountKeys: [PAYER, WALLET, SYSTEM_PROGRAM_ID, REF_A, stranger], postBalances: [0n, 350n, 1n, 0n, 0n] });
    expect(matchTransaction(t, watch, SOL).map((p) => [p.kind, p.to, p.amount, p.reason, p.memo])).toEqual([
      ['transfer', 'a', '0.0000003', null, null],
      ['unmatched', WALLET, '0.00000005', 'unknown_reference', stranger],
    ]);
  });

  it('a token credit needs the merchant ATA balance of the configured mint to grow; a failed transaction credits nothing', () => {
    const keys = [PAYER, WALLET, ATA, MINT, REF_A];
    const grow = (mint: string, owner: string) => ({ accountKeys: keys, preBalances: [1n, 1n, 1n, 1n, 0n], postBalances: [1n, 1n, 1n, 1n, 0n], postTokenBalances: [{ accountIndex: 2, mint, owner, amount: 5_000_000n, decimals: 6 }] });
    expect(matchTransaction(tx({ ...grow(MINT, WALLET), instructions: [tokIx(5_000_000n, MINT, [REF_A])] }), watch, SOL).map((p) => [p.currency, p.amount])).toEqual([['USDC', '5']]);
    expect(matchTransaction(tx({ ...grow(OTHER_MINT, WALLET), instructions: [tokIx(5_000_000n, MINT, [REF_A])] }), watch, SOL)).toEqual([]);
    expect(matchTransaction(tx({ ...grow(MINT, PAYER), instructions: [tokIx(5_000_000n, MINT, [REF_A])] }), watch, SOL)).toEqual([]);
    // transferChecked naming another mint does not count for USDC even if the balance moved.
    expect(matchTransaction(tx({ ...grow(MINT, WALLET), instructions: [tokIx(5_000_000n, OTHER_MINT, [REF_A])] }), watch, SOL).map((p) => p.kind)).toEqual(['unmatched']);
    expect(matchTransaction(tx({ ...grow(MINT, WALLET), err: { InstructionError: [0, { Custom: 1 }] }, instructions: [tokIx(5_000_000n, MINT, [REF_A])] }), watch, SOL)).toEqual([]);
  });
});
