// Cells, slices and bags of cells, checked against @ton/core as an independent implementation:
// same hashes, same bytes, each side parses the other's output; and hostile bags of cells are
// refused quickly with a TonCellError (never a RangeError or a hang).
import { describe, expect, it } from 'vitest';
import { Address, beginCell as tonBeginCell, Cell as TonCell, Dictionary, generateMerkleProof, generateMerkleUpdate } from '@ton/core';
import { beginCell, bocFromBase64, bocToBase64, Cell, crc32c, parseBoc, serializeBoc, TonCellError } from '../../../src/chain/ton/cell.ts';

/** Deterministic PRNG (mulberry32) so a failure reproduces. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const theirs = (c: Cell) => TonCell.fromBoc(Buffer.from(serializeBoc(c)))[0]!;
const ours = (c: TonCell) => parseBoc(new Uint8Array(c.toBoc()))[0]!;

/** The same random tree built by both libraries (shared subtrees included, so a DAG). */
function randomPair(rand: () => number, depth: number, pool: [Cell, TonCell][]): [Cell, TonCell] {
  if (pool.length > 0 && rand() < 0.15) return pool[Math.floor(rand() * pool.length)]!;
  const a = beginCell();
  const b = tonBeginCell();
  const bits = Math.floor(rand() ** 2 * 1024) % 1024;
  let left = bits;
  while (left > 0) {
    const n = Math.min(left, 1 + Math.floor(rand() * 64));
    const v = BigInt(Math.floor(rand() * 2 ** 32)) * BigInt(Math.floor(rand() * 2 ** 32)) % (1n << BigInt(n));
    a.storeUint(v, n);
    b.storeUint(v, n);
    left -= n;
  }
  const refs = depth > 0 ? Math.floor(rand() * 5) : 0;
  for (let i = 0; i < refs; i++) {
    const [ra, rb] = randomPair(rand, depth - 1, pool);
    a.storeRef(ra);
    b.storeRef(rb);
  }
  const pair: [Cell, TonCell] = [a.endCell(), b.endCell()];
  pool.push(pair);
  return pair;
}

function refusal(bytes: Uint8Array, limits?: Parameters<typeof parseBoc>[1]): string {
  try {
    parseBoc(bytes, limits);
  } catch (err) {
    expect(err).toBeInstanceOf(TonCellError);
    return (err as Error).message;
  }
  throw new Error('parsed');
}

