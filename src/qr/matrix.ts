// The module matrix of a QR code, exactly as `QRCode.create(text, { errorCorrectionLevel: 'M' })`
// from the qrcode package (1.5.x) draws it, in about half the time. qrcode picks the mask by
// applying each of the 8 masks to its BitMatrix and scoring it through per-module get() calls,
// which is more than half of its cost. Here qrcode builds the symbol once with mask 0, and each
// other candidate is that symbol xored with a per-version pattern (mask 0 xor mask p on the data
// modules, and the format-information bits that change). The 8 are scored on the matrix packed
// in bits, 32 modules a word, by rows and by columns, with the same penalty rules (N1..N4 of
// lib/core/mask-pattern.js), the same format information (setupFormatInfo in lib/core/qrcode.js)
// and the same tie-break (the first lowest score wins).
// test/qr/matrix.test.ts checks the result against qrcode's own for thousands of texts.
import QRCode from 'qrcode';

export interface QrMatrix {
  /** Modules a side. */
  size: number;
  version: number;
  /** The mask pattern chosen, 0..7. */
  mask: number;
  /** size × size modules, row by row: 1 dark, 0 light. */
  modules: Uint8Array;
}

/** Error correction level M: its two format bits are 00. */
const EC_M_BITS = 0;

/**
 * The 15 format-information bits for level M and `mask`: the BCH(15,5) code of the 5 data
 * bits, xored with 101010000010010 (lib/core/format-info.js).
 */
function formatBits(mask: number): number {
  const data = (EC_M_BITS << 3) | mask;
  let rem = data << 10;
  for (let bit = 14; bit >= 10; bit--) if ((rem >> bit) & 1) rem ^= 0x537 << (bit - 10);
  return ((data << 10) | rem) ^ 0x5412;
}
const FORMAT_BITS = Array.from({ length: 8 }, (_, mask) => formatBits(mask));

/** Mask pattern `p` at (row i, column j), as getMaskAt in lib/core/mask-pattern.js. */
function maskAt(p: number, i: number, j: number): boolean {
  switch (p) {
    case 0: return (i + j) % 2 === 0;
    case 1: return i % 2 === 0;
    case 2: return j % 3 === 0;
    case 3: return (i + j) % 3 === 0;
    case 4: return (Math.floor(i / 2) + Math.floor(j / 3)) % 2 === 0;
    case 5: return ((i * j) % 2) + ((i * j) % 3) === 0;
    case 6: return (((i * j) % 2) + ((i * j) % 3)) % 2 === 0;
    default: return (((i * j) % 3) + ((i + j) % 2)) % 2 === 0;
  }
}

/** The set bits of a 32-bit word. */
function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/**
 * The matrix packed in bits, two ways: `rows` holds row r in words r*W..r*W+W-1 (bit c & 31 of
 * word c >> 5 is column c), `cols` the same for the transposed matrix. Scanning down consecutive
 * rows checks every column at once, 32 to a word; scanning the columns checks every row.
 */
interface Packed {
  rows: Int32Array;
  cols: Int32Array;
}

function pack(m: Uint8Array, n: number, words: number): Packed {
  const rows = new Int32Array(n * words);
  const cols = new Int32Array(n * words);
  for (let i = 0, at = 0; i < n; i++) {
    for (let j = 0; j < n; j++, at++) {
      if (m[at]) {
        rows[i * words + (j >> 5)]! |= 1 << (j & 31);
        cols[j * words + (i >> 5)]! |= 1 << (i & 31);
      }
    }
  }
  return { rows, cols };
}

/** What depends only on the version. */
interface Layout {
  size: number;
  /** Words a packed line: ceil(size / 32). */
  words: number;
  /**
   * For each mask p, what turns the symbol qrcode drew with mask 0 into the one with mask p:
   * mask 0 xor mask p on the data modules, and the changed format-information bits.
   */
  fromMask0: Uint8Array[];
  fromMask0Packed: Packed[];
}

