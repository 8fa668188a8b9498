// The bag-of-cells wire format (serialized_boc, magic b5ee9c72), as the node API returns
// transactions and account states and as sendBoc takes a message. Parsing treats the bytes as
// hostile: sizes are checked against the input before anything is allocated, work is linear in the
// input, references must point forward (so no cycle can be described), and every refusal is a
// TonCellError. Not supported (refused): the legacy magics 68ff65f3 / acc3a728 and absent cells.
import { base64 } from '@scure/base';
import { Cell, TonCellError } from './cell-tree.ts';

export interface BocLimits {
  maxBytes?: number;
  maxCells?: number;
  maxDepth?: number;
}

export const DEFAULT_BOC_LIMITS: Required<BocLimits> = { maxBytes: 1 << 20, maxCells: 10_000, maxDepth: 1024 };

const MAGIC = 0xb5ee9c72;

const CRC32C_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32C (Castagnoli), the checksum a bag of cells may end with (stored little-endian). */
export function crc32c(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const b of bytes) crc = CRC32C_TABLE[(crc ^ b) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

class Reader {
  at = 0;
  constructor(readonly bytes: Uint8Array) {}
  uint(n: number, what: string): number {
    if (this.at + n > this.bytes.length) throw new TonCellError(`bag of cells truncated in ${what}`);
    let v = 0;
    for (let i = 0; i < n; i++) v = v * 256 + this.bytes[this.at++]!;
    return v;
  }
}

/** The root cells of a bag of cells. */
export function parseBoc(bytes: Uint8Array, limits: BocLimits = {}): Cell[] {
  const lim = { ...DEFAULT_BOC_LIMITS, ...limits };
  if (!(bytes instanceof Uint8Array)) throw new TonCellError('a bag of cells must be bytes');
  if (bytes.length > lim.maxBytes) throw new TonCellError(`bag of cells of ${bytes.length} bytes is over the limit of ${lim.maxBytes}`);
  const r = new Reader(bytes);
  if (r.uint(4, 'the magic') !== MAGIC) throw new TonCellError('not a bag of cells (magic b5ee9c72 expected)');
  const flags = r.uint(1, 'the header');
  const hasIndex = (flags & 0x80) !== 0;
  const hasCrc = (flags & 0x40) !== 0;
  const refSize = flags & 7;
  if ((flags & 0x18) !== 0) throw new TonCellError('bag of cells has unknown header flags');
  if (refSize < 1 || refSize > 4) throw new TonCellError(`bag of cells reference size must be 1..4 bytes, not ${refSize}`);
  const offSize = r.uint(1, 'the header');
  if (offSize < 1 || offSize > 8) throw new TonCellError(`bag of cells offset size must be 1..8 bytes, not ${offSize}`);
  const cellCount = r.uint(refSize, 'the header');
  const rootCount = r.uint(refSize, 'the header');
  const absent = r.uint(refSize, 'the header');
  const dataSize = r.uint(offSize, 'the header');
  if (cellCount < 1 || cellCount > lim.maxCells) throw new TonCellError(`bag of cells has ${cellCount} cells, allowed 1..${lim.maxCells}`);
  if (rootCount < 1 || rootCount > cellCount) throw new TonCellError(`bag of cells has ${rootCount} roots for ${cellCount} cells`);
  if (absent !== 0) throw new TonCellError('bag of cells with absent cells is not supported');
  // Each cell takes at least its 2 descriptor bytes: a count the input cannot hold is refused now.
  const expected = r.at + rootCount * refSize + (hasIndex ? cellCount * offSize : 0) + dataSize + (hasCrc ? 4 : 0);
  if (dataSize < cellCount * 2 || expected !== bytes.length) throw new TonCellError(`bag of cells is ${bytes.length} bytes but its header describes ${expected}`);
  if (hasCrc) {
    const body = bytes.subarray(0, bytes.length - 4);
    const stored = new DataView(bytes.buffer, bytes.byteOffset + bytes.length - 4, 4).getUint32(0, true);
    if (crc32c(body) !== stored) throw new TonCellError('bag of cells checksum (crc32c) does not match');
  }
  const roots: number[] = [];
  for (let i = 0; i < rootCount; i++) {
    const idx = r.uint(refSize, 'the root list');
    if (idx >= cellCount) throw new TonCellError(`bag of cells root ${idx} is not a cell`);
    roots.push(idx);
  }
  if (hasIndex) r.at += cellCount * offSize;
  const dataStart = r.at;
  const raw: { exotic: boolean; levelMask: number; data: Uint8Array; bitLength: number; refs: number[] }[] = [];
  for (let i = 0; i < cellCount; i++) {
    const d1 = r.uint(1, `cell ${i}`);
    const d2 = r.uint(1, `cell ${i}`);
    const refCount = d1 & 7;
    if (refCount > 4) throw new TonCellError(`cell ${i} claims ${refCount} references`);
    const levelMask = d1 >> 5;
    // Stored hashes (d1 bit 4) are skipped: we compute every hash ourselves.
    if (d1 & 16) r.at += (((levelMask & 1) + ((levelMask >> 1) & 1) + ((levelMask >> 2) & 1)) + 1) * 34;
    const byteLen = Math.ceil(d2 / 2);
    if (byteLen > 128) throw new TonCellError(`cell ${i} claims ${byteLen} bytes of data`);
    if (r.at + byteLen > dataStart + dataSize) throw new TonCellError(`bag of cells truncated in cell ${i}`);
    const data = bytes.slice(r.at, r.at + byteLen);
    r.at += byteLen;
    let bitLength = byteLen * 8;
    if (d2 & 1) {
      const last = data[byteLen - 1]!;
      if (last === 0) throw new TonCellError(`cell ${i} has no completion bit`);
      bitLength -= 1 + Math.log2(last & -last);
      data[byteLen - 1] = last & (last - 1);
    }
    const refs: number[] = [];
    for (let k = 0; k < refCount; k++) {
      const ref = r.uint(refSize, `cell ${i}`);
      if (ref <= i || ref >= cellCount) throw new TonCellError(`cell ${i} refers to cell ${ref}: references must point forward to an existing cell`);
      refs.push(ref);
    }
    if (r.at > dataStart + dataSize) throw new TonCellError(`bag of cells truncated in cell ${i}`);
    raw.push({ exotic: (d1 & 8) !== 0, levelMask, data, bitLength, refs });
  }
  if (r.at !== dataStart + dataSize) throw new TonCellError(`bag of cells has ${dataStart + dataSize - r.at} bytes of cell data left over`);
  const cells: Cell[] = new Array(cellCount);
  for (let i = cellCount - 1; i >= 0; i--) {
    const c = raw[i]!;
    const cell = new Cell({ data: c.data, bitLength: c.bitLength, refs: c.refs.map((k) => cells[k]!), exotic: c.exotic });
    if (cell.levelMask !== c.levelMask) throw new TonCellError(`cell ${i} declares level mask ${c.levelMask}, its contents give ${cell.levelMask}`);
    if (cell.depth() > lim.maxDepth) throw new TonCellError(`bag of cells is deeper than ${lim.maxDepth}`);
    cells[i] = cell;
  }
  return roots.map((k) => cells[k]!);
}

/** The only root of a bag of cells that must have exactly one. */
export function parseSingleRootBoc(bytes: Uint8Array, limits?: BocLimits): Cell {
  const roots = parseBoc(bytes, limits);
  if (roots.length !== 1) throw new TonCellError(`expected one root cell, the bag of cells has ${roots.length}`);
  return roots[0]!;
}

export function bocFromBase64(text: string, limits?: BocLimits): Cell {
  const max = limits?.maxBytes ?? DEFAULT_BOC_LIMITS.maxBytes;
  if (typeof text !== 'string' || text.length > Math.ceil(max / 3) * 4 + 4) throw new TonCellError('bag of cells text is too long or not text');
  let bytes: Uint8Array;
  try {
    bytes = base64.decode(text.trim());
  } catch {
    throw new TonCellError('bag of cells is not valid base64');
  }
  return parseSingleRootBoc(bytes, limits);
}

export function bocToBase64(cell: Cell): string {
  return base64.encode(serializeBoc(cell));
}

const byteSize = (n: number): number => Math.max(1, Math.ceil(n.toString(2).length / 8));

/**
 * One root, cells in the order @ton/core writes them (parents before children, depth first, the
 * last reference first), each distinct cell once, so equal trees give equal bytes.
 */
export function serializeBoc(root: Cell, opts: { crc32c?: boolean; index?: boolean } = {}): Uint8Array {
  const withCrc = opts.crc32c ?? true;
  const withIndex = opts.index ?? false;
  const key = (c: Cell) => base64.encode(c.hash());
  const order: Cell[] = [];
  const done = new Set<string>();
  // Iterative post-order (no recursion on a deep tree), reversed at the end.
  const stack: { cell: Cell; next: number }[] = [{ cell: root, next: root.refs.length - 1 }];
  done.add(key(root));
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.next < 0) {
      order.push(top.cell);
      stack.pop();
      continue;
    }
    const child = top.cell.refs[top.next--]!;
    const k = key(child);
    if (done.has(k)) continue;
    done.add(k);
    stack.push({ cell: child, next: child.refs.length - 1 });
  }
  order.reverse();
  const index = new Map(order.map((c, i) => [key(c), i]));
  const refSize = byteSize(order.length);
  const sizes = order.map((c) => 2 + Math.ceil(c.bitLength / 8) + c.refs.length * refSize);
  const dataSize = sizes.reduce((a, b) => a + b, 0);
  const offSize = byteSize(dataSize);
  const total = 6 + 4 * refSize + offSize + (withIndex ? order.length * offSize : 0) + dataSize + (withCrc ? 4 : 0);
  const out = new Uint8Array(total);
  let at = 0;
  const put = (v: number, n: number) => {
    for (let i = n - 1; i >= 0; i--) out[at++] = Math.floor(v / 256 ** i) % 256;
  };
  put(MAGIC, 4);
  put((withIndex ? 0x80 : 0) | (withCrc ? 0x40 : 0) | refSize, 1);
  put(offSize, 1);
  put(order.length, refSize);
  put(1, refSize);
  put(0, refSize);
  put(dataSize, offSize);
  put(0, refSize);
  if (withIndex) {
    let end = 0;
    for (const s of sizes) put((end += s), offSize);
  }
  for (const c of order) {
    const bytes = Math.ceil(c.bitLength / 8);
    put(c.refs.length + (c.exotic ? 8 : 0) + 32 * c.levelMask, 1);
    put(Math.floor(c.bitLength / 8) + bytes, 1);
    out.set(c.data, at);
    if (c.bitLength % 8 !== 0) out[at + bytes - 1]! |= 1 << (7 - (c.bitLength % 8));
    at += bytes;
    for (const ref of c.refs) put(index.get(key(ref))!, refSize);
  }
  if (withCrc) new DataView(out.buffer).setUint32(at, crc32c(out.subarray(0, at)), true);
  return out;
}
