// Writing cells: fields appended bit by bit with the TL-B encodings TON messages use (unsigned and
// signed integers, Grams, addresses, Maybe references, snake strings), refusing a value that does
// not fit its field instead of truncating it, since a truncated amount or address is a lost payment.
import { bitAt, Cell, MAX_CELL_BITS, MAX_CELL_REFS, type Slice, type TonAddress, TonCellError } from './cell-tree.ts';

const MAX_COINS = 1n << 120n;

function toBigInt(v: bigint | number, what: string): bigint {
  if (typeof v === 'bigint') return v;
  if (!Number.isSafeInteger(v)) throw new TonCellError(`${what}: ${v} is not a safe integer, pass a bigint`);
  return BigInt(v);
}

export class Builder {
  private readonly data = new Uint8Array(128);
  private bits = 0;
  private readonly refs: Cell[] = [];

  get bitLength(): number {
    return this.bits;
  }

  get availableBits(): number {
    return MAX_CELL_BITS - this.bits;
  }

  get availableRefs(): number {
    return MAX_CELL_REFS - this.refs.length;
  }

  private room(bits: number): void {
    if (!Number.isInteger(bits) || bits < 0) throw new TonCellError(`cannot write ${bits} bits`);
    if (bits > this.availableBits) throw new TonCellError(`cannot write ${bits} bits, ${this.availableBits} left in the cell`);
  }

  private put(bit: number): void {
    if (bit) this.data[this.bits >> 3]! |= 0x80 >> (this.bits & 7);
    this.bits++;
  }

  storeBit(bit: boolean | number): this {
    this.room(1);
    this.put(bit ? 1 : 0);
    return this;
  }

  storeUint(value: bigint | number, bits: number): this {
    const v = toBigInt(value, 'storeUint');
    this.room(bits);
    if (v < 0n || v >= 1n << BigInt(bits)) throw new TonCellError(`${v} does not fit in ${bits} unsigned bits`);
    for (let i = bits - 1; i >= 0; i--) this.put(Number((v >> BigInt(i)) & 1n));
    return this;
  }

  storeInt(value: bigint | number, bits: number): this {
    const v = toBigInt(value, 'storeInt');
    this.room(bits);
    const half = bits === 0 ? 0n : 1n << BigInt(bits - 1);
    if (bits === 0 ? v !== 0n : v < -half || v >= half) throw new TonCellError(`${v} does not fit in ${bits} signed bits`);
    return this.storeUint(v < 0n ? v + (1n << BigInt(bits)) : v, bits);
  }

  storeBuffer(bytes: Uint8Array): this {
    this.room(bytes.length * 8);
    if ((this.bits & 7) === 0) {
      this.data.set(bytes, this.bits >> 3);
      this.bits += bytes.length * 8;
    } else {
      for (const b of bytes) for (let i = 7; i >= 0; i--) this.put((b >> i) & 1);
    }
    return this;
  }

  /** Grams / VarUInteger 16: 0 .. 2^120 - 1, as a 4-bit byte length and the bytes. */
  storeCoins(value: bigint | number): this {
    const v = toBigInt(value, 'storeCoins');
    if (v < 0n || v >= MAX_COINS) throw new TonCellError(`coins must be 0 .. 2^120 - 1, not ${v}`);
    let len = 0;
    while (v >> BigInt(len * 8) > 0n) len++;
    return this.storeUint(len, 4).storeUint(v, len * 8);
  }

  /** addr_std without anycast, or addr_none for null. */
  storeAddress(address: TonAddress | null): this {
    if (address === null) return this.storeUint(0, 2);
    if (!Number.isInteger(address.workchain) || address.workchain < -128 || address.workchain > 127) throw new TonCellError(`workchain must be -128..127, not ${address.workchain}`);
    if (address.hash.length !== 32) throw new TonCellError(`an address hash is 32 bytes, not ${address.hash.length}`);
    this.room(267);
    return this.storeUint(2, 2).storeBit(0).storeInt(address.workchain, 8).storeBuffer(address.hash);
  }

  storeRef(cell: Cell): this {
    if (this.refs.length >= MAX_CELL_REFS) throw new TonCellError('a cell holds at most 4 references');
    this.refs.push(cell);
    return this;
  }

  storeMaybeRef(cell: Cell | null): this {
    if (cell === null) return this.storeBit(0);
    if (this.refs.length >= MAX_CELL_REFS) throw new TonCellError('a cell holds at most 4 references');
    return this.storeBit(1).storeRef(cell);
  }

  /** Snake bytes: as many whole bytes as fit here, the rest in a chain of single references. */
  storeSnakeBytes(bytes: Uint8Array): this {
    const here = Math.floor(this.availableBits / 8);
    if (bytes.length <= here) return this.storeBuffer(bytes);
    if (this.availableRefs < 1) throw new TonCellError('no reference left to continue the string tail');
    this.storeBuffer(bytes.subarray(0, here));
    // Built from the last cell back, so a long text costs no recursion.
    const rest = bytes.subarray(here);
    const per = Math.floor(MAX_CELL_BITS / 8);
    let tail: Cell | null = null;
    for (let end = rest.length; end > 0; ) {
      const start = (Math.ceil(end / per) - 1) * per;
      const b = new Builder().storeBuffer(rest.subarray(start, end));
      if (tail) b.storeRef(tail);
      tail = b.endCell();
      end = start;
    }
    return this.storeRef(tail!);
  }

  /** UTF-8 text in snake format; a character may be split across two cells, as TON wallets do. */
  storeStringTail(text: string): this {
    return this.storeSnakeBytes(new TextEncoder().encode(text));
  }

  /** What is left of the slice (the slice itself is not advanced). */
  storeSlice(slice: Slice): this {
    const { bit, ref } = slice.offsets;
    const bits = slice.remainingBits;
    this.room(bits);
    if (slice.remainingRefs > this.availableRefs) throw new TonCellError(`cannot add ${slice.remainingRefs} references, ${this.availableRefs} left`);
    for (let i = 0; i < bits; i++) this.put(bitAt(slice.cell.data, bit + i));
    for (const r of slice.cell.refs.slice(ref)) this.refs.push(r);
    return this;
  }

  storeBuilder(other: Builder): this {
    return this.storeSlice(other.endCell().beginParse());
  }

  endCell(): Cell {
    return new Cell({ data: this.data, bitLength: this.bits, refs: this.refs });
  }
}

export function beginCell(): Builder {
  return new Builder();
}
