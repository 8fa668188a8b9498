// The merchant's default callback and return URLs: checked with the signed API's own URL rules
// (http or https, 6..255 characters, no spaces), so a default is exactly what a request could
// have sent. Whether a callback may reach a private address is decided at delivery, as for any.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { ValidationError } from '../errors.ts';
import { validate } from '../contracts/rules.ts';
import { setMerchantDefaults, type Merchant, type MerchantDefaults } from '../merchants/store.ts';

export const DEFAULT_URL_RULES = {
  url_callback: 'string|min:6|max:255|url',
  url_return: 'string|min:6|max:255|url',
  url_success: 'string|min:6|max:255|url',
} as const;

/** The new defaults from a form: '' or null clears a field; an absent field keeps its value. */
export function parseDefaults(current: MerchantDefaults, body: Record<string, unknown>): MerchantDefaults {
  const next: MerchantDefaults = { ...current };
  const input: Record<string, unknown> = {};
  for (const k of Object.keys(DEFAULT_URL_RULES) as Array<keyof MerchantDefaults>) {
    if (!(k in body)) continue;
    const v = body[k];
    if (v === null || (typeof v === 'string' && v.trim() === '')) {
      next[k] = null;
      continue;
    }
    if (typeof v !== 'string') throw new ValidationError({ [k]: ['validation.string'] });
    input[k] = v.trim();
    next[k] = v.trim();
  }
  validate(input, DEFAULT_URL_RULES);
  return next;
}

export async function saveDefaults(db: Kysely<DB>, merchant: Merchant, current: MerchantDefaults, body: Record<string, unknown>): Promise<MerchantDefaults> {
  const next = parseDefaults(current, body);
  await setMerchantDefaults(db, merchant.id, next);
  return next;
}
