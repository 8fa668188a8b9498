import { describe, expect, it } from 'vitest';
import { base58 } from '@scure/base';
import { ed25519 } from '@noble/curves/ed25519.js';
import { address as kitAddress, getProgramDerivedAddress, isOffCurveAddress } from '@solana/kit';
import { findAssociatedTokenPda } from '@solana-program/token';
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  SolanaAddressError,
  SYSTEM_PROGRAM_ID,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  associatedTokenAddress,
  findProgramAddress,
  isOnCurve,
  isSolanaKey,
  parseSolanaKey,
  solanaKeyText,
} from '../../../src/chain/solana/address.ts';

const USDC = 'EPjFWdd5AufqSSqeM2qFLdkdsQn7y3WR1jQoNtaA5CTs';
const USDT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';

/** A deterministic stream of bytes (no Math.random: a failure must repeat). */
function bytesAt(i: number, n = 32): Uint8Array {
  const out = new Uint8Array(n);
  let x = (i + 1) * 2654435761;
  for (let k = 0; k < n; k++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[k] = x >>> 24;
  }
  return out;
}

function wallet(i: number): string {
  return base58.encode(ed25519.getPublicKey(bytesAt(i)));
}

describe('parseSolanaKey', () => {
  it('reads 32-byte base58 keys, the program ids included', () => {
    for (const id of [SYSTEM_PROGRAM_ID, TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID, ASSOCIATED_TOKEN_PROGRAM_ID, USDC, wallet(1)]) {
      expect(solanaKeyText(parseSolanaKey(id))).toBe(id);
    }
    expect(parseSolanaKey(SYSTEM_PROGRAM_ID)).toEqual(new Uint8Array(32));
  });

  it('refuses malformed text with SolanaAddressError, without echoing it', () => {
    const cases = ['', '   ', 'abc', `${USDC}x`, USDC.replace('E', '0'), USDC.replace('E', 'l'), `${USDC.slice(0, 40)}OOOO`, ` ${USDC}`, `0x${'ab'.repeat(32)}`, base58.encode(new Uint8Array(31).fill(9)), base58.encode(new Uint8Array(33).fill(255))];
    for (const text of cases) {
      let error: unknown;
      try {
        parseSolanaKey(text);
      } catch (e) {
        error = e;
      }
      expect(error, text).toBeInstanceOf(SolanaAddressError);
      if (text.trim().length > 3) expect((error as Error).message).not.toContain(text.trim());
      expect(isSolanaKey(text)).toBe(false);
    }
  });

  it('refuses a huge input by its length, before decoding it', () => {
    const huge = '2'.repeat(1_000_000);
    expect(() => parseSolanaKey(huge)).toThrow(/far more/);
    expect(() => parseSolanaKey(123 as unknown as string)).toThrow(SolanaAddressError);
  });
});

describe('isOnCurve', () => {
  it('is true for wallet public keys and false for program-derived addresses', async () => {
    for (let i = 0; i < 20; i++) expect(isOnCurve(parseSolanaKey(wallet(i)))).toBe(true);
    const [pda] = await getProgramDerivedAddress({ programAddress: kitAddress(TOKEN_PROGRAM_ID), seeds: ['anything'] });
    expect(isOnCurve(parseSolanaKey(pda))).toBe(false);
    expect(isOnCurve(new Uint8Array(31))).toBe(false);
  });

  it('agrees with @solana/kit on arbitrary 32-byte strings and on edge encodings', () => {
    const samples = Array.from({ length: 400 }, (_, i) => bytesAt(1000 + i));
    // y = 0 and y = 1 (with and without the sign bit), y = p and y = 2^255 - 1: encodings the
    // runtime's decompression and a strict decoder may read differently.
    const edge = (lowByte: number, high: number) => {
      const b = new Uint8Array(32).fill(0);
      b[0] = lowByte;
      b[31] = high;
      return b;
    };
    const p = new Uint8Array(32).fill(0xff);
    p[0] = 0xed;
    p[31] = 0x7f;
    samples.push(edge(0, 0), edge(0, 0x80), edge(1, 0), p, new Uint8Array(32).fill(0xff), Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? 0x7f : 0xff)));
    let on = 0;
    for (const b of samples) {
      const kitSays = !isOffCurveAddress(kitAddress(base58.encode(b)));
      expect(isOnCurve(b), base58.encode(b)).toBe(kitSays);
      if (kitSays) on++;
    }
    // Both kinds occur (about half of random strings are points), so the comparison means something.
    expect(on).toBeGreaterThan(50);
    expect(on).toBeLessThan(samples.length - 50);
  });

  it('takes a zero x with its sign bit set for a point, as the runtime\'s decompression does (@solana/kit does not)', () => {
    // y = 1 and y = p - 1 have x = 0; the sign bit set on them is a second encoding of the same
    // point. curve25519-dalek (the runtime) decompresses it; @solana/kit's check refuses it. Only
    // these encodings differ, and no sha256 output is expected to hit one.
    const one = new Uint8Array(32);
    one[0] = 1;
    one[31] = 0x80;
    const minusOne = new Uint8Array(32).fill(0xff);
    minusOne[0] = 0xec;
    for (const b of [one, minusOne]) {
      expect(isOnCurve(b)).toBe(true);
      expect(isOffCurveAddress(kitAddress(base58.encode(b)))).toBe(true);
      b[31]! &= 0x7f;
      expect(isOnCurve(b)).toBe(true);
      expect(isOffCurveAddress(kitAddress(base58.encode(b)))).toBe(false);
    }
  });
});

