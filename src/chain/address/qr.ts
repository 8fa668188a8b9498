// QR codes as PNG data URIs: dark modules on a white quiet zone. The PNG is written here, 1 bit per
// pixel with no filters, which is several times faster than the qrcode package's renderer.
import QRCode from 'qrcode';
import { crc32, deflateSync } from 'node:zlib';

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
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const n = modules.size;
  const width = (n + 2 * MARGIN) * SCALE;
  const rowBytes = Math.ceil(width / 8);
  const stride = rowBytes + 1;
  // Every row starts as the white row (1 is white in 1-bit grayscale) after its filter byte 0, with
  // the padding bits past the width left 0; each module row is drawn once and copied SCALE times.
  const white = Buffer.alloc(stride, 0xff);
  white[0] = 0;
  if (width % 8) white[rowBytes] = (0xff << (8 - (width % 8))) & 0xff;
  const raw = Buffer.allocUnsafe(stride * width);
  for (let y = 0; y < width; y++) white.copy(raw, y * stride);
  for (let my = 0; my < n; my++) {
    const first = (my + MARGIN) * SCALE * stride;
    for (let mx = 0; mx < n; mx++) {
      if (!modules.get(my, mx)) continue;
      for (let x = (mx + MARGIN) * SCALE, end = x + SCALE; x < end; x++) raw[first + 1 + (x >> 3)]! &= ~(0x80 >> (x & 7));
    }
    for (let k = 1; k < SCALE; k++) raw.copy(raw, first + k * stride, first, first + stride);
  }
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
