// Password hashing for dashboard users: scrypt (memory-hard), a random salt per hash, parameters
// stored with the hash so they can be raised later without invalidating existing passwords.
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const N = 1 << 15;
const R = 8;
const P = 1;
const KEY_LEN = 32;
/** scrypt needs 128 * N * r bytes; node refuses above `maxmem`, so allow twice that. */
const MAX_MEM = 256 * N * R;

export const PASSWORD_MIN = 10;
/** Bounded, so that a huge password cannot buy a long hash (the KDF is slow by design). */
export const PASSWORD_MAX = 256;

function scrypt(password: string, salt: Buffer, len: number, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scryptCb(password, salt, len, opts, (err, key) => (err ? reject(err) : resolve(key))));
}

/** The reason a password is refused (its code for the dashboard, and in English), or null. */
export function passwordProblem(password: unknown): { code: 'password_empty' | 'password_short' | 'password_long'; message: string } | null {
  if (typeof password !== 'string') return { code: 'password_empty', message: 'Enter a password.' };
  if (password.length < PASSWORD_MIN) return { code: 'password_short', message: `The password needs at least ${PASSWORD_MIN} characters.` };
  if (password.length > PASSWORD_MAX) return { code: 'password_long', message: `The password can have at most ${PASSWORD_MAX} characters.` };
  return null;
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEY_LEN, { N, r: R, p: P, maxmem: MAX_MEM });
  return ['scrypt', Math.log2(N), R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Constant-time comparison; a malformed stored hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [logN, r, p] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  if (![logN, r, p].every((n) => Number.isInteger(n) && n > 0) || logN > 20 || r > 32 || p > 4) return false;
  const salt = Buffer.from(parts[4]!, 'base64url');
  const expected = Buffer.from(parts[5]!, 'base64url');
  if (expected.length === 0) return false;
  const key = await scrypt(password.slice(0, PASSWORD_MAX), salt, expected.length, { N: 2 ** logN, r, p, maxmem: 256 * 2 ** logN * r });
  return timingSafeEqual(key, expected);
}

let dummy: Promise<string> | undefined;

/** Spends the time of a real check, so that an unknown account answers as slowly as a known one. */
export async function burnPasswordCheck(password: string): Promise<void> {
  dummy ??= hashPassword(randomBytes(16).toString('hex'));
  await verifyPassword(password, await dummy);
}
