// The merchant's default callback and return URLs: checked with the signed API's own URL rules
// (http or https, 6..255 characters, no spaces), so a default is exactly what a request could
// have sent. Whether a callback may reach a private address is decided at delivery, as for any.
// Also the transport of a logo uploaded in Settings (base64 in JSON).
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { ValidationError } from '../errors.ts';
import { validate } from '../contracts/rules.ts';
import { setMerchantDefaults, type Merchant, type MerchantDefaults } from '../merchants/store.ts';
import { LOGO_MAX_BYTES } from '../merchants/profile.ts';
import { UserInputError } from './errors.ts';

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

/** The longest base64 text a logo within LOGO_MAX_BYTES can take. */
export const LOGO_BASE64_MAX = Math.ceil(LOGO_MAX_BYTES / 3) * 4;
/** The upload route's body limit: the base64 text of the largest logo, plus room for the JSON around it. */
export const LOGO_BODY_LIMIT = LOGO_BASE64_MAX + 1024;
export const LOGO_TOO_LARGE = 'The logo must be at most 256 KB';

/**
 * The logo's bytes from the settings form's `{"image": base64}`. Only the transport is checked
 * here; what the bytes are (PNG, JPEG or WebP, never SVG, at most 256 KB) is decided by the
 * profile module, exactly as for `satchel merchant update --logo`.
 */
export function logoFromBody(body: Record<string, unknown>): Uint8Array {
  const text = body.image;
  if (typeof text !== 'string' || text === '') throw new UserInputError('Choose a PNG, JPEG or WebP file.', 'logo_missing');
  if (text.length > LOGO_BASE64_MAX) throw new UserInputError(LOGO_TOO_LARGE, 'logo_too_large');
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw new UserInputError('The logo must be sent as base64.', 'logo_not_base64');
  return new Uint8Array(Buffer.from(text, 'base64'));
}
