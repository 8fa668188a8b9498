// Solana watch-only custody: the merchant's own wallet (an ed25519 public key, never a PDA or a
// secret), and the deposits drawn from it: the wallet with a fresh reference key per invoice, as a
// deposit key. @solana/kit is the independent reader of keys and program-derived addresses.
import { describe, expect, it } from 'vitest';
import { base58 } from '@scure/base';
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { address as kitAddress, getProgramDerivedAddress, isAddress } from '@solana/kit';
import { findAssociatedTokenPda } from '@solana-program/token';
import { Registry } from '../../../src/registry/index.ts';
import { CustodyInputError } from '../../../src/chain/errors.ts';
import { canonicalSolanaAddress, solanaFamily, solanaTxid } from '../../../src/chain/solana/index.ts';
import { configuredSolanaNetwork, isWalletKey, solanaReference } from '../../../src/chain/solana/custody.ts';
import { SYSTEM_PROGRAM_ID, TOKEN_PROGRAM_ID } from '../../../src/chain/solana/address.ts';
import { isWatchOnlyPath, parseDepositKey, parseReferencePath } from '../../../src/chain/watch-paths.ts';
import { families } from '../../../src/compose.ts';

const SOL = Registry.load().network('SOL')!;
const custody = solanaFamily.watchOnly!;
const CUSTODY_ID = '0b6f3c1e-7f7a-4a53-9a43-2f4d3b1c9e10';
const SEED = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
const WALLET = base58.encode(ed25519.getPublicKey(SEED));
const USDC = 'EPjFWdd5AufqSSqeM2qFLdkdsQn7y3WR1jQoNtaA5CTs';

function refusal(address: string): { problem: string; message: string } {
  try {
    custody.parse(SOL, { address });
  } catch (err) {
    expect(err).toBeInstanceOf(CustodyInputError);
    return { problem: (err as CustodyInputError).problem, message: (err as Error).message };
  }
  throw new Error(`accepted: ${address}`);
}

describe('Solana watch-only custody', () => {
  it('is the family\'s only custody, plugged into the gateway\'s families, taking a wallet address', () => {
    expect(solanaFamily.name).toBe('solana');
    expect(solanaFamily.custody).toEqual(['watch-only']);
    expect(custody.inputs).toEqual(['address']);
    expect(families.of(SOL)).toBe(solanaFamily);
    expect(families.addresses.rules('solana').referenceInLinkOnly).toBe(true);
  });

  it('takes a wallet\'s public key, trimmed, and stores it as written', () => {
    for (const address of [WALLET, ` ${WALLET}\n`]) {
      expect(custody.parse(SOL, { address })).toEqual({ kind: 'address', material: WALLET, summary: WALLET });
    }
    expect(isAddress(WALLET)).toBe(true);
  });

  it('refuses program-derived addresses (token accounts) and small-order keys: not wallets', async () => {
    const [ata] = await findAssociatedTokenPda({ owner: kitAddress(WALLET), mint: kitAddress(USDC), tokenProgram: kitAddress(TOKEN_PROGRAM_ID) });
    const [pda] = await getProgramDerivedAddress({ programAddress: kitAddress(TOKEN_PROGRAM_ID), seeds: ['x'] });
    for (const address of [ata, pda]) expect(refusal(address)).toMatchObject({ problem: 'not_wallet', message: expect.stringMatching(/not a wallet/) });
    // The System Program's id (32 zero bytes) is a point of the curve, of small order: no wallet has it.
    expect(refusal(SYSTEM_PROGRAM_ID)).toMatchObject({ problem: 'not_wallet' });
    const identity = new Uint8Array(32);
    identity[0] = 1;
    expect(isWalletKey(identity)).toBe(false);
    expect(isWalletKey(ed25519.getPublicKey(SEED))).toBe(true);
  });

  it('refuses malformed base58 and wrong lengths', () => {
    for (const address of [`${WALLET.slice(0, -1)}0`, `${WALLET.slice(0, -1)}l`, WALLET.slice(0, 20), base58.encode(new Uint8Array(33).fill(7)), `0x${'ab'.repeat(20)}`, 'hello world']) {
      expect(refusal(address).problem, address).toMatch(/not_address|private_key/);
    }
    expect(refusal('2'.repeat(100_000)).message).not.toContain('2222222222');
    expect(refusal('').problem).toBe('missing');
    expect(() => custody.parse(SOL, { xpub: 'xpub6C...' })).toThrow(CustodyInputError);
  });

  it('refuses secrets (64-byte base58 secret key, keypair JSON, hex key, recovery phrase) without repeating them', () => {
    const secret64 = new Uint8Array([...SEED, ...ed25519.getPublicKey(SEED)]);
    const secrets = [
      base58.encode(secret64),
      JSON.stringify([...secret64]),
      'ab'.repeat(32),
      'ab'.repeat(64),
      'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
    ];
    for (const secret of secrets) {
      const r = refusal(secret);
      expect(r.problem, secret).toBe('private_key');
      expect(r.message).toMatch(/not stored/);
      expect(r.message).not.toContain(secret.slice(0, 12));
    }
  });

  it('draws deposits: the wallet and a reference key made from the custody row and number', () => {
    const d = custody.deposit(SOL, WALLET, CUSTODY_ID, 7);
    const reference = base58.encode(sha256(new TextEncoder().encode(`${CUSTODY_ID}/7`)));
    expect(d).toEqual({ address: `${WALLET}#${reference}`, path: `reference:${CUSTODY_ID}/7` });
    expect(parseDepositKey(d.address)).toEqual({ account: WALLET, reference });
    expect(parseReferencePath(d.path)).toEqual({ custodyId: CUSTODY_ID, index: 7 });
    expect(isWatchOnlyPath(d.path)).toBe(true);
    // A reference is a 32-byte key (an account the wallet adds to the transfer), fresh per deposit.
    expect(isAddress(reference)).toBe(true);
    expect(solanaReference(CUSTODY_ID, 7)).toBe(reference);
    const refs = new Set(Array.from({ length: 200 }, (_, i) => solanaReference(CUSTODY_ID, i)));
    expect(refs.size).toBe(200);
    expect(solanaReference('another-row', 7)).not.toBe(reference);
  });
});

