// The float's transactions byte for byte against @solana/kit (the independent client), and run on
// LiteSVM (the real runtime): a SOL transfer, and a token payout that creates the recipient's
// associated token account.
import { describe, expect, it } from 'vitest';
import { base58 } from '@scure/base';
import { FailedTransactionMetadata } from 'litesvm';
import {
  appendTransactionMessageInstructions,
  createTransactionMessage,
  getTransactionDecoder,
  getTransactionEncoder,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Blockhash,
} from '@solana/kit';
import { getTransferSolInstruction, SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import { ASSOCIATED_TOKEN_PROGRAM_ADDRESS, getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import { compactU16, compileMessage, readCompactU16, signMessage, splitTransaction } from '../../../src/chain/solana/tx.ts';
import { createAssociatedTokenIdempotent, systemTransfer, transferChecked } from '../../../src/chain/solana/instructions.ts';
import { ataOf, fund, giveTokens, makeMint, newSvm, SPL_TOKEN, testKey, tokenBalance } from './payout-svm.ts';

const k = (a: string) => base58.decode(a);

async function kitWire(payer: Awaited<ReturnType<typeof testKey>>, blockhash: string, instructions: Parameters<typeof appendTransactionMessageInstructions>[0]): Promise<Uint8Array> {
  const signed = await pipe(
    createTransactionMessage({ version: 'legacy' }),
    (m) => setTransactionMessageFeePayerSigner(payer.signer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash as Blockhash, lastValidBlockHeight: 1000n }, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
    (m) => signTransactionMessageWithSigners(m),
  );
  return new Uint8Array(getTransactionEncoder().encode(signed));
}

describe('compact-u16', () => {
  it('encodes and reads back the boundaries', () => {
    for (const [n, bytes] of [
      [0, [0]],
      [0x7f, [0x7f]],
      [0x80, [0x80, 0x01]],
      [0x3fff, [0xff, 0x7f]],
      [0x4000, [0x80, 0x80, 0x01]],
      [0xffff, [0xff, 0xff, 0x03]],
    ] as const) {
      expect([...compactU16(n)]).toEqual(bytes);
      expect(readCompactU16(Uint8Array.from(bytes), 0)).toEqual({ value: n, next: bytes.length });
    }
    expect(() => compactU16(0x10000)).toThrow(RangeError);
    expect(() => readCompactU16(Uint8Array.of(0x80, 0x00), 0)).toThrow(/shortest/);
    expect(() => readCompactU16(Uint8Array.of(0xff, 0xff, 0xff), 0)).toThrow(RangeError);
  });
});

describe('float transactions', () => {
  it('a SOL transfer: the same bytes as @solana/kit, executed exactly on LiteSVM', async () => {
    const svm = newSvm();
    const float = await testKey(7);
    const to = await testKey(8);
    fund(svm, float.address, 5_000_000_000n);
    const blockhash = svm.latestBlockhash();
    const msg = compileMessage(float.publicKey, [systemTransfer(k(SYSTEM_PROGRAM_ADDRESS), float.publicKey, to.publicKey, 1_234_567_891n)], k(blockhash));
    const tx = signMessage(msg, float.seed);
    const theirs = await kitWire(float, blockhash, [getTransferSolInstruction({ source: float.signer, destination: to.address, amount: lamports(1_234_567_891n) })]);
    expect(Buffer.from(tx.wire).toString('hex')).toBe(Buffer.from(theirs).toString('hex'));
    expect(splitTransaction(tx.wire).signature).toBe(tx.signature);
    const r = svm.sendTransaction(getTransactionDecoder().decode(tx.wire));
    expect(r).not.toBeInstanceOf(FailedTransactionMetadata);
    expect(svm.getBalance(to.address)).toBe(1_234_567_891n);
    expect(svm.getBalance(float.address)).toBe(5_000_000_000n - 1_234_567_891n - 5000n);
  });

  it('a token payout that creates the missing token account: kit\'s bytes, executed on LiteSVM', async () => {
    const svm = newSvm();
    const float = await testKey(9);
    const to = await testKey(10);
    const mint = (await testKey(11)).address;
    fund(svm, float.address, 1_000_000_000n);
    makeMint(svm, mint, 6, float.address);
    const source = await giveTokens(svm, float.address, mint, 50_000_000n);
    const dest = await ataOf(to.address, mint);
    const blockhash = svm.latestBlockhash();
    const ours = [
      createAssociatedTokenIdempotent(k(ASSOCIATED_TOKEN_PROGRAM_ADDRESS), { payer: float.publicKey, account: k(dest), owner: to.publicKey, mint: k(mint), systemProgram: k(SYSTEM_PROGRAM_ADDRESS), tokenProgram: k(SPL_TOKEN) }),
      transferChecked(k(SPL_TOKEN), { source: k(source), mint: k(mint), destination: k(dest), owner: float.publicKey, amount: 12_345_678n, decimals: 6 }),
    ];
    const tx = signMessage(compileMessage(float.publicKey, ours, k(blockhash)), float.seed);
    const theirs = await kitWire(float, blockhash, [
      getCreateAssociatedTokenIdempotentInstruction({ payer: float.signer, ata: dest, owner: to.address, mint }),
      getTransferCheckedInstruction({ source, mint, destination: dest, authority: float.signer, amount: 12_345_678n, decimals: 6 }),
    ]);
    expect(Buffer.from(tx.wire).toString('hex')).toBe(Buffer.from(theirs).toString('hex'));
    expect(tokenBalance(svm, dest)).toBeNull();
    const r = svm.sendTransaction(getTransactionDecoder().decode(tx.wire));
    if (r instanceof FailedTransactionMetadata) throw new Error(String(r.err()));
    expect(tokenBalance(svm, dest)).toBe(12_345_678n);
    expect(tokenBalance(svm, source)).toBe(50_000_000n - 12_345_678n);
    // The rent of the new account (165 bytes) and the fee came from the float.
    expect(svm.getBalance(float.address)).toBe(1_000_000_000n - svm.minimumBalanceForRentExemption(165n) - 5000n);
  });

  it('transferChecked with the wrong decimals is refused by the token program', async () => {
    const svm = newSvm();
    const float = await testKey(12);
    const mint = (await testKey(13)).address;
    const to = await testKey(14);
    fund(svm, float.address, 1_000_000_000n);
    makeMint(svm, mint, 6, float.address);
    const source = await giveTokens(svm, float.address, mint, 1_000n);
    const dest = await giveTokens(svm, to.address, mint, 0n);
    const tx = signMessage(compileMessage(float.publicKey, [transferChecked(k(SPL_TOKEN), { source: k(source), mint: k(mint), destination: k(dest), owner: float.publicKey, amount: 10n, decimals: 9 })], k(svm.latestBlockhash())), float.seed);
    expect(svm.sendTransaction(getTransactionDecoder().decode(tx.wire))).toBeInstanceOf(FailedTransactionMetadata);
    expect(tokenBalance(svm, dest)).toBe(0n);
  });

  it('refuses what the float cannot sign alone, keys that are not 32 bytes, amounts past u64', async () => {
    const float = await testKey(15);
    const other = await testKey(16);
    const bh = new Uint8Array(32).fill(1);
    const two = compileMessage(float.publicKey, [systemTransfer(new Uint8Array(32), other.publicKey, float.publicKey, 1n)], bh);
    expect(() => signMessage(two, float.seed)).toThrow(/its signature only/);
    expect(() => compileMessage(new Uint8Array(31), [], bh)).toThrow(/32-byte/);
    expect(() => systemTransfer(new Uint8Array(32), float.publicKey, other.publicKey, 2n ** 64n)).toThrow(/u64/);
    expect(() => systemTransfer(new Uint8Array(32), float.publicKey, other.publicKey, -1n)).toThrow(/u64/);
  });
});
