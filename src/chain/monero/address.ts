// Monero addresses: a network byte (a varint), the public spend key, the public view key, for an
// integrated address an 8-byte payment id, then the first 4 bytes of the Keccak-256 of all that,
// written in Monero's own base58. That base58 is not Bitcoin's: the bytes are cut into blocks of 8,
// each written as exactly 11 characters (a shorter last block as fewer, by a fixed table), so an
// address's length says its kind before anything is decoded.
//
// Three kinds share the form, told apart by the network byte:
// - standard: a wallet's primary address (spend key B, view key A);
// - subaddress: (D, C) of one of the wallet's subaddresses (./subaddress.ts);
// - integrated: a standard address and a payment id, one string.
import { ed25519 } from '@noble/curves/ed25519.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';

/** An address that cannot be accepted; the message says why and never repeats the input. */
export class MoneroAddressError extends Error {
  override name = 'MoneroAddressError';
}

/** Monero's network types. A `--regtest` daemon (`fakechain`) writes mainnet addresses. */
export type MoneroNetwork = 'mainnet' | 'stagenet' | 'testnet';
export const MONERO_NETWORKS: readonly MoneroNetwork[] = ['mainnet', 'stagenet', 'testnet'];
export type MoneroAddressKind = 'standard' | 'subaddress' | 'integrated';

/** The network byte of each kind on each network (cryptonote_config.h). */
export const MONERO_PREFIXES: Readonly<Record<MoneroNetwork, Readonly<Record<MoneroAddressKind, number>>>> = {
  mainnet: { standard: 18, subaddress: 42, integrated: 19 },
  stagenet: { standard: 24, subaddress: 36, integrated: 25 },
  testnet: { standard: 53, subaddress: 63, integrated: 54 },
};

const BY_PREFIX = new Map<number, { network: MoneroNetwork; kind: MoneroAddressKind }>();
for (const network of MONERO_NETWORKS) {
  for (const [kind, prefix] of Object.entries(MONERO_PREFIXES[network])) BY_PREFIX.set(prefix, { network, kind: kind as MoneroAddressKind });
}

export interface MoneroAddress {
  network: MoneroNetwork;
  kind: MoneroAddressKind;
  /** The public spend key (D for a subaddress), 64 hex digits. */
  publicSpend: string;
  /** The public view key (C for a subaddress), 64 hex digits. */
  publicView: string;
  /** An integrated address's payment id, 16 hex digits. */
  paymentId?: string;
}

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const DIGIT = new Map([...ALPHABET].map((c, i) => [c, i]));
const FULL_BLOCK = 8;
const FULL_BLOCK_CHARS = 11;
/** Characters of a block of 0 .. 8 bytes. */
const BLOCK_CHARS = [0, 2, 3, 5, 6, 7, 9, 10, 11] as const;

/** Monero base58 of `bytes`. */
export function moneroBase58Encode(bytes: Uint8Array): string {
  let out = '';
  for (let at = 0; at < bytes.length; at += FULL_BLOCK) {
    const block = bytes.subarray(at, Math.min(at + FULL_BLOCK, bytes.length));
    let n = 0n;
    for (const b of block) n = (n << 8n) | BigInt(b);
    let text = '';
    for (let i = 0; i < BLOCK_CHARS[block.length]!; i++) {
      text = ALPHABET[Number(n % 58n)]! + text;
      n /= 58n;
    }
    out += text;
  }
  return out;
}

/** The bytes of Monero base58 text; throws MoneroAddressError on a character or a block length no encoding makes. */
export function moneroBase58Decode(text: string): Uint8Array {
  const fullBlocks = Math.floor(text.length / FULL_BLOCK_CHARS);
  const lastChars = text.length % FULL_BLOCK_CHARS;
  const lastBytes = BLOCK_CHARS.indexOf(lastChars as (typeof BLOCK_CHARS)[number]);
  if (lastBytes < 0) throw new MoneroAddressError('This is not Monero base58: its length cannot be');
  const out = new Uint8Array(fullBlocks * FULL_BLOCK + lastBytes);
  for (let b = 0; b * FULL_BLOCK_CHARS < text.length; b++) {
    const chars = text.slice(b * FULL_BLOCK_CHARS, (b + 1) * FULL_BLOCK_CHARS);
    const size = chars.length === FULL_BLOCK_CHARS ? FULL_BLOCK : lastBytes;
    let n = 0n;
    for (const c of chars) {
      const d = DIGIT.get(c);
      if (d === undefined) throw new MoneroAddressError('A Monero address is written in base58 (no 0, O, I or l, nothing but letters and digits)');
      n = n * 58n + BigInt(d);
    }
    if (n >> BigInt(size * 8) !== 0n) throw new MoneroAddressError('This is not Monero base58: a block is out of range');
    for (let i = size - 1; i >= 0; i--) {
      out[b * FULL_BLOCK + i] = Number(n & 0xffn);
      n >>= 8n;
    }
  }
  return out;
}