const layouts = new Map<number, Layout>();

function layoutOf(version: number, size: number, reserved: Uint8Array): Layout {
  let layout = layouts.get(version);
  if (layout) return layout;
  const words = (size + 31) >> 5;
  // The format-information cells by bit, as setupFormatInfo in lib/core/qrcode.js: one copy down
  // column 8 (skipping the timing row), one along row 8 (skipping the timing column). The
  // always-dark module next to the lower copy is the same for every mask.
  const formatCells: [number, number][] = [];
  for (let i = 0; i < 15; i++) {
    const row = i < 6 ? i : i < 8 ? i + 1 : size - 15 + i;
    const col = i < 8 ? size - i - 1 : i < 9 ? 15 - i : 15 - i - 1;
    formatCells.push([row * size + 8, 8 * size + col]);
  }
  const fromMask0: Uint8Array[] = [];
  const fromMask0Packed: Packed[] = [];
  for (let p = 0; p < 8; p++) {
    const x = new Uint8Array(size * size);
    for (let i = 0; i < size; i++) {
      for (let j = 0; j < size; j++) {
        if (!reserved[i * size + j] && maskAt(0, i, j) !== maskAt(p, i, j)) x[i * size + j] = 1;
      }
    }
    const changed = FORMAT_BITS[0]! ^ FORMAT_BITS[p]!;
    for (let i = 0; i < 15; i++) {
      for (const cell of formatCells[i]!) x[cell] = (changed >> i) & 1;
    }
    fromMask0.push(x);
    fromMask0Packed.push(pack(x, size, words));
  }
  layout = { size, words, fromMask0, fromMask0Packed };
  layouts.set(version, layout);
  return layout;
}

/**
 * N1 and N3 along the lines of `lines` (n lines of `words` words each), looking across them:
 * bit b of every line at once. With `rows` that scores the columns, with `cols` the rows.
 *
 * N1, 3 + (length - 5) for each run of 5 or more modules of one colour: a run of length L ends
 * L - 4 windows of 5 equal modules, and starts one stretch of such windows; (L - 4) + 2 = L - 2.
 *
 * N3, 40 for each 10111010000 or 00001011101 (a 1:1:3:1:1 finder-like run with 4 light modules
 * on one side), only inside the symbol as qrcode does (no quiet zone).
 */
function penaltyAcross(lines: Int32Array, n: number, words: number, core: Int32Array, light4: Int32Array): number {
  let runs = 0;
  let finders = 0;
  for (let w = 0; w < words; w++) {
    const valid = w < words - 1 || (n & 31) === 0 ? -1 : (1 << (n & 31)) - 1;
    let x1 = 0;
    let x2 = 0;
    let x3 = 0;
    let x4 = 0;
    let x5 = 0;
    let x6 = 0;
    let eq1 = 0;
    let eq2 = 0;
    let eq3 = 0;
    let win5 = 0;
    for (let r = 0, at = w; r < n; r++, at += words) {
      // x1..x6: the lines before this one, nearest first.
      const x = lines[at]!;
      if (r > 0) {
        const eq = ~(x ^ x1) & valid;
        const now = r >= 4 ? eq & eq1 & eq2 & eq3 : 0;
        runs += popcount(now) + 2 * popcount(now & ~win5);
        win5 = now;
        eq3 = eq2;
        eq2 = eq1;
        eq1 = eq;
      }
      // 1011101 ending here, and 0000 ending here.
      core[r] = r >= 6 ? x6 & ~x5 & x4 & x3 & x2 & ~x1 & x : 0;
      light4[r] = r >= 3 ? ~(x3 | x2 | x1 | x) & valid : 0;
      if (r >= 10) finders += popcount(core[r - 4]! & light4[r]!) + popcount(light4[r - 7]! & core[r]!);
      x6 = x5;
      x5 = x4;
      x4 = x3;
      x3 = x2;
      x2 = x1;
      x1 = x;
    }
  }
  return runs + finders * 40;
}

