// Signing in and out, set-password links, the signed-in user's view, the merchant's users and
// the audit log.
import type { Ctx } from '../../context.ts';
import { BadCredentialsError, LinkExpiredError, LoginThrottledError, RoleForbiddenError, UserInputError } from '../../dashboard/errors.ts';
import { createSession, endAllSessions, endSession, type SignedIn } from '../../dashboard/sessions.ts';
import { releaseOnSuccess, reserveAttempt, throttleKeys } from '../../dashboard/throttle.ts';
import {
  canManage,
  checkCredentials,
  inviteUser,
  disableUser,
  findUser,
  issueSetPasswordLink,
  linkUser,
  listUsers,
  setPasswordUrl,
  setPasswordWithLink,
  setUserLanguage,
  parseUserLanguage,
  type DashboardUser,
} from '../../dashboard/users.ts';
import { audit, auditLog } from '../../dashboard/audit.ts';
import { listMerchants, type Merchant } from '../../merchants/store.ts';
import { dashboardRoute, publicRoute, type DashboardRouteGroup } from './api.ts';
import { authApi } from '../../contracts/dashboard/auth.ts';
import { clearSessionCookie, readCookie, setSessionCookie } from './session.ts';
import { isUuid } from '../../contracts/rules.ts';
import { ValidationError } from '../../errors.ts';
import { inviteMail, mailLanguage } from '../../dashboard/invite-mail.ts';

export function presentUser(u: DashboardUser) {
  return { id: u.id, email: u.email, role: u.role, disabled: u.disabled === 1, has_password: u.password_hash !== null, created_at: u.created_at };
}

async function me(ctx: Ctx, signedIn: SignedIn, merchant: Merchant, csrf: string) {
  const { user } = signedIn;
  return {
    user: { id: user.id, email: user.email, role: user.role, language: parseStoredLanguage(user.language) },
    can_manage: canManage(user),
    merchant: { id: merchant.id, name: merchant.name, blocked: merchant.is_blocked === 1 },
    merchants: user.role === 'admin' ? (await listMerchants(ctx.storage.db)).map((m) => ({ id: m.id, name: m.name })) : null,
    csrf,
    test_mode: ctx.chains.simulator,
    public_url: ctx.config.publicUrl,
    email_enabled: ctx.mail.configured,
  };
}

/** A stored language the contract still knows, else null (the browser's): a removed language never breaks /me. */
function parseStoredLanguage(value: string | null) {
  try {
    return parseUserLanguage(value);
  } catch {
    return null;
  }
}

async function firstMerchantOf(ctx: Ctx, user: DashboardUser): Promise<Merchant> {
  const id = user.merchant_id ?? (await listMerchants(ctx.storage.db))[0]?.id;
  const m = id ? await ctx.storage.db.selectFrom('merchants').selectAll().where('id', '=', id).executeTakeFirst() : undefined;
  if (!m) throw new RoleForbiddenError('There is no merchant to show.');
  return m;
}

