// runGetMethod's stack as ton-http-api speaks it (pytonlib's tvm_valuetypes): inputs
// `["num", "0x.." | "123" | 123]`, `["cell", {"bytes": b64}]`, `["slice", {"bytes": b64}]`,
// `["tvm.Cell", b64]`, `["tvm.Slice", b64]`; outputs `["num", "0x.."]` (python's hex(), so
// "-0x5"), cells and slices both as `["cell", {"bytes": b64, "object": {...}}]`, tuples and lists
// as `["tuple"|"list", {"@type": "tvm.tuple"|"tvm.list", "elements": [tonlib entries]}]`.
import { Cell, type TupleItem } from '@ton/core';
import { bocB64 } from './render.ts';

export class StackInputError extends Error {}

function parseNum(v: unknown): bigint {
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^-?(0x[0-9a-fA-F]+|[0-9]+)$/.test(v.trim())) {
    const s = v.trim();
    return s.startsWith('-') ? -BigInt(s.slice(1)) : BigInt(s);
  }
  throw new StackInputError(`Can't parse integer stack entry ${JSON.stringify(v)}`);
}

function parseBoc(v: unknown): Cell {
  const b = typeof v === 'string' ? v : v && typeof v === 'object' && typeof (v as { bytes?: unknown }).bytes === 'string' ? (v as { bytes: string }).bytes : null;
  if (b === null) throw new StackInputError('Error while parsing cell object');
  try {
    return Cell.fromBase64(b);
  } catch {
    throw new StackInputError('Error while parsing cell object');
  }
}

export function parseStack(stack: unknown): TupleItem[] {
  if (!Array.isArray(stack)) throw new StackInputError('stack must be a list of [type, value] pairs');
  return stack.map((e): TupleItem => {
    if (!Array.isArray(e) || e.length !== 2 || typeof e[0] !== 'string') throw new StackInputError(`Bad stack entry ${JSON.stringify(e)}`);
    const [t, v] = e as [string, unknown];
    switch (t) {
      case 'num':
      case 'number':
      case 'int':
        return { type: 'int', value: parseNum(v) };
      case 'cell':
      case 'tvm.Cell':
        return { type: 'cell', cell: parseBoc(v) };
      case 'slice':
      case 'tvm.Slice':
        return { type: 'slice', cell: parseBoc(v) };
      default:
        throw new StackInputError(`Unsupported stack entry type ${t}`);
    }
  });
}

const hex = (n: bigint) => (n < 0n ? '-0x' + (-n).toString(16) : '0x' + n.toString(16));

interface CellObject {
  data: { b64: string; len: number };
  refs: CellObject[];
  special: boolean;
}

function cellObject(c: Cell): CellObject {
  const s = c.beginParse(true);
  const len = s.remainingBits;
  const bytes = Math.ceil(len / 8);
  const buf = Buffer.alloc(bytes);
  for (let i = 0; i < len; i++) if (s.loadBit()) buf[i >> 3]! |= 0x80 >> (i & 7);
  return { data: { b64: buf.toString('base64'), len }, refs: c.refs.map(cellObject), special: c.isExotic };
}

function tonlibEntry(item: TupleItem): unknown {
  switch (item.type) {
    case 'int':
      return { '@type': 'tvm.stackEntryNumber', number: { '@type': 'tvm.numberDecimal', number: item.value.toString() } };
    case 'cell':
      return { '@type': 'tvm.stackEntryCell', cell: { '@type': 'tvm.cell', bytes: bocB64(item.cell) } };
    case 'slice':
    case 'builder':
      return { '@type': 'tvm.stackEntrySlice', slice: { '@type': 'tvm.slice', bytes: bocB64(item.cell) } };
    case 'tuple':
      return { '@type': 'tvm.stackEntryTuple', tuple: { '@type': 'tvm.tuple', elements: item.items.map(tonlibEntry) } };
    default:
      return { '@type': 'tvm.stackEntryUnsupported' };
  }
}

export function serializeStack(items: TupleItem[]): unknown[] {
  return items.map((item): unknown => {
    switch (item.type) {
      case 'int':
        return ['num', hex(item.value)];
      case 'cell':
      case 'slice':
      case 'builder':
        return ['cell', { bytes: bocB64(item.cell), object: cellObject(item.cell) }];
      case 'tuple':
        return ['tuple', { '@type': 'tvm.tuple', elements: item.items.map(tonlibEntry) }];
      case 'null':
        return ['null', null];
      case 'nan':
        return ['num', 'NaN'];
    }
  });
}
