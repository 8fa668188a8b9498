// The merchant's public profile: the name, logo, accent colour and default theme a payer sees on
// the payment page and in the widget. One place validates and stores it, so the CLI
// (`satchel merchant update`) and the dashboard's settings apply the same rules.
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB, MerchantProfilesTable } from '../db/schema.ts';
import { BusinessError, NotFoundError } from '../errors.ts';
import { PAGE_LANGUAGES, type PageLanguage } from '../contracts/payer.ts';
import { statement } from '../db/statement.ts';

export const LOGO_MAX_BYTES = 256 * 1024;
export const DISPLAY_NAME_MAX = 80;
export const PROFILE_THEMES = ['auto', 'light', 'dark'] as const;
export type ProfileTheme = (typeof PROFILE_THEMES)[number];

export const LOGO_TYPES = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' } as const;
export type LogoType = keyof typeof LOGO_TYPES;

/** A profile field was refused (HTTP 422 through BusinessError); `field` names which. */
export class ProfileError extends BusinessError {
  constructor(
    readonly field: 'display_name' | 'accent' | 'theme' | 'logo' | 'language',
    message: string,
  ) {
    super(message);
    this.name = 'ProfileError';
  }
}

export interface MerchantProfile {
  merchant_id: string;
  display_name: string | null;
  /** Lower-case #rrggbb, or null for the page's own colours. */
  accent: string | null;
  theme: ProfileTheme;
  /** The payment page's default language; null: the payer's browser decides. */
  language: PageLanguage | null;
  logo: { type: LogoType; sha256: string; bytes: number } | null;
  updated_at: number | null;
}

/** A change: absent fields are kept, `null` clears one. */
export interface ProfilePatch {
  display_name?: string | null;
  accent?: string | null;
  theme?: ProfileTheme;
  language?: PageLanguage | null;
  logo?: Uint8Array | null;
}

/** What the payer API shows (public by construction: nothing else of the merchant). */
export interface PublicProfile {
  display_name: string | null;
  logo_url: string | null;
  accent: string | null;
  theme: 'dark' | 'light' | null;
  language: PageLanguage | null;
}

// Control characters, and bidi controls that could make the name read as something else.
const FORBIDDEN_IN_NAME = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/;

export function validateDisplayName(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string') throw new ProfileError('display_name', 'The display name must be text');
  const name = value.normalize('NFC').trim();
  if (name === '') return null;
  if (FORBIDDEN_IN_NAME.test(name)) throw new ProfileError('display_name', 'The display name contains control characters');
  if ([...name].length > DISPLAY_NAME_MAX) throw new ProfileError('display_name', `The display name must be at most ${DISPLAY_NAME_MAX} characters`);
  return name;
}

export function validateAccent(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value !== 'string' || !/^#[0-9a-fA-F]{6}$/.test(value)) {
    throw new ProfileError('accent', 'The accent colour must be #RRGGBB');
  }
  return value.toLowerCase();
}

export function validateTheme(value: unknown): ProfileTheme {
  if (typeof value === 'string' && (PROFILE_THEMES as readonly string[]).includes(value)) return value as ProfileTheme;
  throw new ProfileError('theme', 'The theme must be dark, light or auto');
}

export function validateLanguage(value: unknown): PageLanguage | null {
  if (value === null || value === undefined || value === '' || value === 'auto') return null;
  const code = typeof value === 'string' ? value.trim().toLowerCase() : '';
  if ((PAGE_LANGUAGES as readonly string[]).includes(code)) return code as PageLanguage;
  throw new ProfileError('language', `The language must be one of ${PAGE_LANGUAGES.join(', ')}, or auto`);
}

const startsWith = (b: Uint8Array, bytes: number[], at = 0) => bytes.every((x, i) => b[at + i] === x);
const ascii = (b: Uint8Array, at: number, text: string) => startsWith(b, [...text].map((c) => c.charCodeAt(0)), at);

