// TON's data model: the cell (up to 1023 bits and 4 references), its representation hash and
// depth per the TVM rules, and the Slice that reads one. Everything the TON family sends or reads
// (messages, wallet state, transactions from the node) is a tree of these; our own code, so the
// server's TON path depends on no TON SDK. Import from cell.ts, which also gathers the Builder
// (builder.ts) and the bag-of-cells wire format (boc.ts).
//
// Exotic cells: pruned branch (1), library (2), Merkle proof (3) and Merkle update (4) are parsed
// and hashed with their level masks as the TVM does, so a transaction or a proof that carries
// pruned parts keeps its real hash; reading their data needs beginParse(true), as an exotic cell's
// bits are not the fields of the cell it stands for.
import { sha256 } from '@noble/hashes/sha2.js';

/** Every refusal of a malformed cell, slice or bag of cells; the message says what is wrong. */
export class TonCellError extends Error {
  override name = 'TonCellError';
}

/** An account address on TON: workchain and 32-byte account id (addr_std). */
export interface TonAddress {
  workchain: number;
  hash: Uint8Array;
}

export const MAX_CELL_BITS = 1023;
export const MAX_CELL_REFS = 4;

export const EXOTIC = { prunedBranch: 1, library: 2, merkleProof: 3, merkleUpdate: 4 } as const;

const popcount = (m: number): number => (m & 1) + ((m >> 1) & 1) + ((m >> 2) & 1);
const levelOf = (m: number): number => 32 - Math.clz32(m);
const maskApply = (m: number, level: number): number => m & ((1 << level) - 1);
const significant = (m: number, level: number): boolean => level === 0 || ((m >> (level - 1)) & 1) === 1;

export function bitAt(data: Uint8Array, i: number): number {
  return (data[i >> 3]! >> (7 - (i & 7))) & 1;
}

export class Cell {
  /** The cell's bits, ceil(bitLength / 8) bytes, unused low bits of the last byte zero. */
  readonly data: Uint8Array;
  readonly bitLength: number;
  readonly refs: readonly Cell[];
  readonly exotic: boolean;
  /** Level mask (0 for every cell without pruned branches below it). */
  readonly levelMask: number;
  private readonly hashes: Uint8Array[];
  private readonly depths: number[];

  constructor(opts: { data: Uint8Array; bitLength: number; refs?: readonly Cell[]; exotic?: boolean }) {
    const { bitLength } = opts;
    const refs = opts.refs ?? [];
    if (!Number.isInteger(bitLength) || bitLength < 0 || bitLength > MAX_CELL_BITS) throw new TonCellError(`a cell holds 0..1023 bits, not ${bitLength}`);
    if (refs.length > MAX_CELL_REFS) throw new TonCellError(`a cell holds at most 4 references, not ${refs.length}`);
    const bytes = Math.ceil(bitLength / 8);
    if (opts.data.length < bytes) throw new TonCellError(`a cell of ${bitLength} bits needs ${bytes} bytes of data`);
    const data = opts.data.slice(0, bytes);
    if (bitLength % 8 !== 0) data[bytes - 1]! &= (0xff << (8 - (bitLength % 8))) & 0xff;
    this.data = data;
    this.bitLength = bitLength;
    this.refs = Object.freeze([...refs]);
    this.exotic = opts.exotic ?? false;
    const { mask, hashes, depths } = this.resolve();
    this.levelMask = mask;
    this.hashes = hashes;
    this.depths = depths;
  }

  static readonly EMPTY = new Cell({ data: new Uint8Array(0), bitLength: 0 });

  /** Representation hash at a level (3, the default, is the hash that names the cell). */
  hash(level = 3): Uint8Array {
    return this.hashes[Math.min(Math.max(level, 0), 3)]!.slice();
  }

  depth(level = 3): number {
    return this.depths[Math.min(Math.max(level, 0), 3)]!;
  }

  /** The exotic type (1..4), or null for an ordinary cell. */
  get exoticType(): number | null {
    return this.exotic ? this.data[0]! : null;
  }

  /** A reader of the cell; an exotic cell is refused unless asked for, its bits are not fields. */
  beginParse(allowExotic = false): Slice {
    if (this.exotic && !allowExotic) throw new TonCellError(`cannot read an exotic cell (type ${this.data[0]}) as fields`);
    return new Slice(this, 0, 0);
  }

  equals(other: Cell): boolean {
    const a = this.hashes[3]!;
    const b = other.hashes[3]!;
    return a.every((v, i) => v === b[i]);
  }