describe('cells against @ton/core', () => {
  it('gives the same hash, depth and bag-of-cells bytes for 300 random trees, and each parses the other', () => {
    const rand = rng(20261127);
    for (let i = 0; i < 300; i++) {
      const [a, b] = randomPair(rand, 4, []);
      expect(hex(a.hash())).toBe(b.hash().toString('hex'));
      expect(a.depth()).toBe(b.depth());
      expect(hex(serializeBoc(a))).toBe(b.toBoc().toString('hex'));
      expect(hex(serializeBoc(a, { crc32c: false, index: true }))).toBe(b.toBoc({ idx: true, crc32: false }).toString('hex'));
      expect(theirs(a).equals(b)).toBe(true);
      expect(ours(b).equals(a)).toBe(true);
      expect(hex(ours(b).hash())).toBe(hex(a.hash()));
    }
  });

  it('reads every field type back as written, and as @ton/core reads it', () => {
    const addr: { workchain: number; hash: Uint8Array } = { workchain: -1, hash: new Uint8Array(32).map((_, i) => i * 7) };
    const c = beginCell()
      .storeUint(0xdeadbeefn, 32)
      .storeInt(-5, 9)
      .storeBit(true)
      .storeCoins(0n)
      .storeCoins((1n << 120n) - 1n)
      .storeAddress(addr)
      .storeAddress(null)
      .storeBuffer(new Uint8Array([1, 2, 3]))
      .storeMaybeRef(null)
      .storeMaybeRef(beginCell().storeUint(7, 3).endCell())
      .endCell();
    const s = c.beginParse();
    expect(s.loadUint(32)).toBe(0xdeadbeefn);
    expect(s.loadInt(9)).toBe(-5n);
    expect(s.loadBit()).toBe(true);
    expect(s.loadCoins()).toBe(0n);
    expect(s.loadCoins()).toBe((1n << 120n) - 1n);
    const a = s.loadAddress()!;
    expect([a.workchain, hex(a.hash)]).toEqual([-1, hex(addr.hash)]);
    expect(s.loadAddress()).toBeNull();
    expect([...s.loadBuffer(3)]).toEqual([1, 2, 3]);
    expect(s.loadMaybeRef()).toBeNull();
    expect(s.loadMaybeRef()!.beginParse().loadUintNumber(3)).toBe(7);
    s.endParse();
    const t = theirs(c).beginParse();
    expect(t.loadUintBig(32)).toBe(0xdeadbeefn);
    expect(t.loadInt(9)).toBe(-5);
    expect(t.loadBit()).toBe(true);
    expect(t.loadCoins()).toBe(0n);
    expect(t.loadCoins()).toBe((1n << 120n) - 1n);
    expect(t.loadAddress().toRawString()).toBe(`-1:${hex(addr.hash)}`);
    expect(t.loadMaybeAddress()).toBeNull();
  });

  it('writes an address as @ton/core does and reads theirs', () => {
    const a = Address.parse('EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N');
    const mine = beginCell().storeAddress({ workchain: a.workChain, hash: new Uint8Array(a.hash) }).endCell();
    expect(mine.equals(ours(tonBeginCell().storeAddress(a).endCell()))).toBe(true);
    const back = ours(tonBeginCell().storeAddress(a).endCell()).beginParse().loadAddress()!;
    expect(back.workchain).toBe(0);
    expect(hex(back.hash)).toBe(a.hash.toString('hex'));
  });

  it('refuses coins of 2^120 or negative, values that do not fit, and addresses it does not support', () => {
    expect(() => beginCell().storeCoins(1n << 120n)).toThrow(TonCellError);
    expect(() => beginCell().storeCoins(-1n)).toThrow(TonCellError);
    expect(() => beginCell().storeUint(256, 8)).toThrow(TonCellError);
    expect(() => beginCell().storeInt(128, 8)).toThrow(TonCellError);
    expect(() => beginCell().storeUint(2 ** 60, 64)).toThrow(/bigint/);
    expect(() => beginCell().storeBuffer(new Uint8Array(128))).toThrow(TonCellError);
    const b = beginCell();
    for (let i = 0; i < 4; i++) b.storeRef(Cell.EMPTY);
    expect(() => b.storeRef(Cell.EMPTY)).toThrow(TonCellError);
    expect(() => beginCell().storeAddress({ workchain: 0, hash: new Uint8Array(31) })).toThrow(TonCellError);
    const ext = ours(tonBeginCell().storeUint(1, 2).storeUint(0, 9).endCell());
    expect(() => ext.beginParse().loadAddress()).toThrow(/addr_extern/);
    expect(() => Cell.EMPTY.beginParse().loadUint(1)).toThrow(TonCellError);
    expect(() => Cell.EMPTY.beginParse().loadRef()).toThrow(TonCellError);
  });
});

