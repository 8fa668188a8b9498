// The TON float's key file: a hex ed25519 seed or a TON 24-word mnemonic, giving the key that
// @ton/crypto (what TON wallet apps use) derives; errors never echo the secret.
import { describe, expect, it } from 'vitest';
import { keyPairFromSeed, mnemonicNew, mnemonicToPrivateKey } from '@ton/crypto';
import { tonKeyFromFile, TonKeyFileError } from '../../../src/chain/ton/keyfile.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

function refusal(text: string): string {
  try {
    tonKeyFromFile(text);
  } catch (err) {
    expect(err).toBeInstanceOf(TonKeyFileError);
    return (err as Error).message;
  }
  throw new Error('accepted');
}

describe('tonKeyFromFile', () => {
  it('derives from a TON mnemonic the key @ton/crypto mnemonicToPrivateKey derives', { timeout: 60_000 }, async () => {
    for (let i = 0; i < 3; i++) {
      const words = await mnemonicNew(24);
      const expected = await mnemonicToPrivateKey(words);
      // As an operator may paste it: upper case, line breaks, trailing newline.
      const text = (i === 1 ? words.join('\n').toUpperCase() : words.join(' ')) + '\n';
      const key = tonKeyFromFile(text);
      expect(hex(key.seed)).toBe(hex(expected.secretKey.subarray(0, 32)));
      expect(hex(key.publicKey)).toBe(hex(expected.publicKey));
    }
  });

  it('reads a hex seed, 0x optional, as @ton/crypto keyPairFromSeed does', () => {
    const seed = Buffer.alloc(32, 0x5a);
    for (const text of [seed.toString('hex'), `0x${seed.toString('hex').toUpperCase()}\n`]) {
      const key = tonKeyFromFile(text);
      expect(hex(key.seed)).toBe(seed.toString('hex'));
      expect(hex(key.publicKey)).toBe(hex(keyPairFromSeed(seed).publicKey));
    }
  });

  it('refuses what is not a TON key, saying why and without repeating it', async () => {
    const words = await mnemonicNew(24);
    const typo = [...words.slice(0, 5), 'notaword', ...words.slice(6)].join(' ');
    expect(refusal(typo)).toMatch(/word 6/);
    expect(refusal(typo)).not.toContain('notaword');
    expect(refusal(words.slice(0, 12).join(' '))).toMatch(/12 words/);
    // A valid BIP-39 phrase is not a TON mnemonic: its key would be one no TON wallet app shows.
    const bip39 = 'abandon '.repeat(23) + 'art';
    const message = refusal(bip39);
    expect(message).toMatch(/not a TON mnemonic/);
    expect(message).not.toContain('abandon');
    expect(refusal('ab'.repeat(31))).toMatch(/64 hex/);
    expect(refusal('')).toMatch(/64 hex/);
    const secretHex = 'zz' + 'ab'.repeat(31);
    expect(refusal(secretHex)).not.toContain(secretHex);
  });
});