  /** The level mask, per-level hashes and depths, checking an exotic cell's layout. */
  private resolve(): { mask: number; hashes: Uint8Array[]; depths: number[] } {
    const type = this.exotic ? this.exoticLayout() : 0;
    let mask = 0;
    if (type === EXOTIC.prunedBranch) mask = this.data[1]!;
    else if (type === EXOTIC.merkleProof || type === EXOTIC.merkleUpdate) for (const r of this.refs) mask |= r.levelMask >> 1;
    else if (type === 0) for (const r of this.refs) mask |= r.levelMask;
    const merkle = type === EXOTIC.merkleProof || type === EXOTIC.merkleUpdate;
    const total = popcount(mask) + 1;
    const offset = type === EXOTIC.prunedBranch ? total - 1 : 0;
    const own: Uint8Array[] = [];
    const ownDepths: number[] = [];
    for (let level = 0, hashI = 0; level <= levelOf(mask); level++) {
      if (!significant(mask, level)) continue;
      if (hashI++ < offset) continue;
      const childLevel = merkle ? level + 1 : level;
      let depth = 0;
      for (const r of this.refs) depth = Math.max(depth, r.depth(childLevel) + 1);
      const body = own.length === 0 ? this.data : own[own.length - 1]!;
      const repr = new Uint8Array(2 + body.length + 34 * this.refs.length);
      repr[0] = this.refs.length + (this.exotic ? 8 : 0) + 32 * maskApply(mask, level);
      repr[1] = Math.floor(this.bitLength / 8) + Math.ceil(this.bitLength / 8);
      repr.set(body, 2);
      if (own.length === 0 && this.bitLength % 8 !== 0) repr[1 + body.length]! |= 1 << (7 - (this.bitLength % 8));
      let at = 2 + body.length;
      for (const r of this.refs) {
        const d = r.depth(childLevel);
        repr[at++] = d >> 8;
        repr[at++] = d & 0xff;
      }
      for (const r of this.refs) {
        repr.set(r.hashes[Math.min(childLevel, 3)]!, at);
        at += 32;
      }
      own.push(sha256(repr));
      ownDepths.push(depth);
    }
    const hashes: Uint8Array[] = [];
    const depths: number[] = [];
    for (let i = 0; i < 4; i++) {
      const index = popcount(maskApply(mask, i));
      if (type === EXOTIC.prunedBranch && index !== popcount(mask)) {
        const n = popcount(mask);
        hashes.push(this.data.slice(2 + 32 * index, 2 + 32 * index + 32));
        depths.push((this.data[2 + 32 * n + 2 * index]! << 8) | this.data[3 + 32 * n + 2 * index]!);
      } else {
        hashes.push(own[type === EXOTIC.prunedBranch ? 0 : index]!);
        depths.push(ownDepths[type === EXOTIC.prunedBranch ? 0 : index]!);
      }
    }
    return { mask, hashes, depths };
  }

  private exoticLayout(): number {
    if (this.bitLength < 8) throw new TonCellError('an exotic cell needs its 8-bit type');
    const type = this.data[0]!;
    const expect = (bits: number, refs: number) => {
      if (this.bitLength !== bits || this.refs.length !== refs) throw new TonCellError(`exotic cell of type ${type} must have ${bits} bits and ${refs} references, not ${this.bitLength} and ${this.refs.length}`);
    };
    const checkChild = (at: number, child: Cell, depthAt: number) => {
      const h = child.hash(0);
      const d = (this.data[depthAt]! << 8) | this.data[depthAt + 1]!;
      if (!h.every((v, i) => v === this.data[at + i]) || d !== child.depth(0)) throw new TonCellError('a Merkle cell names a hash or depth its child does not have');
    };
    if (type === EXOTIC.prunedBranch) {
      const mask = this.bitLength >= 16 ? this.data[1]! : 0;
      if (mask < 1 || mask > 7) throw new TonCellError(`pruned branch level mask must be 1..7, not ${mask}`);
      expect(16 + popcount(mask) * (256 + 16), 0);
    } else if (type === EXOTIC.library) {
      expect(8 + 256, 0);
    } else if (type === EXOTIC.merkleProof) {
      expect(8 + 256 + 16, 1);
      checkChild(1, this.refs[0]!, 33);
    } else if (type === EXOTIC.merkleUpdate) {
      expect(8 + 512 + 32, 2);
      checkChild(1, this.refs[0]!, 65);
      checkChild(33, this.refs[1]!, 67);
    } else {
      throw new TonCellError(`unknown exotic cell type ${type}`);
    }
    return type;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Strict UTF-8 decoding; invalid bytes are a TonCellError, not a TypeError. */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new TonCellError('the text is not valid UTF-8');
  }
}

/** A reader over one cell: bits from the front, references in order. */
export class Slice {
  constructor(
    readonly cell: Cell,
    private bit: number,
    private ref: number,
  ) {}

  get remainingBits(): number {
    return this.cell.bitLength - this.bit;
  }

  get remainingRefs(): number {
    return this.cell.refs.length - this.ref;
  }

