/// <reference path="./pngjs.d.ts" />
// The repository's QR reader for tests: decodes a PNG (a screenshot of the payment page's QR code,
// or our own encoder's output) to the text it carries, with jsQR, a decoder independent of the
// encoder that drew the code. Returns null when no QR code is found in the image.
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';

// jsqr is CommonJS: under Node's ESM loader its default export may arrive wrapped once more.
const jsQR = ((jsQRModule as unknown as { default?: typeof jsQRModule }).default ?? jsQRModule) as typeof jsQRModule;

export function readQrPng(png: Buffer | Uint8Array): string | null {
  const image = PNG.sync.read(Buffer.from(png));
  const pixels = new Uint8ClampedArray(image.data.buffer, image.data.byteOffset, image.data.length);
  return jsQR(pixels, image.width, image.height, { inversionAttempts: 'attemptBoth' })?.data ?? null;
}

/** The text of a `data:image/png;base64,...` QR image (what the merchant API answers). */
export function readQrDataUrl(dataUrl: string): string | null {
  const m = /^data:image\/png;base64,([A-Za-z0-9+/=]+)$/.exec(dataUrl);
  if (!m) throw new Error('not a PNG data URL');
  return readQrPng(Buffer.from(m[1]!, 'base64'));
}