/**
 * The logo's type from its bytes, never from a name or a declared type. Only raster formats that
 * cannot carry script: SVG (XML, scriptable) and everything else are refused.
 */
export function detectLogoType(bytes: Uint8Array): LogoType {
  if (bytes.length === 0) throw new ProfileError('logo', 'The logo is empty');
  if (bytes.length > LOGO_MAX_BYTES) throw new ProfileError('logo', 'The logo must be at most 256 KB');
  // PNG: signature, then the IHDR chunk first (length 13).
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) && bytes.length >= 33 && startsWith(bytes, [0, 0, 0, 13], 8) && ascii(bytes, 12, 'IHDR')) {
    return 'image/png';
  }
  // JPEG: SOI then a marker segment.
  if (startsWith(bytes, [0xff, 0xd8, 0xff]) && bytes.length >= 4) return 'image/jpeg';
  // WebP: a RIFF container of the WEBP form whose first chunk is a VP8 variant.
  if (ascii(bytes, 0, 'RIFF') && ascii(bytes, 8, 'WEBP') && bytes.length >= 16 && (ascii(bytes, 12, 'VP8 ') || ascii(bytes, 12, 'VP8L') || ascii(bytes, 12, 'VP8X'))) {
    return 'image/webp';
  }
  const head = new TextDecoder('utf-8', { fatal: false }).decode(bytes.subarray(0, 512)).toLowerCase();
  if (head.includes('<svg') || head.trimStart().startsWith('<')) {
    throw new ProfileError('logo', 'SVG logos are not accepted (they can carry script): use PNG, JPEG or WebP');
  }
  throw new ProfileError('logo', 'The logo must be a PNG, JPEG or WebP image');
}

/** Checks a whole change before anything is written: a refused field writes nothing. */
export function validateProfilePatch(input: { display_name?: unknown; accent?: unknown; theme?: unknown; language?: unknown; logo?: unknown }): ProfilePatch {
  const patch: ProfilePatch = {};
  if (input.display_name !== undefined) patch.display_name = validateDisplayName(input.display_name);
  if (input.accent !== undefined) patch.accent = validateAccent(input.accent);
  if (input.theme !== undefined) patch.theme = validateTheme(input.theme);
  if (input.language !== undefined) patch.language = validateLanguage(input.language);
  if (input.logo !== undefined) {
    if (input.logo !== null && !(input.logo instanceof Uint8Array)) throw new ProfileError('logo', 'The logo must be image bytes');
    if (input.logo) detectLogoType(input.logo);
    patch.logo = input.logo;
  }
  return patch;
}

function fromRow(merchantId: string, row: MerchantProfilesTable | undefined): MerchantProfile {
  if (!row) return { merchant_id: merchantId, display_name: null, accent: null, theme: 'auto', language: null, logo: null, updated_at: null };
  const type = row.logo_type as LogoType | null;
  return {
    merchant_id: merchantId,
    display_name: row.display_name,
    accent: row.accent,
    theme: (PROFILE_THEMES as readonly string[]).includes(row.theme) ? (row.theme as ProfileTheme) : 'auto',
    language: knownLanguage(row.language),
    logo: row.logo && type && row.logo_sha256 ? { type, sha256: row.logo_sha256, bytes: Math.floor((row.logo.length * 3) / 4) - (row.logo.match(/=+$/)?.[0].length ?? 0) } : null,
    updated_at: Number(row.updated_at),
  };
}

const PROFILE_COLUMNS = ['merchant_id', 'display_name', 'accent', 'theme', 'language', 'logo_type', 'logo_sha256', 'updated_at'] as const;

function knownLanguage(code: string | null | undefined): PageLanguage | null {
  return code && (PAGE_LANGUAGES as readonly string[]).includes(code) ? (code as PageLanguage) : null;
}