  /** Position of the next bit and reference, for copying what is left (Builder.storeSlice). */
  get offsets(): { bit: number; ref: number } {
    return { bit: this.bit, ref: this.ref };
  }

  clone(): Slice {
    return new Slice(this.cell, this.bit, this.ref);
  }

  private need(bits: number): void {
    if (!Number.isInteger(bits) || bits < 0) throw new TonCellError(`cannot read ${bits} bits`);
    if (bits > this.remainingBits) throw new TonCellError(`cannot read ${bits} bits, ${this.remainingBits} left in the cell`);
  }

  preloadUint(bits: number): bigint {
    this.need(bits);
    let v = 0n;
    let i = this.bit;
    const end = this.bit + bits;
    // Whole bytes at once where aligned, single bits at the edges.
    while (i < end) {
      if ((i & 7) === 0 && end - i >= 8) {
        v = (v << 8n) | BigInt(this.cell.data[i >> 3]!);
        i += 8;
      } else {
        v = (v << 1n) | BigInt(bitAt(this.cell.data, i));
        i++;
      }
    }
    return v;
  }

  loadUint(bits: number): bigint {
    const v = this.preloadUint(bits);
    this.bit += bits;
    return v;
  }

  /** For small fields (op codes, seqno, flags): at most 48 bits, so the number is exact. */
  loadUintNumber(bits: number): number {
    if (bits > 48) throw new TonCellError(`loadUintNumber reads at most 48 bits, not ${bits}`);
    return Number(this.loadUint(bits));
  }

  loadInt(bits: number): bigint {
    if (bits === 0) return 0n;
    const v = this.loadUint(bits);
    return v >= 1n << BigInt(bits - 1) ? v - (1n << BigInt(bits)) : v;
  }

  loadBit(): boolean {
    this.need(1);
    return bitAt(this.cell.data, this.bit++) === 1;
  }

  skip(bits: number): this {
    this.need(bits);
    this.bit += bits;
    return this;
  }

  loadBuffer(bytes: number): Uint8Array {
    this.need(bytes * 8);
    const out = new Uint8Array(bytes);
    const shift = this.bit & 7;
    const start = this.bit >> 3;
    const d = this.cell.data;
    for (let k = 0; k < bytes; k++) {
      out[k] = shift === 0 ? d[start + k]! : ((d[start + k]! << shift) | ((d[start + k + 1] ?? 0) >> (8 - shift))) & 0xff;
    }
    this.bit += bytes * 8;
    return out;
  }

  /** VarUInteger 16 (Grams): a 4-bit byte length, then that many bytes. */
  loadCoins(): bigint {
    const len = this.loadUintNumber(4);
    return this.loadUint(len * 8);
  }

  /** MsgAddress: addr_std, or null for addr_none; addr_extern, addr_var and anycast are refused. */
  loadAddress(): TonAddress | null {
    const tag = this.loadUintNumber(2);
    if (tag === 0) return null;
    if (tag === 1) throw new TonCellError('external addresses (addr_extern) are not supported');
    if (tag === 3) throw new TonCellError('variable-length addresses (addr_var) are not supported');
    if (this.loadBit()) throw new TonCellError('anycast addresses are not supported');
    const workchain = Number(this.loadInt(8));
    return { workchain, hash: this.loadBuffer(32) };
  }

  /** Same as loadAddress: addr_none reads as null. */
  loadMaybeAddress(): TonAddress | null {
    return this.loadAddress();
  }

  loadRef(): Cell {
    if (this.remainingRefs < 1) throw new TonCellError('no reference left in the cell');
    return this.cell.refs[this.ref++]!;
  }

  loadMaybeRef(): Cell | null {
    return this.loadBit() ? this.loadRef() : null;
  }

  /** Snake-format bytes: this cell's remaining bytes, then its only reference's, and so on. */
  loadSnakeBytes(): Uint8Array {
    const parts: Uint8Array[] = [];
    let total = 0;
    for (let s: Slice | null = this; s; ) {
      if (s.remainingBits % 8 !== 0) throw new TonCellError(`a string tail must be whole bytes, not ${s.remainingBits} bits`);
      if (s.remainingRefs > 1) throw new TonCellError(`a string tail continues in at most one reference, not ${s.remainingRefs}`);
      const part = s.loadBuffer(s.remainingBits / 8);
      parts.push(part);
      total += part.length;
      s = s.remainingRefs === 1 ? s.loadRef().beginParse() : null;
    }
    const out = new Uint8Array(total);
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }

  loadStringTail(): string {
    return decodeUtf8(this.loadSnakeBytes());
  }

  /** Refuses leftover bits or references: the layout read was not the whole cell. */
  endParse(): void {
    if (this.remainingBits !== 0 || this.remainingRefs !== 0) throw new TonCellError(`${this.remainingBits} bits and ${this.remainingRefs} references left unread`);
  }
}
