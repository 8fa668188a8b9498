// Dashboard users: who may sign in, for which merchant, with which role; their one-time
// set-password links. No password ever passes through a command line: an operator (or owner)
// creates a user and hands over a link; the user chooses the password on the page.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB, DashboardUsersTable } from '../db/schema.ts';
import type { Storage } from '../db/dialect.ts';
import { burnPasswordCheck, hashPassword, passwordProblem, verifyPassword, PASSWORD_MAX, PASSWORD_MIN } from './passwords.ts';
import { EmailTakenError, LinkExpiredError, UserInputError } from './errors.ts';
import { PAGE_LANGUAGES, type PageLanguage } from '../contracts/payer.ts';

export type DashboardUser = DashboardUsersTable;
export const ROLES = ['owner', 'viewer', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** A set-password link is valid for a day. */
export const LINK_TTL_MS = 24 * 3600_000;

const EMAIL_RE = /^[^\s@<>"]{1,64}@[^\s@<>"]{1,190}\.[^\s@<>".]{1,63}$/;

export function sha256(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The one spelling an email is stored, looked up and throttled under: trimmed and lower-cased.
 * No Unicode normalisation (NFC/NFKC): stored emails never had it, so applying it on lookup alone
 * could make two stored users collide; any spelling this maps elsewhere reaches no account.
 */
export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}

export function normaliseEmail(email: unknown): string {
  if (typeof email !== 'string' || email.length > 254 || !EMAIL_RE.test(email.trim())) throw new UserInputError('Enter a valid email address.', 'bad_email');
  return emailKey(email);
}

/** Owner and admin may change things; a viewer only reads. */
export function canManage(user: Pick<DashboardUser, 'role'>): boolean {
  return user.role === 'owner' || user.role === 'admin';
}

export async function createUser(
  storage: Storage,
  input: { merchantId: string | null; email: unknown; role: unknown },
  now: number,
): Promise<DashboardUser> {
  const email = normaliseEmail(input.email);
  if (typeof input.role !== 'string' || !(ROLES as readonly string[]).includes(input.role)) throw new UserInputError('The role must be owner, viewer or admin.', 'bad_role');
  const role = input.role as Role;
  if (role === 'admin' && input.merchantId) throw new UserInputError('An instance admin belongs to no merchant (leave out --merchant).', 'admin_has_merchant');
  if (role !== 'admin') {
    if (!input.merchantId) throw new UserInputError('An owner or viewer needs a merchant.', 'merchant_required');
    const m = await storage.db.selectFrom('merchants').select('id').where('id', '=', input.merchantId).executeTakeFirst();
    if (!m) throw new UserInputError(`No merchant ${input.merchantId}.`, 'unknown_merchant', { merchant: input.merchantId });
  }
  const user: DashboardUser = {
    id: randomUUID(),
    merchant_id: role === 'admin' ? null : input.merchantId,
    email,
    role,
    password_hash: null,
    disabled: 0,
    created_at: now,
    updated_at: now,
    language: null,
  };
  try {
    await storage.db.insertInto('dashboard_users').values(user).execute();
  } catch (e) {
    if (!storage.isUniqueViolation(e)) throw e;
    const holder = await findUserByEmail(storage.db, email);
    throw new EmailTakenError(email, holder?.merchant_id ?? null);
  }
  return user;
}

/**
 * An owner's invitation: the new user and their one-time link token.
 *
 * An email identifies one dashboard user, of one merchant (sign-in is by email alone). Telling an
 * owner that an email "already exists" when it belongs to *another* merchant (or an admin) would
 * reveal who uses the gateway, so that case answers exactly as a new email does: a user-shaped
 * answer and a link, but nothing is stored and the link is a fresh random token that was never
 * recorded, so it opens as "expired or used" — the invitation is not deliverable. The person can
 * be given access to a second merchant only under another email. An email already used in the
 * owner's own merchant still answers "already exists": those users are in the owner's list anyway.
 */
export async function inviteUser(storage: Storage, merchantId: string, email: unknown, role: 'owner' | 'viewer', now: number): Promise<{ user: DashboardUser; token: string; stored: boolean }> {
  try {
    const user = await createUser(storage, { merchantId, email, role }, now);
    return { user, token: await issueSetPasswordLink(storage, user.id, now), stored: true };
  } catch (e) {
    if (!(e instanceof EmailTakenError) || e.merchantId === merchantId) throw e;
    const user: DashboardUser = { id: randomUUID(), merchant_id: merchantId, email: e.email, role, password_hash: null, disabled: 0, created_at: now, updated_at: now, language: null };
    return { user, token: newToken(), stored: false };
  }
}

export async function findUserByEmail(db: Kysely<DB>, email: string): Promise<DashboardUser | undefined> {
  return db.selectFrom('dashboard_users').selectAll().where('email', '=', emailKey(email)).executeTakeFirst();
}

export async function findUser(db: Kysely<DB>, id: string): Promise<DashboardUser | undefined> {
  return db.selectFrom('dashboard_users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listUsers(db: Kysely<DB>, merchantId?: string): Promise<DashboardUser[]> {
  let q = db.selectFrom('dashboard_users').selectAll();
  if (merchantId) q = q.where('merchant_id', '=', merchantId);
  return q.orderBy('created_at').orderBy('email').execute();
}

/** A new one-time link for the user; earlier unused links stop working. Returns the token. */
export async function issueSetPasswordLink(storage: Storage, userId: string, now: number): Promise<string> {
  const token = newToken();
  await storage.write(async (trx) => {
    await trx.deleteFrom('dashboard_links').where('user_id', '=', userId).where('used_at', 'is', null).execute();
    await trx.insertInto('dashboard_links').values({ token_hash: sha256(token), user_id: userId, expires_at: now + LINK_TTL_MS, used_at: null, created_at: now }).execute();
  });
  return token;
}

export function setPasswordUrl(publicUrl: string, token: string): string {
  // The token rides in the fragment: browsers never send it to a server or put it in a Referer.
  return `${publicUrl}/dashboard/set-password#${token}`;
}

/** Whether a link can still be used (the page asks before showing the form). */
export async function linkUser(db: Kysely<DB>, token: string, now: number): Promise<DashboardUser | null> {
  if (typeof token !== 'string' || token.length > 100) return null;
  const row = await db
    .selectFrom('dashboard_links')
    .innerJoin('dashboard_users', 'dashboard_users.id', 'dashboard_links.user_id')
    .selectAll('dashboard_users')
    .select(['dashboard_links.expires_at as link_expires', 'dashboard_links.used_at as link_used'])
    .where('dashboard_links.token_hash', '=', sha256(token))
    .executeTakeFirst();
  if (!row || row.link_used !== null || row.link_expires <= now || row.disabled) return null;
  const { link_expires: _e, link_used: _u, ...user } = row;
  return user;
}

/** Uses the link once: sets the password and ends every session of the user. */
export async function setPasswordWithLink(storage: Storage, token: string, password: unknown, now: number): Promise<DashboardUser> {
  const problem = passwordProblem(password);
  if (problem) throw new UserInputError(problem.message, problem.code, { min: PASSWORD_MIN, max: PASSWORD_MAX });
  const user = await linkUser(storage.db, token, now);
  if (!user) throw new LinkExpiredError();
  const hash = await hashPassword(password as string);
  const used = await storage.write(async (trx) => {
    const r = await trx
      .updateTable('dashboard_links')
      .set({ used_at: now })
      .where('token_hash', '=', sha256(token))
      .where('used_at', 'is', null)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1) return false; // two tabs raced: the other one won
    await trx.updateTable('dashboard_users').set({ password_hash: hash, updated_at: now }).where('id', '=', user.id).execute();
    await trx.deleteFrom('dashboard_sessions').where('user_id', '=', user.id).execute();
    return true;
  });
  if (!used) throw new LinkExpiredError();
  return { ...user, password_hash: hash };
}

/** The user for these credentials, or null; as slow for an unknown email as for a wrong password. */
export async function checkCredentials(db: Kysely<DB>, email: unknown, password: unknown): Promise<DashboardUser | null> {
  if (typeof email !== 'string' || typeof password !== 'string' || email.length > 254) {
    await burnPasswordCheck('');
    return null;
  }
  const user = await findUserByEmail(db, email);
  if (!user?.password_hash || user.disabled) {
    await burnPasswordCheck(password);
    return null;
  }
  return (await verifyPassword(password, user.password_hash)) ? user : null;
}

/** Disables the user and ends their sessions; false if there is no such user. */
export async function disableUser(storage: Storage, userId: string, now: number): Promise<boolean> {
  return storage.write(async (trx) => {
    const r = await trx.updateTable('dashboard_users').set({ disabled: 1, updated_at: now }).where('id', '=', userId).executeTakeFirst();
    await trx.deleteFrom('dashboard_sessions').where('user_id', '=', userId).execute();
    await trx.deleteFrom('dashboard_links').where('user_id', '=', userId).where('used_at', 'is', null).execute();
    return Number(r.numUpdatedRows) > 0;
  });
}

/** The user's dashboard language (a payment page language code), or null for the browser's. */
export async function setUserLanguage(storage: Storage, userId: string, language: PageLanguage | null, now: number): Promise<void> {
  await storage.write(async (trx) => {
    await trx.updateTable('dashboard_users').set({ language, updated_at: now }).where('id', '=', userId).execute();
  });
}

/** A language a user may choose: one of the payment page's; null, undefined or "" for the browser's. */
export function parseUserLanguage(value: unknown): PageLanguage | null {
  if (value === null || value === undefined || value === '') return null;
  const known = (PAGE_LANGUAGES as readonly unknown[]).includes(value);
  if (!known) throw new UserInputError(`The language must be one of ${PAGE_LANGUAGES.join(', ')}, or empty for the browser's.`, 'bad_language', { languages: PAGE_LANGUAGES.join(', ') });
  return value as PageLanguage;
}
