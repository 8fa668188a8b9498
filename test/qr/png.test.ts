// The QR images the gateway draws (src/qr/png.ts), decoded here with a small PNG reader:
// a valid PNG whose pixels are the qrcode package's modules for the text, 6 pixels each, inside a
// white border of 4 modules.
import { describe, expect, it } from 'vitest';
import { crc32, inflateSync } from 'node:zlib';
import QRCode from 'qrcode';
import { qrDataUrl, qrPng } from '../../src/qr/png.ts';

interface Image {
  width: number;
  height: number;
  /** 1 for dark. */
  dark: (x: number, y: number) => boolean;
}

/** Reads a 1-bit grayscale, non-interlaced PNG, checking every chunk's CRC and every filter. */
function readPng(png: Buffer): Image {
  expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  let at = 8;
  const idat: Buffer[] = [];
  let width = 0;
  let height = 0;
  let ended = false;
  while (at < png.length) {
    const len = png.readUInt32BE(at);
    const type = png.subarray(at + 4, at + 8).toString('latin1');
    const data = png.subarray(at + 8, at + 8 + len);
    expect(png.readUInt32BE(at + 8 + len), `${type} CRC`).toBe(crc32(png.subarray(at + 4, at + 8 + len)) >>> 0);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      expect([...data.subarray(8)]).toEqual([1, 0, 0, 0, 0]);
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') ended = true;
    at += 12 + len;
  }
  expect(ended).toBe(true);
  const raw = inflateSync(Buffer.concat(idat));
  const rowBytes = Math.ceil(width / 8);
  expect(raw.length).toBe((rowBytes + 1) * height);
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (rowBytes + 1)]!;
    const line = Buffer.from(raw.subarray(y * (rowBytes + 1) + 1, (y + 1) * (rowBytes + 1)));
    const up = rows[y - 1] ?? Buffer.alloc(rowBytes);
    for (let i = 0; i < rowBytes; i++) {
      const a = i > 0 ? line[i - 1]! : 0;
      const b = up[i]!;
      const c = i > 0 ? up[i - 1]! : 0;
      const p = a + b - c;
      const paeth = Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
      const add = [0, a, b, (a + b) >> 1, paeth][filter];
      expect(add, `filter ${filter}`).toBeDefined();
      line[i] = (line[i]! + add!) & 0xff;
    }
    rows.push(line);
  }
  return { width, height, dark: (x, y) => (rows[y]![x >> 3]! & (0x80 >> (x & 7))) === 0 };
}

const texts = [
  'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
  '0x52908400098527886E0F7030069857D2E4169EE7',
  'ltc1qw508d6qejxtdg4y5r3zarvary0c5xw7kgmn4n9',
  'bitcoin:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq?amount=0.00123456',
  'https://pay.example.test/pay/6e1c44a3-4b7c-4b2c-9d43-0d0b3c0a2c11',
  'a',
  'x'.repeat(300),
];

describe('QR images', () => {
  it('are PNGs of the qrcode modules for the text, 6 pixels a module, 4 modules of white around', async () => {
    const random = Array.from({ length: 40 }, (_, i) => Buffer.from(Array.from({ length: 5 + i * 3 }, () => Math.floor(Math.random() * 256))).toString('base64url'));
    for (const text of [...texts, ...random]) {
      const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
      const n = modules.size;
      const img = readPng(qrPng(text));
      expect(img.width).toBe((n + 8) * 6);
      expect(img.height).toBe(img.width);
      for (let y = 0; y < img.height; y++) {
        for (let x = 0; x < img.width; x++) {
          const mx = Math.floor(x / 6) - 4;
          const my = Math.floor(y / 6) - 4;
          const inside = mx >= 0 && my >= 0 && mx < n && my < n;
          const expected = inside && Boolean(modules.get(my, mx));
          if (img.dark(x, y) !== expected) throw new Error(`${text}: pixel ${x},${y} should be ${expected ? 'dark' : 'light'}`);
        }
      }
    }
    expect(await qrDataUrl(texts[0]!)).toBe(`data:image/png;base64,${qrPng(texts[0]!).toString('base64')}`);
  });

  it('stay small: a TRON address fits in well under 1 KB', () => {
    expect(qrPng(texts[0]!).length).toBeLessThan(1024);
  });
});