describe('string tails', () => {
  const texts = ['', 'hi', 'x'.repeat(127), 'x'.repeat(128), '€'.repeat(200), 'ab🎉'.repeat(120), 'ж'.repeat(500)];
  it('snake-encodes like @ton/core, multi-byte characters split across cells included, and reads both back', () => {
    for (const text of texts) {
      for (const prefix of [0, 32, 33]) {
        const a = beginCell().storeUint(0, prefix).storeStringTail(text).endCell();
        const b = tonBeginCell().storeUint(0, prefix).storeStringTail(text).endCell();
        expect(hex(a.hash())).toBe(b.hash().toString('hex'));
        const s = ours(b).beginParse();
        s.skip(prefix);
        expect(s.loadStringTail()).toBe(text);
        const t = theirs(a).beginParse();
        t.skip(prefix);
        expect(t.loadStringTail()).toBe(text);
      }
    }
    // A character really is cut in two: the first cell ends inside a 3-byte '€'.
    const split = beginCell().storeStringTail('€'.repeat(200)).endCell();
    expect(split.bitLength).toBe(127 * 8);
    expect(split.refs.length).toBe(1);
  });

  it('refuses invalid UTF-8 and a tail that is not whole bytes', () => {
    const bad = beginCell().storeBuffer(new Uint8Array([0x61, 0xc3])).endCell();
    expect(() => bad.beginParse().loadStringTail()).toThrow(TonCellError);
    const odd = beginCell().storeUint(0x61, 8).storeBit(1).endCell();
    expect(() => odd.beginParse().loadStringTail()).toThrow(/whole bytes/);
    const twoRefs = beginCell().storeRef(Cell.EMPTY).storeRef(Cell.EMPTY).endCell();
    expect(() => twoRefs.beginParse().loadStringTail()).toThrow(TonCellError);
  });
});

describe('exotic cells', () => {
  const dict = Dictionary.empty(Dictionary.Keys.Uint(32), Dictionary.Values.BigUint(64));
  for (let i = 0; i < 40; i++) dict.set(i * 37, BigInt(i) * 1000n);
  const root = tonBeginCell().storeDictDirect(dict).endCell();

  it('hashes a Merkle proof with pruned branches as @ton/core does, at every level', () => {
    const proof = generateMerkleProof(dict, [37, 370], Dictionary.Keys.Uint(32));
    const mine = ours(proof);
    expect(mine.exoticType).toBe(3);
    for (let level = 0; level < 4; level++) {
      expect(hex(mine.hash(level))).toBe(proof.hash(level).toString('hex'));
      expect(mine.depth(level)).toBe(proof.depth(level));
    }
    // The proof proves the dictionary root: its level-0 child hash is the root's hash.
    expect(hex(mine.refs[0]!.hash(0))).toBe(root.hash().toString('hex'));
    expect(hex(serializeBoc(mine))).toBe(proof.toBoc().toString('hex'));
    expect(() => mine.beginParse()).toThrow(/exotic/);
    expect(mine.beginParse(true).loadUintNumber(8)).toBe(3);
  });

  it('hashes a Merkle update as @ton/core does', () => {
    const update = generateMerkleUpdate(dict, 74, Dictionary.Keys.Uint(32), 5n);
    const mine = ours(update);
    expect(mine.exoticType).toBe(4);
    expect(hex(mine.hash())).toBe(update.hash().toString('hex'));
    expect(hex(serializeBoc(mine))).toBe(update.toBoc().toString('hex'));
  });

  it('refuses a Merkle proof whose stored hash is not its child', () => {
    const proof = generateMerkleProof(dict, [37], Dictionary.Keys.Uint(32));
    const bytes = new Uint8Array(proof.toBoc({ crc32: false }));
    // The proof is cell 0; its stored hash starts right after d1, d2 and the type byte.
    const at = 6 + 4 * bytes[4]! + bytes[5]! + 2 + 1;
    bytes[at]! ^= 1;
    expect(refusal(bytes)).toMatch(/Merkle/);
  });
});