/** The merchant's profile; every field empty when none was ever set. */
export async function getProfile(db: Kysely<DB>, merchantId: string): Promise<MerchantProfile> {
  const row = await db
    .selectFrom('merchant_profiles')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .executeTakeFirst();
  return fromRow(merchantId, row);
}

const publicColumns = statement((db, p: { merchantId: string }) =>
  db.selectFrom('merchant_profiles').select(PROFILE_COLUMNS).where('merchant_id', '=', p.merchantId),
);

/** The public part only, without reading the logo's bytes: what every payer view carries. */
export async function getPublicProfile(db: Kysely<DB>, merchantId: string): Promise<PublicProfile> {
  const { rows: [row] } = await publicColumns(db, { merchantId });
  return publicProfileOf(row);
}

/** The public profile from its columns (read with a payer view's own query), or all empty. */
export function publicProfileOf(row: Pick<MerchantProfilesTable, 'display_name' | 'accent' | 'theme' | 'language' | 'logo_type' | 'logo_sha256'> | undefined): PublicProfile {
  return {
    display_name: row?.display_name ?? null,
    logo_url: row?.logo_sha256 && row.logo_type ? logoPath(row.logo_sha256, row.logo_type as LogoType) : null,
    accent: row?.accent ?? null,
    theme: row?.theme === 'dark' || row?.theme === 'light' ? row.theme : null,
    language: knownLanguage(row?.language),
  };
}

/** Where the gateway serves a logo: content-addressed, so it can be cached forever. */
export function logoPath(sha256: string, type: LogoType): string {
  return `/logos/${sha256}.${LOGO_TYPES[type]}`;
}

/**
 * Validates and applies a change in one statement per database (insert or update), so a refused
 * field or a crash leaves the previous profile whole. Throws NotFoundError for an unknown merchant.
 */
export async function updateProfile(db: Kysely<DB>, merchantId: string, input: Parameters<typeof validateProfilePatch>[0], now = Date.now()): Promise<MerchantProfile> {
  const patch = validateProfilePatch(input);
  const merchant = await db.selectFrom('merchants').select('id').where('id', '=', merchantId).executeTakeFirst();
  if (!merchant) throw new NotFoundError('Merchant not found');
  const set: Partial<MerchantProfilesTable> & { updated_at: number } = { updated_at: now };
  if (patch.display_name !== undefined) set.display_name = patch.display_name;
  if (patch.accent !== undefined) set.accent = patch.accent;
  if (patch.theme !== undefined) set.theme = patch.theme;
  if (patch.language !== undefined) set.language = patch.language;
  if (patch.logo !== undefined) {
    if (patch.logo === null) Object.assign(set, { logo: null, logo_type: null, logo_sha256: null });
    else {
      const bytes = Buffer.from(patch.logo.buffer, patch.logo.byteOffset, patch.logo.byteLength);
      set.logo = bytes.toString('base64');
      set.logo_type = detectLogoType(patch.logo);
      set.logo_sha256 = createHash('sha256').update(bytes).digest('hex');
    }
  }
  await db
    .insertInto('merchant_profiles')
    .values({ merchant_id: merchantId, display_name: null, accent: null, theme: 'auto', language: null, logo: null, logo_type: null, logo_sha256: null, ...set })
    .onConflict((oc) => oc.column('merchant_id').doUpdateSet(set))
    .execute();
  return getProfile(db, merchantId);
}

/** A logo by its public address; undefined when no merchant uses it (any more). */
export async function findLogo(db: Kysely<DB>, sha256: string): Promise<{ type: LogoType; body: Buffer } | undefined> {
  if (!/^[0-9a-f]{64}$/.test(sha256)) return undefined;
  const row = await db
    .selectFrom('merchant_profiles')
    .select(['logo', 'logo_type'])
    .where('logo_sha256', '=', sha256)
    .limit(1)
    .executeTakeFirst();
  if (!row?.logo || !row.logo_type) return undefined;
  return { type: row.logo_type as LogoType, body: Buffer.from(row.logo, 'base64') };
}