const KEY = 32;
const CHECKSUM = 4;
const PAYMENT_ID = 8;
/** Characters of a standard address or subaddress (1 + 64 + 4 bytes), and of an integrated one (+ 8). */
export const STANDARD_CHARS = 95;
export const INTEGRATED_CHARS = 106;

/** The address of `network` and `kind` for the two public keys (and an integrated address's payment id). */
export function encodeMoneroAddress(network: MoneroNetwork, kind: MoneroAddressKind, publicSpend: Uint8Array | string, publicView: Uint8Array | string, paymentId?: Uint8Array | string): string {
  const spend = typeof publicSpend === 'string' ? hexToBytes(publicSpend) : publicSpend;
  const view = typeof publicView === 'string' ? hexToBytes(publicView) : publicView;
  const pid = paymentId === undefined ? undefined : typeof paymentId === 'string' ? hexToBytes(paymentId) : paymentId;
  if (spend.length !== KEY || view.length !== KEY) throw new MoneroAddressError('A Monero public key is 32 bytes');
  if ((kind === 'integrated') !== (pid !== undefined)) throw new MoneroAddressError('An integrated address, and only one, has a payment id');
  if (pid && pid.length !== PAYMENT_ID) throw new MoneroAddressError('A payment id of an integrated address is 8 bytes');
  const body = new Uint8Array(1 + 2 * KEY + (pid ? PAYMENT_ID : 0));
  body[0] = MONERO_PREFIXES[network][kind];
  body.set(spend, 1);
  body.set(view, 1 + KEY);
  if (pid) body.set(pid, 1 + 2 * KEY);
  const all = new Uint8Array(body.length + CHECKSUM);
  all.set(body);
  all.set(keccak_256(body).subarray(0, CHECKSUM), body.length);
  return moneroBase58Encode(all);
}

/**
 * The network, kind and keys of a Monero address, written exactly (callers trim what a person
 * typed). The length is checked before anything is decoded; then the characters, the checksum, the
 * network byte and that both keys are points of the curve.
 */
export function parseMoneroAddress(text: string): MoneroAddress {
  if (typeof text !== 'string' || text.trim() === '') throw new MoneroAddressError('A Monero address is required');
  if (text.length !== STANDARD_CHARS && text.length !== INTEGRATED_CHARS) {
    throw new MoneroAddressError(`A Monero address is ${STANDARD_CHARS} characters (${INTEGRATED_CHARS} for an integrated address); this is ${text.length > 200 ? 'far more' : text.length}`);
  }
  const bytes = moneroBase58Decode(text);
  const body = bytes.subarray(0, bytes.length - CHECKSUM);
  const sum = keccak_256(body).subarray(0, CHECKSUM);
  if (!sum.every((b, i) => b === bytes[body.length + i])) {
    throw new MoneroAddressError('This Monero address has a wrong checksum: a character is mistyped or missing');
  }
  // Every network byte in use is below 0x80, so its varint is that one byte.
  const found = BY_PREFIX.get(body[0]!);
  if (!found) throw new MoneroAddressError('This is not a Monero address: its network byte is none of mainnet, stagenet or testnet');
  const expected = found.kind === 'integrated' ? INTEGRATED_CHARS : STANDARD_CHARS;
  if (text.length !== expected) throw new MoneroAddressError(`A Monero ${found.kind} address is ${expected} characters; this is ${text.length}`);
  const spend = body.subarray(1, 1 + KEY);
  const view = body.subarray(1 + KEY, 1 + 2 * KEY);
  if (!isPoint(spend) || !isPoint(view)) throw new MoneroAddressError('This Monero address holds a key that is not a point of the curve');
  const out: MoneroAddress = { network: found.network, kind: found.kind, publicSpend: bytesToHex(spend), publicView: bytesToHex(view) };
  if (found.kind === 'integrated') out.paymentId = bytesToHex(body.subarray(1 + 2 * KEY));
  return out;
}

/** Whether `text` is a valid Monero address; of `network` and one of `kinds` when given. */
export function isMoneroAddress(text: string, network?: MoneroNetwork, kinds?: readonly MoneroAddressKind[]): boolean {
  try {
    const a = parseMoneroAddress(text);
    return (network === undefined || a.network === network) && (kinds === undefined || kinds.includes(a.kind));
  } catch (e) {
    if (e instanceof MoneroAddressError) return false;
    throw e;
  }
}

/** Whether 32 bytes are a point of ed25519 in its one canonical encoding (what `check_key` accepts). */
export function isPoint(bytes: Uint8Array): boolean {
  try {
    ed25519.Point.fromBytes(bytes);
    return true;
  } catch {
    return false;
  }
}
