// src/qr/matrix.ts scores the 8 masks itself instead of letting the qrcode package do it: its matrix
// must be qrcode's own, module for module, for every kind of text the gateway draws and many
// random ones (numeric, alphanumeric and byte segments, versions 1 to about 20), and its penalty
// for each mask must be the one qrcode's mask-pattern.js computes.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import QRCode, { type BitMatrix, type QRCodeMaskPattern } from 'qrcode';
import { maskPenalties, qrMatrix } from '../../src/qr/matrix.ts';
import { pngOfModules, qrPng } from '../../src/qr/png.ts';

type Penalty = (m: BitMatrix) => number;
const MaskPattern = createRequire(import.meta.url)('qrcode/lib/core/mask-pattern.js') as Record<'getPenaltyN1' | 'getPenaltyN2' | 'getPenaltyN3' | 'getPenaltyN4', Penalty>;

/** A small seeded generator (mulberry32), so that a failure can be run again. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rnd = random(20240611);
const int = (n: number) => Math.floor(rnd() * n);
const pick = (chars: string, n: number) => Array.from({ length: n }, () => chars[int(chars.length)]).join('');

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const HEX = '0123456789abcdef';
const DIGITS = '0123456789';
const ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:';
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function evm(): string {
  const hex = pick(HEX, 40);
  const style = int(3);
  return `0x${style === 0 ? hex : style === 1 ? hex.toUpperCase() : [...hex].map((c) => (rnd() < 0.5 ? c.toUpperCase() : c)).join('')}`;
}

function address(): string {
  switch (int(10)) {
    case 0: return `T${pick(BASE58, 33)}`;
    case 1: return evm();
    case 2: return `1${pick(BASE58, 25 + int(9))}`;
    case 3: return `3${pick(BASE58, 33)}`;
    case 4: return `bc1q${pick(BECH32, 38 + (rnd() < 0.5 ? 0 : 20))}`;
    case 5: return `bc1p${pick(BECH32, 58)}`;
    case 6: return `BC1Q${pick(BECH32, 38).toUpperCase()}`;
    case 7: return `tb1q${pick(BECH32, 38)}`;
    case 8: return `ltc1q${pick(BECH32, 38)}`;
    default: return `${rnd() < 0.5 ? 'L' : 'M'}${pick(BASE58, 33)}`;
  }
}

function uri(): string {
  const amount = `${int(100)}.${pick(DIGITS, 1 + int(8))}`;
  switch (int(5)) {
    case 0: return `bitcoin:bc1q${pick(BECH32, 38)}?amount=${amount}`;
    case 1: return `ethereum:${evm()}@1?value=${int(1e9)}`;
    case 2: return `tron:T${pick(BASE58, 33)}?amount=${amount}&token=TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t`;
    case 3: return `https://pay.example.test/pay/${[8, 4, 4, 4, 12].map((n) => pick(HEX, n)).join('-')}`;
    default: return `litecoin:ltc1q${pick(BECH32, 38)}?amount=${amount}&label=${encodeURIComponent(pick(BASE64URL, int(30)))}`;
  }
}

/** Runs of digits, upper-case alphanumerics and other bytes, so that qrcode splits it into segments. */
function mixed(): string {
  let text = '';
  while (text.length < 1 + int(200)) {
    const n = 1 + int(int(2) ? 30 : 8);
    text += [pick(DIGITS, n), pick(ALNUM, n), pick(BASE64URL, n), pick('äöü€✓漢字', n)][int(4)];
  }
  return text;
}

function texts(): string[] {
  const out = [
    'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
    '0x52908400098527886E0F7030069857D2E4169EE7',
    '0123456789',
    'HELLO WORLD 123',
    'a',
    'x'.repeat(300),
    '9'.repeat(300),
    'A'.repeat(300),
  ];
  for (let len = 1; len <= 300; len++) {
    out.push(pick(BASE64URL, len));
    out.push(String.fromCharCode(...Array.from({ length: len }, () => 1 + int(255))));
    out.push(pick(DIGITS, len));
    out.push(pick(ALNUM, len));
  }
  for (let i = 0; i < 900; i++) out.push(address());
  for (let i = 0; i < 300; i++) out.push(uri());
  for (let i = 0; i < 600; i++) out.push(mixed());
  return out;
}

const all = texts();

describe('qrMatrix', () => {
  it("is qrcode's matrix at level M, module for module, and qrPng draws qrcode's image", () => {
    expect(all.length).toBeGreaterThanOrEqual(3000);
    const masks = new Set<number>();
    const sizes = new Set<number>();
    for (const text of all) {
      const ref = QRCode.create(text, { errorCorrectionLevel: 'M' });
      const mine = qrMatrix(text);
      const where = JSON.stringify(text);
      expect(mine.size, where).toBe(ref.modules.size);
      expect(mine.version, where).toBe(ref.version);
      expect(mine.mask, where).toBe(ref.maskPattern);
      if (!Buffer.from(mine.modules).equals(Buffer.from(ref.modules.data))) throw new Error(`modules differ for ${where}`);
      const png = pngOfModules(ref.modules.size, (row, col) => Boolean(ref.modules.get(row, col)));
      if (!qrPng(text).equals(png)) throw new Error(`PNG differs for ${where}`);
      masks.add(mine.mask);
      sizes.add(mine.size);
    }
    // Every mask wins somewhere, and the sizes run from version 1 past the 32-module word.
    expect([...masks].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(Math.min(...sizes)).toBe(21);
    expect(Math.max(...sizes)).toBeGreaterThan(64);
  });

  it("scores each mask as qrcode's N1 + N2 + N3 + N4", () => {
    const sample = all.filter((_, i) => i % 30 === 0);
    for (const text of sample) {
      const expected = Array.from({ length: 8 }, (_, p) => {
        const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M', maskPattern: p as QRCodeMaskPattern });
        return MaskPattern.getPenaltyN1(modules) + MaskPattern.getPenaltyN2(modules) + MaskPattern.getPenaltyN3(modules) + MaskPattern.getPenaltyN4(modules);
      });
      expect(maskPenalties(text), JSON.stringify(text)).toEqual(expected);
    }
  });
});
