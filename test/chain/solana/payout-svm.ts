// LiteSVM (the real Solana runtime) set up for the payout tests: a funded float, mints made in the
// test (USDC/USDT stand-ins) and token accounts written as the token program lays them out, and a
// @solana/kit signer of the same key (the independent client the float's bytes are compared with).
import { LiteSVM, FailedTransactionMetadata } from 'litesvm';
import { address, createKeyPairSignerFromPrivateKeyBytes, getBase58Decoder, lamports, type Address, type KeyPairSigner } from '@solana/kit';
import { findAssociatedTokenPda, getMintEncoder, getTokenEncoder, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { base58 } from '@scure/base';
import { ed25519 } from '@noble/curves/ed25519.js';

export const SPL_TOKEN = TOKEN_PROGRAM_ADDRESS;

export interface TestKey {
  seed: Uint8Array;
  publicKey: Uint8Array;
  address: Address;
  signer: KeyPairSigner;
}

/** A key from a fixed 32-byte seed (tests repeat), its address and kit's signer of it. */
export async function testKey(fill: number): Promise<TestKey> {
  const seed = new Uint8Array(32).fill(fill);
  const publicKey = ed25519.getPublicKey(seed);
  const signer = await createKeyPairSignerFromPrivateKeyBytes(seed);
  if (signer.address !== base58.encode(publicKey)) throw new Error('kit and noble derive different addresses');
  return { seed, publicKey, address: signer.address, signer };
}

export function newSvm(): LiteSVM {
  return new LiteSVM();
}

export function fund(svm: LiteSVM, who: Address, sol: bigint): void {
  const r = svm.airdrop(who, lamports(sol));
  if (!r || r instanceof FailedTransactionMetadata) throw new Error('airdrop failed');
}

/** A mint owned by the SPL Token program, `decimals` places, authority `authority`. */
export function makeMint(svm: LiteSVM, mint: Address, decimals: number, authority: Address, supply = 10n ** 15n): void {
  const data = getMintEncoder().encode({ mintAuthority: authority, supply, decimals, isInitialized: true, freezeAuthority: null });
  svm.setAccount({ address: mint, data: new Uint8Array(data), executable: false, lamports: lamports(svm.minimumBalanceForRentExemption(BigInt(data.length))), programAddress: SPL_TOKEN, space: BigInt(data.length) });
}

/** The associated token account of `owner` for `mint` (kit's derivation). */
export async function ataOf(owner: Address, mint: Address): Promise<Address> {
  const [ata] = await findAssociatedTokenPda({ owner, mint, tokenProgram: SPL_TOKEN });
  return ata;
}

/** Writes `owner`'s associated token account for `mint` holding `amount`. */
export async function giveTokens(svm: LiteSVM, owner: Address, mint: Address, amount: bigint): Promise<Address> {
  const ata = await ataOf(owner, mint);
  const data = getTokenEncoder().encode({ mint, owner, amount, delegate: null, state: 1, isNative: null, delegatedAmount: 0n, closeAuthority: null });
  svm.setAccount({ address: ata, data: new Uint8Array(data), executable: false, lamports: lamports(svm.minimumBalanceForRentExemption(BigInt(data.length))), programAddress: SPL_TOKEN, space: BigInt(data.length) });
  return ata;
}

/** The token balance of an account (its u64 at offset 64), or null when it does not exist. */
export function tokenBalance(svm: LiteSVM, account: Address): bigint | null {
  const acc = svm.getAccount(account);
  if (!acc.exists) return null;
  return new DataView(acc.data.buffer, acc.data.byteOffset).getBigUint64(64, true);
}

export const b58 = (bytes: Uint8Array): Address => address(getBase58Decoder().decode(bytes));
