import { bech32, bech32m, createBase58check } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { concatBytes } from '@noble/hashes/utils.js';

export const base58check = createBase58check(sha256);

type BitcoinLike = 'bitcoin' | 'litecoin' | 'dogecoin';

const NETWORKS: Record<BitcoinLike, { hrp?: string; versions: number[] }> = {
  bitcoin: { hrp: 'bc', versions: [0x00, 0x05] }, // 1..., 3...
  litecoin: { hrp: 'ltc', versions: [0x30, 0x32, 0x05] }, // L..., M..., legacy 3... P2SH
  dogecoin: { versions: [0x1e, 0x16] }, // D..., A/9...
};

export function hash160(data: Uint8Array): Uint8Array {
  return ripemd160(sha256(data));
}

/** P2WPKH (BIP-173): witness v0 program = hash160 of the compressed public key. */
export function p2wpkh(hrp: string, publicKey: Uint8Array): string {
  return bech32.encode(hrp, [0, ...bech32.toWords(hash160(publicKey))]);
}

export function p2pkh(version: number, publicKey: Uint8Array): string {
  return base58check.encode(concatBytes(Uint8Array.of(version), hash160(publicKey)));
}

export function isValidBitcoinLike(format: BitcoinLike, address: string): boolean {
  const net = NETWORKS[format];
  if (net.hrp && address.toLowerCase().startsWith(`${net.hrp}1`)) return isSegwit(net.hrp, address);
  return isBase58Payload(address, 21, net.versions);
}

function isSegwit(hrp: string, address: string): boolean {
  for (const codec of [bech32, bech32m]) {
    const decoded = codec.decodeUnsafe(address);
    if (!decoded) continue;
    const [version, ...data] = decoded.words;
    if (decoded.prefix !== hrp || version === undefined || version > 16) return false;
    // BIP-350: v0 must use bech32, v1+ must use bech32m.
    if ((version === 0) !== (codec === bech32)) return false;
    const program = codec.fromWordsUnsafe(data);
    if (!program) return false;
    if (version === 0) return program.length === 20 || program.length === 32;
    return program.length >= 2 && program.length <= 40;
  }
  return false;
}

/** base58check with `length` payload bytes whose first byte is one of `versions`. */
export function isBase58Payload(address: string, length: number, versions: number[]): boolean {
  if (address.length < 25 || address.length > 40) return false; // also bounds base58's quadratic decode
  try {
    const payload = base58check.decode(address);
    return payload.length === length && versions.includes(payload[0]!);
  } catch {
    return false;
  }
}