/** N2: 3 for each 2×2 block of one colour (blocks overlap), from the rows. */
function penaltyBlocks(rows: Int32Array, n: number, words: number): number {
  let blocks = 0;
  const tail = (n - 1) & 31;
  for (let r = 0; r < n - 1; r++) {
    const top = r * words;
    const bottom = top + words;
    for (let w = 0; w < words; w++) {
      // Bit c: (r, c) equals (r + 1, c); then the same one column to the right, and (r, c)
      // equals (r, c + 1).
      const a = rows[top + w]!;
      const down = ~(a ^ rows[bottom + w]!);
      const last = w === words - 1;
      const aNext = last ? 0 : rows[top + w + 1]!;
      const downNext = last ? 0 : ~(aNext ^ rows[bottom + w + 1]!);
      const right = ~(a ^ ((a >>> 1) | (aNext << 31)));
      const downRight = (down >>> 1) | (downNext << 31);
      // Columns c = 0 .. n - 2 only.
      const valid = (w + 1) * 32 <= n - 1 ? -1 : w * 32 >= n - 1 ? 0 : (1 << tail) - 1;
      blocks += popcount(down & downRight & right & valid);
    }
  }
  return blocks * 3;
}

/** N4: 10 for each 5% step the share of dark modules is from 50%, computed as qrcode does. */
function penaltyBalance(rows: Int32Array, n: number): number {
  let dark = 0;
  for (let i = 0; i < rows.length; i++) dark += popcount(rows[i]!);
  const count = n * n;
  return Math.abs(Math.ceil((dark * 100) / count / 5) - 10) * 10;
}

/** qrcode's penalty (N1 + N2 + N3 + N4) for each mask 0..7, and the symbol drawn with mask 0. */
function scoreMasks(text: string): { scores: number[]; layout: Layout; version: number; drawn: Uint8Array } {
  const symbol = QRCode.create(text, { errorCorrectionLevel: 'M', maskPattern: 0 });
  const { size: n, data, reservedBit } = symbol.modules;
  const layout = layoutOf(symbol.version, n, reservedBit);
  const words = layout.words;
  const base = pack(data, n, words);
  const rows = new Int32Array(n * words);
  const cols = new Int32Array(n * words);
  const core = new Int32Array(n);
  const light4 = new Int32Array(n);
  const scores: number[] = [];
  for (let p = 0; p < 8; p++) {
    const x = layout.fromMask0Packed[p]!;
    for (let i = 0; i < rows.length; i++) {
      rows[i] = base.rows[i]! ^ x.rows[i]!;
      cols[i] = base.cols[i]! ^ x.cols[i]!;
    }
    scores.push(
      penaltyAcross(rows, n, words, core, light4) +
        penaltyAcross(cols, n, words, core, light4) +
        penaltyBlocks(rows, n, words) +
        penaltyBalance(rows, n),
    );
  }
  return { scores, layout, version: symbol.version, drawn: data };
}

/** qrcode's penalty for each mask 0..7 on `text` (for the tests). */
export function maskPenalties(text: string): number[] {
  return scoreMasks(text).scores;
}

/** The modules of `text` at error correction level M, the same as qrcode's. */
export function qrMatrix(text: string): QrMatrix {
  const { scores, layout, version, drawn } = scoreMasks(text);
  // The first of the lowest, as getBestMask.
  let mask = 0;
  for (let p = 1; p < 8; p++) if (scores[p]! < scores[mask]!) mask = p;
  const x = layout.fromMask0[mask]!;
  const modules = new Uint8Array(drawn.length);
  for (let i = 0; i < modules.length; i++) modules[i] = drawn[i]! ^ x[i]!;
  return { size: layout.size, version, mask, modules };
}
