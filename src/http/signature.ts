import { createHash, timingSafeEqual } from 'node:crypto';

/** sign = md5_hex(base64(raw body bytes) + api_key) (DESIGN D2). */
export function signBody(raw: Buffer | string, key: string): string {
  const bytes = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
  return createHash('md5').update(bytes.toString('base64') + key).digest('hex');
}

export function verifySignature(raw: Buffer, key: string, given: string | undefined): boolean {
  if (typeof given !== 'string' || given.length !== 32) return false;
  const expected = Buffer.from(signBody(raw, key), 'latin1');
  const actual = Buffer.from(given.toLowerCase(), 'latin1');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Which key signs a path: payout key for payouts, transfers and refunds; payment key otherwise. */
export function keyKindFor(path: string): 'payment' | 'payout' {
  if (path.startsWith('/v1/payout') || path.startsWith('/v1/transfer/') || path === '/v1/payment/refund') {
    return 'payout';
  }
  return 'payment';
}