export const authRoutes: DashboardRouteGroup = async (app, { ctx }) => {
  publicRoute(app, authApi.login, async ({ req, reply, body }) => {
    const now = ctx.now();
    const keys = throttleKeys(body.email, req.ip);
    // Counted before the (slow) password check: parallel attempts cannot all slip under the limit.
    const wait = await reserveAttempt(ctx.storage, keys, now);
    if (wait > 0) throw new LoginThrottledError(wait);
    const user = await checkCredentials(ctx.storage.db, body.email, body.password);
    if (!user) throw new BadCredentialsError();
    await releaseOnSuccess(ctx.storage.db, user.email, req.ip);
    const merchant = await firstMerchantOf(ctx, user);
    const { token, csrf } = await createSession(ctx.storage.db, user, req.ip, now);
    setSessionCookie(ctx, req, reply, token);
    await audit(ctx.storage.db, { userId: user.id, email: user.email, ip: req.ip }, { merchantId: user.merchant_id, action: 'sign_in' }, now);
    const session = { token_hash: '', user_id: user.id, csrf, created_at: now, seen_at: now, expires_at: now, ip: req.ip };
    return me(ctx, { session, user }, merchant, csrf);
  });

  publicRoute(app, authApi.link, async ({ body }) => {
    const user = typeof body.token === 'string' ? await linkUser(ctx.storage.db, body.token, ctx.now()) : null;
    if (!user) throw new LinkExpiredError();
    return { email: user.email, has_password: user.password_hash !== null };
  });

  publicRoute(app, authApi.setPassword, async ({ req, reply, body }) => {
    if (typeof body.token !== 'string') throw new LinkExpiredError();
    const now = ctx.now();
    const user = await setPasswordWithLink(ctx.storage, body.token, body.password, now);
    await audit(ctx.storage.db, { userId: user.id, email: user.email, ip: req.ip }, { merchantId: user.merchant_id, action: 'set_password' }, now);
    const merchant = await firstMerchantOf(ctx, user);
    const { token, csrf } = await createSession(ctx.storage.db, user, req.ip, now);
    setSessionCookie(ctx, req, reply, token);
    const session = { token_hash: '', user_id: user.id, csrf, created_at: now, seen_at: now, expires_at: now, ip: req.ip };
    return me(ctx, { session, user }, merchant, csrf);
  });

  dashboardRoute(app, authApi.me, async ({ signedIn, merchant }) => me(ctx, signedIn, merchant, signedIn.session.csrf));

  dashboardRoute(app, authApi.setLanguage, async ({ signedIn, body }) => {
    const language = parseUserLanguage(body.language);
    await setUserLanguage(ctx.storage, signedIn.user.id, language, ctx.now());
    return { language };
  });

  dashboardRoute(app, authApi.logout, async ({ req, reply }) => {
    const token = readCookie(ctx, req);
    if (token) await endSession(ctx.storage.db, token);
    clearSessionCookie(ctx, req, reply);
    return { signed_out: true };
  });

  dashboardRoute(app, authApi.logoutAll, async ({ req, reply, signedIn, actor }) => {
    const ended = await endAllSessions(ctx.storage.db, signedIn.user.id);
    clearSessionCookie(ctx, req, reply);
    await audit(ctx.storage.db, actor, { merchantId: signedIn.user.merchant_id, action: 'sign_out_everywhere', detail: { sessions: ended } }, ctx.now());
    return { signed_out: ended };
  });

  dashboardRoute(app, authApi.users, async ({ merchant }) => (await listUsers(ctx.storage.db, merchant.id)).map(presentUser));

  dashboardRoute(
    app,
    authApi.invite,
    async ({ req, merchant, body, actor, signedIn }) => {
      // A line break in an address would start a mail header of its own: refused before anything.
      if (typeof body.email === 'string' && /[\r\n]/.test(body.email)) throw new ValidationError({ email: ['validation.email'] });
      const role = body.role === 'owner' || body.role === 'viewer' ? body.role : null;
      if (!role) throw new UserInputError('The role must be owner or viewer.');
      const now = ctx.now();
      const { user, token, stored } = await inviteUser(ctx.storage, merchant.id, body.email, role, now);
      const link = setPasswordUrl(ctx.config.publicUrl, token);
      await audit(ctx.storage.db, actor, { merchantId: merchant.id, action: 'user_invite', target: user.email, detail: { role } }, now);
      let email: { sent: boolean; reason: string | null } | null = null;
      if (ctx.mail.configured) {
        // An email of another merchant's user gets a note without a link (the invitation cannot be
        // accepted with it), and the owner sees the same answer as for any email.
        const language = mailLanguage(signedIn.user.language, req.headers['accept-language']);
        const message = inviteMail({ to: user.email, inviter: signedIn.user.email, shop: merchant.name, link: stored ? link : null, language });
        const result = await ctx.mail.send(message);
        email = result.sent ? { sent: true, reason: null } : { sent: false, reason: result.reason };
        if (!result.sent) req.log.warn({ reason: result.reason }, 'invitation email not sent');
      }
      return { user: presentUser(user), link, email };
    },
  );

  const ownUser = async (merchant: Merchant, id: unknown): Promise<DashboardUser> => {
    const user = typeof id === 'string' && isUuid(id) ? await findUser(ctx.storage.db, id.toLowerCase()) : undefined;
    if (!user || user.merchant_id !== merchant.id) throw new UserInputError('No such user.');
    return user;
  };

  dashboardRoute(
    app,
    authApi.removeUser,
    async ({ merchant, body, actor, signedIn }) => {
      const user = await ownUser(merchant, body.id);
      if (user.id === signedIn.user.id) throw new UserInputError('You cannot remove yourself.');
      const now = ctx.now();
      await disableUser(ctx.storage, user.id, now);
      await audit(ctx.storage.db, actor, { merchantId: merchant.id, action: 'user_remove', target: user.email }, now);
      return presentUser({ ...user, disabled: 1 });
    },
  );

  dashboardRoute(
    app,
    authApi.resetLink,
    async ({ merchant, body, actor }) => {
      const user = await ownUser(merchant, body.id);
      if (user.disabled) throw new UserInputError('This user is removed.');
      const now = ctx.now();
      const token = await issueSetPasswordLink(ctx.storage, user.id, now);
      await audit(ctx.storage.db, actor, { merchantId: merchant.id, action: 'user_reset_link', target: user.email }, now);
      return { link: setPasswordUrl(ctx.config.publicUrl, token) };
    },
  );

  dashboardRoute(app, authApi.audit, async ({ merchant, query }) => {
    const t = Number(query.before_t);
    const id = typeof query.before_id === 'string' ? query.before_id : '';
    const before = Number.isSafeInteger(t) && id ? { t, id } : undefined;
    const rows = await auditLog(ctx.storage.db, merchant.id, 50, before);
    return rows.map((r) => ({ id: r.id, at: r.created_at, email: r.email, action: r.action, target: r.target, detail: r.detail ? (JSON.parse(r.detail) as unknown) : null, ip: r.ip }));
  });
};
