// TON addresses as merchants type them: every written form of an account gives the same account,
// checked against @ton/core's Address; wrong-network, masterchain and mistyped ones are refused.
import { Address } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { crc16 } from '../../../src/chain/address/ton.ts';
import { parseTonAddress, sameTonAddress, tonFriendly, tonRaw, TonAddressError } from '../../../src/chain/ton/address.ts';

/** Deterministic 32-byte hashes (no Math.random: a failure must be reproducible). */
function hashes(n: number): Uint8Array[] {
  let x = 0x2545f491;
  return Array.from({ length: n }, () =>
    Uint8Array.from({ length: 32 }, () => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return x & 0xff;
    }),
  );
}

const USDT_MASTER = 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs';
const MAIN = { testnet: false };
const TEST = { testnet: true };

describe('parseTonAddress', () => {
  it('reads every form @ton/core writes of an account, on the matching network', () => {
    for (const hash of [...hashes(40), new Uint8Array(32), new Uint8Array(32).fill(0xff)]) {
      const ref = new Address(0, Buffer.from(hash));
      const raw = ref.toRawString();
      for (const bounceable of [true, false]) {
        for (const urlSafe of [true, false]) {
          expect(tonRaw(parseTonAddress(ref.toString({ bounceable, urlSafe, testOnly: false }), MAIN))).toBe(raw);
          expect(tonRaw(parseTonAddress(ref.toString({ bounceable, urlSafe, testOnly: true }), TEST))).toBe(raw);
        }
      }
      expect(tonRaw(parseTonAddress(raw, MAIN))).toBe(raw);
      expect(tonRaw(parseTonAddress(raw.toUpperCase(), TEST))).toBe(raw);
    }
  });

  it('reads the USDT master as @ton/core does', () => {
    const a = parseTonAddress(USDT_MASTER, MAIN);
    expect(tonRaw(a)).toBe(Address.parse(USDT_MASTER).toRawString());
    expect(tonRaw(a)).toBe('0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe');
  });

  it('ignores surrounding whitespace (a pasted address)', () => {
    expect(tonRaw(parseTonAddress(`  ${USDT_MASTER}\n`, MAIN))).toBe(Address.parse(USDT_MASTER).toRawString());
  });

  it('refuses a testnet address on mainnet and a mainnet address on testnet, but takes raw on both', () => {
    const ref = Address.parse(USDT_MASTER);
    expect(() => parseTonAddress(ref.toString({ testOnly: true }), MAIN)).toThrow(/flagged for the TON testnet.*mainnet/);
    expect(() => parseTonAddress(ref.toString({ testOnly: true, bounceable: false }), MAIN)).toThrow(TonAddressError);
    expect(() => parseTonAddress(ref.toString({ testOnly: false }), TEST)).toThrow(/flagged for TON mainnet.*testnet/);
    expect(tonRaw(parseTonAddress(ref.toRawString(), TEST))).toBe(ref.toRawString());
  });

  it('refuses the masterchain and other workchains, raw or user-friendly, saying which', () => {
    const elector = 'Ef8zMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzM0vF';
    expect(Address.parse(elector).workChain).toBe(-1);
    expect(() => parseTonAddress(elector, MAIN)).toThrow(/workchain -1.*only workchain 0/);
    expect(() => parseTonAddress(`-1:${'ab'.repeat(32)}`, MAIN)).toThrow(/workchain -1/);
    expect(() => parseTonAddress(`1:${'ab'.repeat(32)}`, MAIN)).toThrow(/Workchain 1 is not accepted/);
    const wc5 = new Address(5, Buffer.from(hashes(1)[0]!)).toString();
    expect(() => parseTonAddress(wc5, MAIN)).toThrow(/Workchain 5/);
  });

  it('refuses a mistyped character (bad CRC) and malformed text, with a message and never a crash', () => {
    const bad = USDT_MASTER.slice(0, -1) + 't';
    expect(() => parseTonAddress(bad, MAIN)).toThrow(/bad checksum/);
    expect(() => Address.parse(bad)).toThrow();
    const cases = [
      '', '   ', USDT_MASTER.slice(0, 47), USDT_MASTER + 'A', 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id/sD_',
      `0:${'ab'.repeat(31)}`, `0:${'zz'.repeat(32)}`, `0x${'ab'.repeat(32)}`, 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', `0:${'ab'.repeat(32)}:1`,
    ];
    for (const c of cases) expect(() => parseTonAddress(c, MAIN), c).toThrow(TonAddressError);
    // An unknown tag byte with a correct CRC.
    const body = Buffer.from(Address.parse(USDT_MASTER).toString({ urlSafe: true }).replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    body[0] = 0x12;
    const crc = crc16(body.subarray(0, 34));
    body[34] = crc >> 8;
    body[35] = crc & 0xff;
    expect(() => parseTonAddress(body.toString('base64url'), MAIN)).toThrow(/unknown tag/);
  });
});

describe('tonRaw and tonFriendly', () => {
  it('write what @ton/core writes, with every pair of flags', () => {
    for (const hash of hashes(40)) {
      const ref = new Address(0, Buffer.from(hash));
      const a = { workchain: 0, hash };
      expect(tonRaw(a)).toBe(ref.toRawString());
      for (const bounceable of [true, false]) {
        for (const testnet of [true, false]) {
          const mine = tonFriendly(a, { bounceable, testnet });
          expect(mine).toBe(ref.toString({ bounceable, testOnly: testnet, urlSafe: true }));
          const back = Address.parseFriendly(mine);
          expect(back.isBounceable).toBe(bounceable);
          expect(back.isTestOnly).toBe(testnet);
          expect(back.address.equals(ref)).toBe(true);
        }
      }
    }
  });

  it('UQ for a non-bounceable mainnet address, EQ bounceable, 0Q / kQ on testnet', () => {
    const a = parseTonAddress(USDT_MASTER, MAIN);
    expect(tonFriendly(a, { bounceable: true, testnet: false })).toBe(USDT_MASTER);
    expect(tonFriendly(a, { bounceable: false, testnet: false })).toMatch(/^UQ/);
    expect(tonFriendly(a, { bounceable: false, testnet: true })).toMatch(/^0Q/);
    expect(tonFriendly(a, { bounceable: true, testnet: true })).toMatch(/^kQ/);
  });

  it('compares accounts whatever form they were written in', () => {
    const a = parseTonAddress(USDT_MASTER, MAIN);
    const b = parseTonAddress(Address.parse(USDT_MASTER).toRawString().toUpperCase(), MAIN);
    expect(sameTonAddress(a, b)).toBe(true);
    expect(sameTonAddress(a, { workchain: 0, hash: new Uint8Array(32) })).toBe(false);
  });

  it('refuses to write a masterchain or malformed account', () => {
    expect(() => tonRaw({ workchain: -1, hash: new Uint8Array(32) })).toThrow(TonAddressError);
    expect(() => tonFriendly({ workchain: 0, hash: new Uint8Array(31) }, { bounceable: true, testnet: false })).toThrow(TonAddressError);
  });
});
