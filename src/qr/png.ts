// QR codes as PNG data URIs: dark modules on a white quiet zone. The PNG is written here, 1 bit per
// pixel, which is several times faster than the qrcode package's renderer; the modules come from
// matrix.ts, the qrcode package's matrix with a faster choice of mask.
import { crc32, deflateSync } from 'node:zlib';
import { qrMatrix } from './matrix.ts';

const SCALE = 6;
const MARGIN = 4;

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body) >>> 0);
  return Buffer.concat([len, body, crc]);
}

export function qrPng(text: string): Buffer {
  const { size, modules } = qrMatrix(text);
  return pngOfModules(size, (row, col) => modules[row * size + col] === 1);
}

/**
 * The PNG of an n×n module matrix (`dark(row, col)`), each module SCALE pixels square inside a
 * MARGIN-module white border. A pixel row that repeats the one above it (all but the first of each
 * module row, and the border's) is written with PNG's Up filter: all zeros, which deflate takes
 * in a few bytes and little time.
 */
export function pngOfModules(n: number, dark: (row: number, col: number) => boolean): Buffer {
  const width = (n + 2 * MARGIN) * SCALE;
  const rowBytes = Math.ceil(width / 8);
  const stride = rowBytes + 1;
  // Every row starts as a repeat (filter byte 2, Up, then zeros). A row that differs from the one
  // above is written whole with filter 0: 1 is white in 1-bit grayscale, and the padding bits past
  // the width stay 0.
  const raw = Buffer.alloc(stride * width);
  for (let y = 0; y < width; y++) raw[y * stride] = 2;
  const white = Buffer.alloc(stride, 0xff);
  white[0] = 0;
  white[rowBytes] = width % 8 ? (0xff << (8 - (width % 8))) & 0xff : 0xff;
  // The first row of the image, then the first pixel row of each module row.
  white.copy(raw, 0);
  for (let my = 0; my < n; my++) {
    const first = (my + MARGIN) * SCALE * stride;
    white.copy(raw, first);
    for (let mx = 0; mx < n; mx++) {
      if (!dark(my, mx)) continue;
      for (let x = (mx + MARGIN) * SCALE, end = x + SCALE; x < end; x++) raw[first + 1 + (x >> 3)]! &= ~(0x80 >> (x & 7));
    }
  }
  // The first row of the bottom border follows the last module row.
  white.copy(raw, (n + MARGIN) * SCALE * stride);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(width, 4);
  ihdr[8] = 1; // bit depth
  ihdr[9] = 0; // grayscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 6 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A QR code of `text` as a data:image/png;base64 URI. */
export async function qrDataUrl(text: string): Promise<string> {
  return `data:image/png;base64,${qrPng(text).toString('base64')}`;
}
