import { hash, timingSafeEqual } from 'node:crypto';

/** sign = md5_hex(base64(raw body bytes) + api_key) (DESIGN D2). */
export function signBody(raw: Buffer | string, key: string): string {
  const bytes = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
  // One-shot hashing: no Hash object per request.
  return hash('md5', bytes.toString('base64') + key, 'hex');
}

export function verifySignature(raw: Buffer, key: string, given: string | undefined): boolean {
  if (typeof given !== 'string' || given.length !== 32) return false;
  const expected = Buffer.from(signBody(raw, key), 'latin1');
  const actual = Buffer.from(given.toLowerCase(), 'latin1');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

const WEBHOOK_TYPES: ReadonlySet<unknown> = new Set(['payment', 'wallet', 'payout']);

/**
 * Webhooks are signed with the same formula and key as requests (D2, D3), so a leaked webhook body
 * without its `sign` would pass as a signed request. No request parameter is named `is_final` and
 * none is a `type` of `payment`, `wallet` or `payout`; every webhook body has both. A body that
 * carries either is therefore not a request, whatever its signature says.
 */
export function looksLikeWebhook(input: Record<string, unknown>): boolean {
  return Object.hasOwn(input, 'is_final') || WEBHOOK_TYPES.has(input.type);
}
