// The dashboard API's request plumbing: the session cookie, the CSRF check (Origin plus a
// per-session token), JSON bodies checked against the route's contract, and which merchant a
// signed-in user is looking at.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../../context.ts';
import { ValidationError } from '../../errors.ts';
import type { DashboardRoute } from '../../contracts/dashboard/route.ts';
import { parseJsonBody } from '../json-body.ts';
import { CsrfError, RoleForbiddenError, SessionRequiredError, UserInputError } from '../../dashboard/errors.ts';
import { findSession, ABSOLUTE_MS, type SignedIn } from '../../dashboard/sessions.ts';
import { canManage } from '../../dashboard/users.ts';
import { findMerchant, type Merchant } from '../../merchants/store.ts';
import { isUuid } from '../../contracts/rules.ts';

const PLAIN = 'satchel_session';
/** Over HTTPS the cookie takes the __Host- prefix: Secure, Path=/, no Domain, not settable by a subdomain. */
const HOST_PREFIXED = '__Host-satchel_session';

/**
 * Whether this request is over HTTPS as far as cookies go: the public URL is https, or the request
 * arrived over TLS (or, behind a trusted proxy, `X-Forwarded-Proto` says so: Fastify's
 * `req.protocol` honours it only when `trustProxy` trusts the hop).
 */
export function isHttps(ctx: Ctx, req: FastifyRequest): boolean {
  return ctx.config.publicUrl.startsWith('https:') || req.protocol === 'https';
}

/**
 * The session token from the one cookie name this request's scheme uses. Over HTTPS only the
 * `__Host-` cookie counts: a plain `satchel_session` can be planted by a sibling subdomain or a
 * plain-http response, and reading it would let a planted cookie (sent first) stand in for, and so
 * sign out, the real session. Over plain http there is no `__Host-` cookie to read.
 */
export function readCookie(ctx: Ctx, req: FastifyRequest): string | null {
  const header = req.headers.cookie;
  if (typeof header !== 'string') return null;
  const wanted = isHttps(ctx, req) ? HOST_PREFIXED : PLAIN;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === wanted) return part.slice(eq + 1).trim();
  }
  return null;
}

export function setSessionCookie(ctx: Ctx, req: FastifyRequest, reply: FastifyReply, token: string): void {
  const secure = isHttps(ctx, req);
  const name = secure ? HOST_PREFIXED : PLAIN;
  const attrs = [`${name}=${token}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${Math.floor(ABSOLUTE_MS / 1000)}`];
  if (secure) attrs.push('Secure');
  reply.header('set-cookie', attrs.join('; '));
}

export function clearSessionCookie(ctx: Ctx, req: FastifyRequest, reply: FastifyReply): void {
  const secure = isHttps(ctx, req);
  reply.header('set-cookie', `${secure ? HOST_PREFIXED : PLAIN}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure ? '; Secure' : ''}`);
}

/** State-changing requests must come from the dashboard's own origin. */
export function checkOrigin(ctx: Ctx, req: FastifyRequest): void {
  const origin = req.headers.origin;
  if (typeof origin !== 'string') throw new CsrfError();
  const allowed = new Set([new URL(ctx.config.publicUrl).origin]);
  if (typeof req.headers.host === 'string') allowed.add(`${req.protocol}://${req.headers.host}`);
  if (!allowed.has(origin)) throw new CsrfError();
}

export function checkCsrfToken(req: FastifyRequest, signedIn: SignedIn): void {
  const given = req.headers['x-csrf-token'];
  if (typeof given !== 'string') throw new CsrfError();
  const a = Buffer.from(given);
  const b = Buffer.from(signedIn.session.csrf);
  if (a.length !== b.length || !timingSafeEqual(a, b)) throw new CsrfError();
}

export async function requireSession(ctx: Ctx, req: FastifyRequest): Promise<SignedIn> {
  const token = readCookie(ctx, req);
  const signedIn = token ? await findSession(ctx.storage.db, token, ctx.now()) : null;
  if (!signedIn) throw new SessionRequiredError();
  return signedIn;
}

export function requireManager(signedIn: SignedIn): void {
  if (!canManage(signedIn.user)) throw new RoleForbiddenError();
}

/** The merchant in view: the user's own, or for an instance admin the one named by ?merchant=. */
export async function merchantInView(ctx: Ctx, req: FastifyRequest, signedIn: SignedIn): Promise<Merchant> {
  const { user } = signedIn;
  let id = user.merchant_id;
  if (user.role === 'admin') {
    const asked = (req.query as Record<string, unknown> | undefined)?.merchant;
    if (typeof asked === 'string' && isUuid(asked)) id = asked.toLowerCase();
    else id = (await ctx.storage.db.selectFrom('merchants').select('id').orderBy('created_at').limit(1).executeTakeFirst())?.id ?? null;
  }
  const m = id ? await findMerchant(ctx.storage.db, id) : undefined;
  if (!m) throw new RoleForbiddenError('There is no merchant to show.');
  return m;
}

const JSON_TYPE = /^application\/json\s*(;|$)/i;

/**
 * The body as a JSON object ({} when empty), read by the gateway's one JSON body parser
 * (../json-body.ts: nesting, NUL and prototype keys refused) and checked against the route's
 * contract. Only application/json: an HTML form cannot send it.
 */
export function dashboardBody(req: FastifyRequest, route: DashboardRoute): Record<string, unknown> {
  const text = req.rawBody?.toString('utf8') ?? '';
  if (text.trim() === '') return {};
  if (!JSON_TYPE.test(String(req.headers['content-type'] ?? ''))) throw new UserInputError('Send the body as application/json.');
  const r = parseJsonBody(text);
  if (!r.ok) {
    if (!('field' in r)) throw new UserInputError('The body is not valid JSON.');
    const field = r.field.replace(/\u0000/g, '');
    throw new ValidationError(Object.fromEntries([[field, [r.reason === 'nul' ? 'validation.string' : 'validation.prohibited']]]));
  }
  // parseJsonBody reads any JSON that is not an object as "no parameters"; here it is refused.
  if (!text.trimStart().startsWith('{')) throw new UserInputError('The body must be a JSON object.');
  const checked = route.body.safeParse(r.input);
  if (!checked.success) {
    const errors: Record<string, string[]> = {};
    for (const issue of checked.error.issues) {
      const field = issue.path.map(String).join('.') || 'body';
      const expected = issue.code === 'invalid_type' ? issue.expected : null;
      errors[field] ??= [expected ? `validation.${expected}` : 'validation.invalid'];
    }
    throw new ValidationError(errors);
  }
  // The body as sent (the contract checked it): parameters the contract does not name are the
  // features' to refuse or ignore, as they were before the contract.
  return r.input;
}
