import { describe, expect, it } from 'vitest';
import { base58 } from '@scure/base';
import { ed25519 } from '@noble/curves/ed25519.js';
import { createKeyPairFromBytes, createKeyPairFromPrivateKeyBytes, getAddressFromPublicKey } from '@solana/kit';
import { SolanaKeyFileError, solanaKeyFromFile } from '../../../src/chain/solana/keyfile.ts';

const SEED = Uint8Array.from({ length: 32 }, (_, i) => (i * 37 + 11) & 0xff);
const PUBLIC = ed25519.getPublicKey(SEED);
const SECRET64 = new Uint8Array([...SEED, ...PUBLIC]);

function refusal(text: string): Error {
  try {
    solanaKeyFromFile(text);
  } catch (e) {
    expect(e).toBeInstanceOf(SolanaKeyFileError);
    return e as Error;
  }
  throw new Error('accepted');
}

describe('solanaKeyFromFile', () => {
  it('reads a Solana CLI keypair file to the key @solana/kit reads from the same bytes', async () => {
    const kit = await getAddressFromPublicKey((await createKeyPairFromBytes(SECRET64)).publicKey);
    const key = solanaKeyFromFile(`${JSON.stringify([...SECRET64])}\n`);
    expect(base58.encode(key.publicKey)).toBe(kit);
    expect(key.seed).toEqual(SEED);
    // solana-keygen writes it on one line without spaces; other writers indent it.
    expect(solanaKeyFromFile(JSON.stringify([...SECRET64], null, 2))).toEqual(key);
  });

  it('reads a base58 64-byte secret key and a base58 32-byte seed to the same key', async () => {
    const kit = await getAddressFromPublicKey((await createKeyPairFromPrivateKeyBytes(SEED)).publicKey);
    for (const text of [base58.encode(SECRET64), `  ${base58.encode(SEED)}\n`]) {
      const key = solanaKeyFromFile(text);
      expect(base58.encode(key.publicKey)).toBe(kit);
      expect(key.seed).toEqual(SEED);
    }
  });

  it('refuses a keypair whose public half is not its seed\'s, as @solana/kit does', async () => {
    const wrong = SECRET64.slice();
    wrong[63]! ^= 1;
    await expect(createKeyPairFromBytes(wrong)).rejects.toThrow();
    expect(refusal(JSON.stringify([...wrong])).message).toMatch(/not the public key/);
    expect(refusal(base58.encode(wrong)).message).toMatch(/not the public key/);
  });

  it('refuses other shapes and never repeats the secret', () => {
    const secretB58 = base58.encode(SECRET64);
    const cases = [
      '',
      JSON.stringify([...SECRET64.slice(0, 63)]),
      JSON.stringify([...SECRET64, 1]),
      JSON.stringify([...SECRET64.slice(0, 63), 256]),
      JSON.stringify([...SECRET64.slice(0, 63), -1]),
      JSON.stringify([...SECRET64.slice(0, 63), 1.5]),
      JSON.stringify([...SECRET64.slice(0, 63), '7']),
      `${JSON.stringify([...SECRET64]).slice(0, -1)},]`,
      `[${' '.repeat(5000)}]`,
      `${secretB58}0`,
      secretB58.slice(0, 60),
      base58.encode(new Uint8Array(48).fill(3)),
      `${'ab'.repeat(32)}`,
      'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
      '9'.repeat(100_000),
      '{"secret": 1}',
    ];
    for (const text of cases) {
      const message = refusal(text).message;
      expect(message).not.toContain(secretB58.slice(0, 12));
      expect(message).not.toContain(String(SECRET64.slice(0, 6)));
      if (text.length > 8) expect(message).not.toContain(text.slice(1, 9));
    }
  });
});
