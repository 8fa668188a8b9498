// The QR reader of the tests, on codes our own encoder draws: it reads back exactly what was
// encoded (a Solana Pay link, long and non-ASCII text), and finds nothing in an image without one.
import { describe, expect, it } from 'vitest';
import { deflateSync } from 'node:zlib';
import { qrDataUrl, qrPng } from '../../src/qr/png.ts';
import { pngOfModules } from '../../src/qr/png.ts';
import { readQrDataUrl, readQrPng } from './qr-reader.ts';

describe('readQrPng', () => {
  it('reads back what the encoder drew', async () => {
    const texts = [
      'solana:9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM?amount=25.5&spl-token=EPjFWdd5AufqSSqeM2qFLdkdsQn7y3WR1jQoNtaA5CTs&reference=CiDwVBFgWV9E5MvXWoLgnEgn2hK7rJikbvfWavzAQz3&label=Caf%C3%A9',
      'ton://transfer/UQBvW8Z5huBkMJYdnfAEM5JqTNkuWX3diqYENkWsIL0XggGG?amount=2500000000&text=q7Hk2mZp9T',
      'x'.repeat(600),
      'Café ☕ 支付',
    ];
    for (const text of texts) {
      expect(readQrPng(qrPng(text))).toBe(text);
      expect(readQrDataUrl(await qrDataUrl(text))).toBe(text);
    }
  });

  it('finds nothing in an image without a code, and tells two codes apart', () => {
    expect(readQrPng(pngOfModules(21, () => false))).toBeNull();
    expect(readQrPng(pngOfModules(21, (r, c) => (r + c) % 2 === 0))).toBeNull();
    expect(readQrPng(qrPng('a'))).not.toBe(readQrPng(qrPng('b')));
    expect(() => readQrDataUrl('data:text/plain,hello')).toThrow(/not a PNG/);
    expect(() => readQrPng(deflateSync(Buffer.from('not a png')))).toThrow();
  });
});
