// Addresses of the Bitcoin family per chain: encoding a deposit key, decoding a payee into the
// output script it stands for, and the reason an address is refused (another chain's prefix, a
// type the chain does not have). Decoding is @scure/btc-signer's; this adds the chain's rules.
import { OutScript, p2pkh, p2wpkh } from '@scure/btc-signer';
import { bech32, bech32m } from '@scure/base';
import { bytesToHex } from '@noble/hashes/utils.js';
import { base58check } from '../address/base58.ts';
import { BITCOIN_CHAINS, chainParams, type BitcoinCoin, type ChainParams } from './params.ts';

export type PayeeType = 'pkh' | 'sh' | 'wpkh' | 'wsh' | 'tr';

export interface Payee {
  type: PayeeType;
  /** scriptPubKey the payment goes to. */
  script: Uint8Array;
}

/** Thrown by `decodePayee` with a message fit for an operator or merchant. */
export class AddressError extends Error {}

/** The deposit/change address of a compressed public key: P2WPKH where the chain has SegWit, else P2PKH. */
export function keyAddress(params: ChainParams, publicKey: Uint8Array): { address: string; script: Uint8Array } {
  const p = params.segwit ? p2wpkh(publicKey, params.net) : p2pkh(publicKey, params.net);
  return { address: p.address!, script: p.script };
}

export function scriptHex(script: Uint8Array): string {
  return bytesToHex(script);
}

const LABEL: Record<BitcoinCoin, string> = { bitcoin: 'Bitcoin', litecoin: 'Litecoin', dogecoin: 'Dogecoin' };

export function chainLabel(params: ChainParams): string {
  return `${LABEL[params.coin]} ${params.chain === 'main' ? 'mainnet' : params.chain === 'test' ? 'testnet' : 'regtest'}`;
}

/** Decodes a payee address of `params`' chain, or throws AddressError saying what is wrong. */
export function decodePayee(params: ChainParams, address: string): Payee {
  if (typeof address !== 'string' || address.length < 14 || address.length > 90 || address.trim() !== address) {
    throw new AddressError(`Not a ${chainLabel(params)} address`);
  }
  const own = tryDecode(params, address);
  if (own) return own;
  // Say which chain it belongs to, when it is another one's.
  for (const coin of ['bitcoin', 'litecoin', 'dogecoin'] as const) {
    for (const chain of BITCOIN_CHAINS) {
      const other = chainParams(coin, chain);
      if (other.coin === params.coin && other.chain === params.chain) continue;
      if (other.net.bech32 === params.net.bech32 && other.net.pubKeyHash === params.net.pubKeyHash && other.net.scriptHash === params.net.scriptHash) continue;
      if (tryDecode(other, address)) throw new AddressError(`This is a ${chainLabel(other)} address, not ${chainLabel(params)}`);
    }
  }
  throw new AddressError(`Not a ${chainLabel(params)} address`);
}

export function isValidPayee(params: ChainParams, address: string): boolean {
  try {
    decodePayee(params, address);
    return true;
  } catch (err) {
    if (err instanceof AddressError) return false;
    throw err;
  }
}

/** BIP-173/350: v0 (20 or 32 bytes) in bech32, v1 taproot (32 bytes) in bech32m; other versions refused. */
function witnessPayee(params: ChainParams, address: string): Payee | null {
  for (const codec of [bech32, bech32m]) {
    const decoded = codec.decodeUnsafe(address as `${string}1${string}`);
    if (!decoded || decoded.prefix !== params.net.bech32) continue;
    const [version, ...words] = decoded.words;
    if ((version === 0) !== (codec === bech32)) return null;
    const program = codec.fromWordsUnsafe(words);
    if (!program) return null;
    let type: PayeeType;
    if (version === 0 && program.length === 20) type = 'wpkh';
    else if (version === 0 && program.length === 32) type = 'wsh';
    else if (version === 1 && program.length === 32 && params.taproot) type = 'tr';
    else return null;
    return { type, script: Uint8Array.of(version === 0 ? 0x00 : 0x50 + version!, program.length, ...program) };
  }
  return null;
}

function tryDecode(params: ChainParams, address: string): Payee | null {
  const lower = address.toLowerCase();
  if (params.net.bech32 && lower.startsWith(`${params.net.bech32}1`)) return params.segwit ? witnessPayee(params, address) : null;
  if (!/^[1-9A-HJ-NP-Za-km-z]{25,40}$/.test(address)) return null;
  let payload: Uint8Array;
  try {
    payload = base58check.decode(address);
  } catch {
    return null;
  }
  if (payload.length !== 21) return null;
  const hash = payload.slice(1);
  if (payload[0] === params.net.pubKeyHash) return { type: 'pkh', script: OutScript.encode({ type: 'pkh', hash }) };
  if (payload[0] === params.net.scriptHash || params.legacyScriptHash.includes(payload[0]!)) {
    return { type: 'sh', script: OutScript.encode({ type: 'sh', hash }) };
  }
  return null;
}
