// The private view key check, without a wallet: a wallet's keys are made the Monero way (a random
// spend key b, the view key a = Hs(b), B = b*G, A = a*G), and the check must take a and refuse b,
// a mnemonic, another wallet's view key and anything that is not a 64-hex reduced scalar, never
// repeating the secret. ./subaddress.test.ts checks the same against keys monero-wallet-rpc made.
import { randomBytes } from 'node:crypto';
import { bytesToHex } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import { encodeMoneroAddress, parseMoneroAddress } from '../../../src/chain/monero/address.ts';
import { checkViewKey, L, leBytesToBigInt, MoneroKeyError, publicKeyOf, scalarToBytes, viewKeyFromSpendKey } from '../../../src/chain/monero/keys.ts';

function wallet(network: 'mainnet' | 'stagenet' | 'testnet' = 'mainnet') {
  const spend = scalarToBytes(leBytesToBigInt(randomBytes(32)) % L);
  const view = viewKeyFromSpendKey(spend);
  const address = encodeMoneroAddress(network, 'standard', publicKeyOf(leBytesToBigInt(spend)), publicKeyOf(leBytesToBigInt(view)));
  return { spendHex: bytesToHex(spend), viewHex: bytesToHex(view), address, parsed: parseMoneroAddress(address) };
}

function refusal(fn: () => unknown): MoneroKeyError {
  try {
    fn();
  } catch (e) {
    if (e instanceof MoneroKeyError) return e;
    throw e;
  }
  throw new Error('not refused');
}

describe('checkViewKey', () => {
  const w = wallet();

  it('takes the wallet\'s private view key, in either case and with spaces around it', () => {
    expect(checkViewKey(w.parsed, w.viewHex)).toBe(w.viewHex);
    expect(checkViewKey(w.parsed, ` ${w.viewHex.toUpperCase()}\n`)).toBe(w.viewHex);
  });

  it('refuses the spend key as a spend key, without repeating it', () => {
    const e = refusal(() => checkViewKey(w.parsed, w.spendHex));
    expect(e.problem).toBe('spend_key');
    expect(e.message).toMatch(/spend key.*give the view key/i);
    expect(e.message).not.toContain(w.spendHex);
  });

  it('refuses another wallet\'s view key as not belonging to the address', () => {
    const other = wallet();
    const e = refusal(() => checkViewKey(w.parsed, other.viewHex));
    expect(e.problem).toBe('mismatch');
    expect(e.message).not.toContain(other.viewHex);
  });

  it.each([13, 16, 24, 25])('refuses a %i-word mnemonic seed as a seed, without repeating a word of it', (n) => {
    const words = ['abbey', 'cactus', 'eagle', 'gadget', 'hacksaw', 'jaded', 'karate', 'lamb', 'macro', 'nabbing', 'oasis', 'pact', 'quarter'];
    const seed = Array.from({ length: n }, (_, i) => words[i % words.length]).join(' ');
    const e = refusal(() => checkViewKey(w.parsed, seed));
    expect(e.problem).toBe('seed');
    expect(e.message).toContain(`${n}-word`);
    for (const word of words) expect(e.message).not.toContain(word);
  });

  it('refuses what is not 64 hex digits of a reduced, non-zero scalar, without repeating it', () => {
    const unreduced = bytesToHex(scalarToBytes(L + 5n));
    for (const [text, problem] of [
      ['', 'missing'],
      ['   ', 'missing'],
      [w.viewHex.slice(2), 'not_key'],
      [`0x${w.viewHex}`, 'not_key'],
      [`${w.viewHex}00`, 'not_key'],
      ['zz' + w.viewHex.slice(2), 'not_key'],
      [unreduced, 'not_key'],
      ['0'.repeat(64), 'not_key'],
    ] as const) {
      const e = refusal(() => checkViewKey(w.parsed, text));
      expect(e.problem).toBe(problem);
      if (text.trim()) expect(e.message).not.toContain(text);
    }
    expect(refusal(() => checkViewKey(w.parsed, undefined)).problem).toBe('missing');
    expect(refusal(() => checkViewKey(w.parsed, 'a'.repeat(10_000))).message).toContain('far too long');
  });
});