describe('Solana family rules', () => {
  it('takes the cluster from the solana driver\'s settings and refuses any other', () => {
    expect(configuredSolanaNetwork(SOL, { driver: 'solana', cluster: 'mainnet-beta' }).chain).toBe('main');
    expect(configuredSolanaNetwork(SOL, { driver: 'solana', cluster: 'devnet' }).chain).toBe('test');
    expect(configuredSolanaNetwork(SOL, { driver: 'solana', cluster: 'localnet' }).chain).toBe('regtest');
    expect(configuredSolanaNetwork(SOL, { driver: 'solana' }).chain).toBe('main');
    for (const cluster of ['testnet', 'mainnet', 'Devnet', 1, null]) {
      expect(() => configuredSolanaNetwork(SOL, { driver: 'solana', cluster }), String(cluster)).toThrow(/networks\.SOL\.cluster: one of "mainnet-beta", "devnet" or "localnet"/);
    }
    // The simulated driver has no cluster: the network is left as it is.
    expect(configuredSolanaNetwork(SOL, { driver: 'simulated', cluster: 'nonsense' })).toBe(SOL);
    expect(families.configuredNetwork(SOL, { driver: 'solana', cluster: 'devnet' }).chain).toBe('test');
  });

  it('writes addresses and deposit keys in their one form, and leaves other text alone', () => {
    const key = custody.deposit(SOL, WALLET, CUSTODY_ID, 1).address;
    expect(canonicalSolanaAddress(WALLET)).toBe(WALLET);
    expect(canonicalSolanaAddress(key)).toBe(key);
    expect(canonicalSolanaAddress('not an address')).toBe('not an address');
    expect(canonicalSolanaAddress(`x#${solanaReference(CUSTODY_ID, 1)}`)).toBe(`x#${solanaReference(CUSTODY_ID, 1)}`);
  });

  it('makes transaction ids in the shape of a signature: 64 bytes in base58, the same for the same hex', () => {
    const hex = 'ab'.repeat(32);
    const sig = solanaTxid(hex);
    expect(base58.decode(sig)).toHaveLength(64);
    expect(solanaTxid(hex)).toBe(sig);
    expect(solanaTxid('cd'.repeat(32))).not.toBe(sig);
    expect(families.txid(SOL, hex)).toBe(sig);
  });
});