describe('findProgramAddress', () => {
  it('gives the address and bump @solana/kit gives, for several seed shapes', async () => {
    const cases: Array<{ seeds: Uint8Array[]; program: string }> = [
      { seeds: [], program: TOKEN_PROGRAM_ID },
      { seeds: [new TextEncoder().encode('metadata')], program: TOKEN_2022_PROGRAM_ID },
      { seeds: [bytesAt(7), new Uint8Array([1, 2, 3])], program: ASSOCIATED_TOKEN_PROGRAM_ID },
      { seeds: Array.from({ length: 15 }, (_, i) => bytesAt(i, i % 33)), program: SYSTEM_PROGRAM_ID },
    ];
    for (let i = 0; i < 30; i++) cases.push({ seeds: [bytesAt(50 + i), bytesAt(90 + i, 8)], program: wallet(i) });
    for (const c of cases) {
      const [expected, bump] = await getProgramDerivedAddress({ programAddress: kitAddress(c.program), seeds: c.seeds });
      const got = findProgramAddress(c.seeds, c.program);
      expect(got.address).toBe(expected);
      expect(got.bump).toBe(bump);
      expect(isOnCurve(got.bytes)).toBe(false);
    }
  });

  it('refuses seeds the runtime refuses', () => {
    expect(() => findProgramAddress([new Uint8Array(33)], TOKEN_PROGRAM_ID)).toThrow(SolanaAddressError);
    expect(() => findProgramAddress(Array.from({ length: 16 }, () => new Uint8Array(1)), TOKEN_PROGRAM_ID)).toThrow(SolanaAddressError);
    expect(() => findProgramAddress([], 'not a key')).toThrow(SolanaAddressError);
  });
});

describe('associatedTokenAddress', () => {
  it('is the associated token account @solana-program/token finds, under SPL Token and Token-2022', async () => {
    for (let i = 0; i < 12; i++) {
      for (const [mint, program] of [[USDC, TOKEN_PROGRAM_ID], [USDT, TOKEN_PROGRAM_ID], [wallet(200 + i), TOKEN_2022_PROGRAM_ID]] as const) {
        const owner = wallet(i);
        const [expected] = await findAssociatedTokenPda({ owner: kitAddress(owner), mint: kitAddress(mint), tokenProgram: kitAddress(program) });
        expect(associatedTokenAddress(owner, mint, program)).toBe(expected);
      }
    }
    // The token program is part of the seeds: the same wallet and mint give two accounts.
    expect(associatedTokenAddress(wallet(1), USDC, TOKEN_PROGRAM_ID)).not.toBe(associatedTokenAddress(wallet(1), USDC, TOKEN_2022_PROGRAM_ID));
    expect(associatedTokenAddress(wallet(1), USDC)).toBe(associatedTokenAddress(wallet(1), USDC, TOKEN_PROGRAM_ID));
  });
});
