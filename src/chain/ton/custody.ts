// Watch-only receiving for TON: the merchant names their own wallet, and every invoice is paid to
// that wallet with a comment that says which invoice it pays. The gateway holds no TON key for
// receiving; nothing is forwarded or swept, the money is in the merchant's wallet from the start.
//
// A deposit is therefore not an address of its own but a deposit key (../watch-paths.ts):
// `<wallet>#<comment>`, the wallet in its user-friendly non-bounceable form (what a payer's wallet
// should send to: a wallet that was never deployed must not bounce the payment back), flagged for
// the test network when the network is configured for it. The comment of deposit `index` of custody
// row `custodyId` is 10 characters of the base58 alphabet (no 0, O, I or l, which are easily
// confused when typed) made from sha256(`<custodyId>/<index>`): deterministic (a pool drawn ahead
// and a request draw the same one), and unique in practice (58^10, about 4*10^17 values, per wallet;
// a repeat would be refused by the addresses table's key, never credited twice).
import { sha256 } from '@noble/hashes/sha2.js';
import type { NetworkConfig } from '../../config.ts';
import type { NetworkDef } from '../../registry/index.ts';
import { CustodyInputError } from '../errors.ts';
import type { CustodyInput, ParsedCustody, WatchOnlyCustody } from '../family.ts';
import { depositKey, referencePath } from '../watch-paths.ts';
import { parseTonAddress, tonFriendly, tonRaw, TonAddressError, type TonAddress } from './address.ts';

/** The driver name operators write in `networks.CODE.driver` for a real TON node. */
export const TON_DRIVER = 'ton';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
/** Characters of a payment comment. */
export const COMMENT_LENGTH = 10;

/** Whether the network is configured for the TON testnet (`"network": "testnet"`). */
export function isTonTestnet(network: NetworkDef): boolean {
  return network.chain === 'test';
}

/**
 * A TON network as its settings make it: `"network": "mainnet"` (the default) or `"testnet"`, kept
 * as the network's `chain` ('main' or 'test'): what the address format checks a user-friendly
 * address's test-network flag against. Only for the `ton` driver: the simulated one has no test
 * network.
 */
export function configuredTonNetwork(network: NetworkDef, cfg: NetworkConfig | undefined): NetworkDef {
  if (cfg?.driver !== TON_DRIVER) return network;
  const v = cfg.network;
  if (v !== undefined && v !== 'mainnet' && v !== 'testnet') throw new Error(`networks.${network.code}.network: "mainnet" or "testnet" is required`);
  return { ...network, chain: v === 'testnet' ? 'test' : 'main' };
}

/** The comment of deposit `index` of custody row `custodyId`. */
export function tonComment(custodyId: string, index: number): string {
  let n = BigInt(`0x${Buffer.from(sha256(new TextEncoder().encode(`${custodyId}/${index}`))).toString('hex')}`);
  let out = '';
  for (let i = 0; i < COMMENT_LENGTH; i++) {
    out += ALPHABET[Number(n % 58n)];
    n /= 58n;
  }
  return out;
}

const PHRASE = /^[a-z]+(\s+[a-z]+){11,23}$/i;

/**
 * The merchant's wallet as they wrote it: raw (`0:...`) or user-friendly, bounceable or not, for
 * this network (the test-network flag must match it). Stored raw; shown non-bounceable. A private
 * key or recovery phrase is refused and never repeated back.
 */
export function parseTonWallet(network: NetworkDef, input: CustodyInput): ParsedCustody {
  if (input.xpub !== undefined || input.descriptor !== undefined) {
    throw new CustodyInputError('wrong_form', `${network.code} takes the address of a TON wallet you own, not an extended key or a descriptor`);
  }
  const a = typeof input.address === 'string' ? input.address.trim() : '';
  if (a === '') throw new CustodyInputError('missing', `${network.code} takes the address of a TON wallet you own (raw 0:... or user-friendly)`);
  if (/^(0x)?([0-9a-f]{64}|[0-9a-f]{128})$/i.test(a)) {
    throw new CustodyInputError('private_key', 'This looks like a private key, not an address: it was not stored. Give your TON wallet\'s address (UQ..., EQ... or 0:...)');
  }
  if (PHRASE.test(a)) {
    throw new CustodyInputError('private_key', 'This looks like a recovery phrase, not an address: it was not stored. Give your TON wallet\'s address (UQ..., EQ... or 0:...)');
  }
  let account: TonAddress;
  try {
    account = parseTonAddress(a, { testnet: isTonTestnet(network) });
  } catch (e) {
    if (!(e instanceof TonAddressError)) throw e;
    throw new CustodyInputError(problemOf(e.message), e.message);
  }
  return { kind: 'address', material: tonRaw(account), summary: walletText(network, account) };
}

function problemOf(message: string): string {
  if (/flagged/.test(message)) return 'wrong_network';
  if (/checksum/.test(message)) return 'bad_checksum';
  if (/orkchain/.test(message)) return 'workchain';
  return 'not_address';
}

/** The wallet as payers and merchants are shown it: user-friendly, non-bounceable, the network's flag. */
function walletText(network: NetworkDef, account: TonAddress): string {
  return tonFriendly(account, { bounceable: false, testnet: isTonTestnet(network) });
}

/** Deposit `index` of custody row `custodyId` for the wallet `material` (raw): its key and path. */
export function tonDeposit(network: NetworkDef, material: string, custodyId: string, index: number): { address: string; path: string } {
  // The material was stored raw, which carries no network flag.
  const account = parseTonAddress(material, { testnet: isTonTestnet(network) });
  return { address: depositKey(walletText(network, account), tonComment(custodyId, index)), path: referencePath(custodyId, index) };
}

export const tonWatchOnly: WatchOnlyCustody = {
  module: { url: import.meta.url, name: 'tonWatchOnly' },
  accepts: 'a TON wallet address you own (raw 0:... or user-friendly); each payment to it carries a comment that names the invoice',
  inputs: ['address'],
  parse: parseTonWallet,
  deposit: tonDeposit,
};
