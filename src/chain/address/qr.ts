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
  const raw = Buffer.alloc((rowBytes + 1) * width, 0);
  for (let y = 0; y < width; y++) {
    const row = y * (rowBytes + 1);
    raw[row] = 0; // filter: none
    const my = Math.floor(y / SCALE) - MARGIN;
    for (let x = 0; x < width; x++) {
      const mx = Math.floor(x / SCALE) - MARGIN;
      const dark = my >= 0 && my < n && mx >= 0 && mx < n && modules.get(my, mx);
      // Grayscale 1 bit: 1 is white.
      if (!dark) raw[row + 1 + (x >> 3)]! |= 0x80 >> (x & 7);
    }
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
