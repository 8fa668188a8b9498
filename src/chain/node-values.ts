// What every chain family accepts from a node, checked before the value is used: heights, counts
// and indexes as safe integers below a plausible bound, amounts as non-negative integers below the
// family's width, hashes, addresses and hex data in their exact format. A node is outside the
// gateway's trust: a wrong type, junk in a hex string, a negative, a float or a height past 2^53
// must be refused here as a FaultyNodeError (the network goes faulty, nothing is saved), never
// reach a loop, an array size or BigInt() deep inside a scan, where it would throw a TypeError or
// stall the process. One module for all families, so the rule is written once.
import { FaultyNodeError } from './errors.ts';

/**
 * The highest block height any chain is believed to reach: 2^40 is about 1.1e12, 275 years of
 * blocks at 0.25 s (the fastest chain served); every loop over heights stays far from 2^53.
 */
export const MAX_HEIGHT = 2 ** 40;

/** The most a single list index (log index, output index, transaction count) may be. */
export const MAX_INDEX = 2 ** 32;

/** A description of the value for the error, short and safe to log. */
function shown(v: unknown): string {
  const s = typeof v === 'string' ? JSON.stringify(v) : typeof v === 'bigint' ? `${v}n` : String(JSON.stringify(v) ?? v);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

function fault(method: string, what: string, v: unknown): FaultyNodeError {
  return new FaultyNodeError(method, `the node answered ${shown(v)} for ${what}`);
}

/** An integer in 0..max given as a JSON number (Bitcoin Core, java-tron). */
export function intNumber(method: string, what: string, v: unknown, max: number = MAX_HEIGHT): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0 || v > max) throw fault(method, what, v);
  return v;
}

/** A block height given as a JSON number. */
export function heightNumber(method: string, v: unknown): number {
  return intNumber(method, 'a block height', v, MAX_HEIGHT);
}

/** An EVM quantity ("0x" and 1 to `bits`/4 hex digits, no junk) as a bigint below 2^bits. */
export function quantityHex(method: string, what: string, v: unknown, bits = 256): bigint {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]+$/.test(v) || v.length > 2 + bits / 4 + 64) throw fault(method, what, v);
  const n = BigInt(v);
  if (n >= 1n << BigInt(bits)) throw fault(method, what, v);
  return n;
}

/** An EVM quantity that is an integer in 0..max (a height, an index, a count). */
export function intHex(method: string, what: string, v: unknown, max: number = MAX_HEIGHT): number {
  const n = quantityHex(method, what, v, 64);
  if (n > BigInt(max)) throw fault(method, what, v);
  return Number(n);
}

/** A block height as an EVM quantity. */
export function heightHex(method: string, v: unknown): number {
  return intHex(method, 'a block height', v, MAX_HEIGHT);
}

/** A 32-byte hash: 64 hex digits, with "0x" when `prefixed` (EVM) and without (Bitcoin, TRON). */
export function hash32(method: string, what: string, v: unknown, prefixed: boolean): string {
  const re = prefixed ? /^0x[0-9a-fA-F]{64}$/ : /^[0-9a-fA-F]{64}$/;
  if (typeof v !== 'string' || !re.test(v)) throw fault(method, what, v);
  return v;
}

/** A 20-byte EVM address ("0x" and 40 hex digits). */
export function evmAddress(method: string, what: string, v: unknown): `0x${string}` {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(v)) throw fault(method, what, v);
  return v as `0x${string}`;
}

/** Hex bytes: an even number of hex digits, "0x"-prefixed when `prefixed`. */
export function hexData(method: string, what: string, v: unknown, prefixed: boolean): string {
  const re = prefixed ? /^0x([0-9a-fA-F]{2})*$/ : /^([0-9a-fA-F]{2})*$/;
  if (typeof v !== 'string' || !re.test(v)) throw fault(method, what, v);
  return v;
}

/** A JSON array (of anything), or the node's fault. */
export function list(method: string, what: string, v: unknown): unknown[] {
  if (!Array.isArray(v)) throw fault(method, what, v);
  return v;
}

/** A JSON object, or the node's fault. */
export function record(method: string, what: string, v: unknown): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw fault(method, what, v);
  return v as Record<string, unknown>;
}
