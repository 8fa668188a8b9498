// Watch-only receiving for Solana: the merchant names their own wallet, and every invoice is a
// Solana Pay transfer request to that wallet carrying a reference that says which invoice it pays.
// The gateway holds no Solana key for receiving; nothing is forwarded or swept.
//
// The reference is a 32-byte public key that the payer's wallet adds to the transfer instruction
// as an extra read-only account (the Solana Pay spec): the transaction can then be found by asking
// the node for the transactions that name that key. It is made, not drawn: base58 of
// sha256(`<custodyId>/<index>`), so a pool drawn ahead and a request give the same one; nobody holds
// (or needs) a private key for it. It rides in the link and QR code only: unlike TON's comment, no
// wallet lets a payer type it, so it is never shown as a comment (see the address format's
// `referenceInLinkOnly`).
//
// A deposit is the deposit key `<wallet>#<reference>` (../watch-paths.ts) with the path
// `reference:<custodyId>/<index>`.
import { base58 } from '@scure/base';
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha256 } from '@noble/hashes/sha2.js';
import type { NetworkConfig } from '../../config.ts';
import type { NetworkDef } from '../../registry/index.ts';
import { CustodyInputError } from '../errors.ts';
import type { CustodyInput, ParsedCustody, WatchOnlyCustody } from '../family.ts';
import { depositKey, referencePath } from '../watch-paths.ts';
import { isOnCurve, parseSolanaKey, SolanaAddressError } from './address.ts';

/** The driver name operators write in `networks.CODE.driver` for a real Solana node. */
export const SOLANA_DRIVER = 'solana';

/** The clusters a `solana` network may be configured for, and the registry chain each is. */
export const SOLANA_CLUSTERS = { 'mainnet-beta': 'main', devnet: 'test', localnet: 'regtest' } as const;
export type SolanaCluster = keyof typeof SOLANA_CLUSTERS;

/** The configured cluster (mainnet-beta when left out, as TON's network is mainnet); throws a start error naming the setting on anything else. */
export function solanaCluster(network: Pick<NetworkDef, 'code'>, cfg: NetworkConfig | undefined): SolanaCluster {
  const v = cfg?.cluster;
  if (v === undefined) return 'mainnet-beta';
  if (typeof v === 'string' && Object.hasOwn(SOLANA_CLUSTERS, v)) return v as SolanaCluster;
  throw new Error(`networks.${network.code}.cluster: one of "mainnet-beta", "devnet" or "localnet" is required for driver "${SOLANA_DRIVER}"`);
}

/**
 * A Solana network as its settings make it: the cluster kept as the network's `chain` (mainnet-beta
 * main, devnet test, localnet regtest). Addresses are written the same on every cluster; the chain
 * only says which one the node must be. Only for the `solana` driver: the simulated one has no cluster.
 */
export function configuredSolanaNetwork(network: NetworkDef, cfg: NetworkConfig | undefined): NetworkDef {
  if (cfg?.driver !== SOLANA_DRIVER) return network;
  return { ...network, chain: SOLANA_CLUSTERS[solanaCluster(network, cfg)] };
}

/** The reference key of deposit `index` of custody row `custodyId`, in base58. */
export function solanaReference(custodyId: string, index: number): string {
  return base58.encode(sha256(new TextEncoder().encode(`${custodyId}/${index}`)));
}

const PHRASE = /^[a-z]+(\s+[a-z]+){11,23}$/i;
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]+$/;
const WHAT = 'Give your Solana wallet\'s address (its public key, 32 to 44 base58 characters)';

/**
 * The merchant's wallet as they wrote it: a base58 public key on the ed25519 curve (one a private
 * key can sign for). Anything that looks like a secret is refused and never repeated back.
 */
export function parseSolanaWallet(network: NetworkDef, input: CustodyInput): ParsedCustody {
  if (input.xpub !== undefined || input.descriptor !== undefined) {
    throw new CustodyInputError('wrong_form', `${network.code} takes the address of a Solana wallet you own, not an extended key or a descriptor`);
  }
  const a = typeof input.address === 'string' ? input.address.trim() : '';
  if (a === '') throw new CustodyInputError('missing', `${network.code} takes the address of a Solana wallet you own (its base58 public key)`);
  if (a.startsWith('[') || a.startsWith('{')) {
    throw new CustodyInputError('private_key', `This looks like a keypair file (the secret key), not an address: it was not stored. ${WHAT}`);
  }
  if (PHRASE.test(a)) throw new CustodyInputError('private_key', `This looks like a recovery phrase, not an address: it was not stored. ${WHAT}`);
  // A 64-byte secret key in base58 is 86 to 88 characters: longer than any address, so told apart
  // by its length alone, before decoding.
  if (a.length >= 80 && a.length <= 90 && BASE58.test(a)) {
    throw new CustodyInputError('private_key', `This looks like a secret key, not an address: it was not stored. ${WHAT}`);
  }
  if (/^(0x)?([0-9a-f]{64}|[0-9a-f]{128})$/i.test(a)) {
    throw new CustodyInputError('private_key', `This looks like a private key in hex, not an address: it was not stored. ${WHAT}`);
  }
  let key: Uint8Array;
  try {
    key = parseSolanaKey(a);
  } catch (e) {
    if (!(e instanceof SolanaAddressError)) throw e;
    throw new CustodyInputError('not_address', e.message);
  }
  if (!isWalletKey(key)) {
    throw new CustodyInputError('not_wallet', 'This address is not a wallet: it is not an ed25519 public key (a program-derived address such as a token account, or a program\'s own account), so no one can sign for it. Give the address of the wallet itself');
  }
  return { kind: 'address', material: a, summary: a };
}

/**
 * Whether the key is one a wallet's private key can sign for: on the curve, and not one of the few
 * small-order points (the all-zero System Program id is one), whose "signatures" prove nothing and
 * which no wallet has.
 */
export function isWalletKey(key: Uint8Array): boolean {
  if (!isOnCurve(key)) return false;
  try {
    return !ed25519.Point.fromBytes(key, true).isSmallOrder();
  } catch {
    return false;
  }
}

/** Deposit `index` of custody row `custodyId` for the wallet `material`: its key and path. */
export function solanaDeposit(_network: NetworkDef, material: string, custodyId: string, index: number): { address: string; path: string } {
  return { address: depositKey(material, solanaReference(custodyId, index)), path: referencePath(custodyId, index) };
}

export const solanaWatchOnly: WatchOnlyCustody = {
  module: { url: import.meta.url, name: 'solanaWatchOnly' },
  accepts: 'a Solana wallet address you own (its base58 public key); each invoice is a Solana Pay request to it with a reference that names the invoice',
  inputs: ['address'],
  parse: parseSolanaWallet,
  deposit: solanaDeposit,
};
