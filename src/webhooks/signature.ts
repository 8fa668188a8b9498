// The request signature, and how a webhook body is told apart from a request.
import { timingSafeEqual } from 'node:crypto';
import { signBytes } from '../contracts/sign.ts';
import { webhookSign } from './payload.ts';

/** sign = md5_hex(base64(raw body bytes) + api_key) (docs/api.md). */
export function signBody(raw: Buffer | string, key: string): string {
  return signBytes(raw, key);
}

export function verifySignature(raw: Buffer, key: string, given: string | undefined): boolean {
  if (typeof given !== 'string' || given.length !== 32) return false;
  const expected = Buffer.from(signBody(raw, key), 'latin1');
  const actual = Buffer.from(given.toLowerCase(), 'latin1');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

const WEBHOOK_TYPES: ReadonlySet<unknown> = new Set(['payment', 'wallet', 'payout', 'custody_changed', 'unmatched_payment']);

/**
 * Webhooks are signed with the same formula and key as requests (docs/webhooks.md), so a leaked
 * webhook body without its `sign` would pass as a signed request. No request parameter is named
 * `is_final` and none is a `type` of `payment`, `wallet`, `payout`, `custody_changed` or
 * `unmatched_payment`; every webhook body has one of them. A body that carries either is therefore
 * not a request, whatever its signature says.
 */
export function looksLikeWebhook(input: Record<string, unknown>): boolean {
  return Object.hasOwn(input, 'is_final') || WEBHOOK_TYPES.has(input.type);
}

/** Fields a webhook body has and no request takes (`sign` travels in a webhook's body). */
const WEBHOOK_ONLY_FIELDS = ['is_final', 'type', 'sign'] as const;

/** The parameters of a webhook body re-signed as a request, with the webhook-only fields dropped. */
export function withoutWebhookFields(input: Record<string, unknown>): Record<string, unknown> {
  const rest = { ...input };
  for (const f of WEBHOOK_ONLY_FIELDS) delete rest[f];
  return rest;
}

/**
 * Whether `given` (the request's `sign` header) is the *webhook* signature of these fields under
 * one of `keys`: what a delivered webhook, replayed minus its `sign`, carries. A shop that passes a
 * received webhook body on signs its own bytes (usually with the `sign` field still in them), whose
 * request signature differs; bytes identical to the webhook's signed part cannot be told from a
 * replay and stay refused.
 */
export function isWebhookSignature(input: Record<string, unknown>, keys: readonly string[], given: string | undefined): boolean {
  if (typeof given !== 'string') return false;
  const { sign: inBody, ...fields } = input;
  const lower = given.toLowerCase();
  if (typeof inBody === 'string' && inBody.toLowerCase() === lower) return true;
  return keys.some((key) => webhookSign(fields, key) === lower);
}