describe('hostile bags of cells', () => {
  const good = serializeBoc(beginCell().storeUint(1, 8).storeRef(beginCell().storeUint(2, 8).endCell()).endCell());

  it('refuses truncated input at every length', () => {
    for (let n = 0; n < good.length; n++) refusal(good.subarray(0, n));
    expect(parseBoc(good)).toHaveLength(1);
  });

  it('refuses a bad checksum, bad magic, trailing bytes and random garbage', () => {
    const flipped = good.slice();
    flipped[good.length - 6]! ^= 0x10;
    expect(refusal(flipped)).toMatch(/crc32c|checksum/);
    expect(refusal(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]))).toMatch(/magic/);
    expect(refusal(new Uint8Array([...good, 0]))).toMatch(/describes/);
    const rand = rng(7);
    for (let i = 0; i < 2000; i++) {
      const junk = good.slice();
      junk[Math.floor(rand() * junk.length)] = Math.floor(rand() * 256);
      if (i % 2) junk[4] = junk[4]! & ~0x40; // without the checksum, the corruption reaches the cell parser
      try {
        parseBoc(junk);
      } catch (err) {
        expect(err).toBeInstanceOf(TonCellError);
      }
    }
  });

  it('refuses huge cell counts from a tiny input without allocating them', () => {
    // 4-byte counts claiming 2^32-1 cells and a 2^40-byte data section.
    const header = new Uint8Array([0xb5, 0xee, 0x9c, 0x72, 0x04, 0x05, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1, 0, 0, 0, 0, 0xff, 0, 0, 0, 0, 0, 0, 0, 0]);
    const t = performance.now();
    expect(refusal(header)).toMatch(/cells/);
    expect(refusal(header, { maxCells: 2 ** 33 })).toMatch(/describes|truncated/);
    expect(performance.now() - t).toBeLessThan(50);
  });

  it('refuses references that point back (a cycle) or to themselves', () => {
    // Two cells, cell 0 refers to cell 1 and cell 1 back to cell 0.
    const loop = new Uint8Array([0xb5, 0xee, 0x9c, 0x72, 0x01, 0x01, 2, 1, 0, 6, 0, 0x01, 0x00, 1, 0x01, 0x00, 0]);
    expect(refusal(loop)).toMatch(/forward/);
    const self = new Uint8Array([0xb5, 0xee, 0x9c, 0x72, 0x01, 0x01, 1, 1, 0, 3, 0, 0x01, 0x00, 0]);
    expect(refusal(self)).toMatch(/forward/);
  });

  it('refuses a chain deeper than the limit and more cells or bytes than allowed', () => {
    let c = beginCell().endCell();
    for (let i = 0; i < 1100; i++) c = beginCell().storeRef(c).endCell();
    const deep = serializeBoc(c);
    const t = performance.now();
    expect(refusal(deep)).toMatch(/deeper/);
    expect(performance.now() - t).toBeLessThan(500);
    expect(parseBoc(deep, { maxDepth: 2000 })[0]!.depth()).toBe(1100);
    expect(refusal(deep, { maxCells: 1000 })).toMatch(/cells/);
    expect(refusal(deep, { maxBytes: 100 })).toMatch(/limit/);
  });

  it('refuses a declared level mask that the cell does not have, and a missing completion bit', () => {
    const lying = new Uint8Array([0xb5, 0xee, 0x9c, 0x72, 0x01, 0x01, 1, 1, 0, 3, 0, 0x20, 0x01, 0x80]);
    expect(refusal(lying)).toMatch(/level mask/);
    const noTag = new Uint8Array([0xb5, 0xee, 0x9c, 0x72, 0x01, 0x01, 1, 1, 0, 3, 0, 0x00, 0x01, 0x00]);
    expect(refusal(noTag)).toMatch(/completion/);
  });

  it('reads base64 like @ton/core and refuses text that is not a bag of cells', () => {
    const c = beginCell().storeStringTail('hello').endCell();
    const text = bocToBase64(c);
    expect(TonCell.fromBase64(text).equals(theirs(c))).toBe(true);
    expect(bocFromBase64(text).equals(c)).toBe(true);
    expect(() => bocFromBase64('not base64!')).toThrow(TonCellError);
    expect(() => bocFromBase64('A'.repeat(3_000_000))).toThrow(TonCellError);
    expect(crc32c(new TextEncoder().encode('123456789'))).toBe(0xe3069283);
  });
});
