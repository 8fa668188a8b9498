// The dashboard's session-authed JSON API under /api/dashboard as an encapsulated Fastify plugin.
// Every route is declared by its contract (src/contracts/dashboard/), and the plugin's hooks run,
// before any handler: the Origin and session checks, the CSRF token and the role the contract
// asks for, the one JSON body parser, and the check of the body against the contract. Failures are
// thrown and answered by the one error table below; a result is answered in the success envelope.
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../../context.ts';
import { BusinessError, NotFoundError, ValidationError } from '../../errors.ts';
import {
  BadCredentialsError,
  CsrfError,
  KeyChangedError,
  LinkExpiredError,
  LoginThrottledError,
  PasswordRecheckError,
  RoleForbiddenError,
  SessionRequiredError,
  UserInputError,
} from '../../dashboard/errors.ts';
import type { SignedIn } from '../../dashboard/sessions.ts';
import type { AuditActor } from '../../dashboard/audit.ts';
import type { Merchant } from '../../merchants/store.ts';
import type { DashboardRoute } from '../../contracts/dashboard/route.ts';
import type { DashboardErrorCode } from '../../contracts/dashboard/codes.ts';
import { checkCsrfToken, checkOrigin, dashboardBody, merchantInView, requireManager, requireSession } from './session.ts';

export const API_PREFIX = '/api/dashboard';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The dashboard route a request is for: its access rule and body contract. */
    dashboardRoute?: DashboardRoute;
    /** The message of a body over the route's own body limit. */
    tooLarge?: string;
  }
  interface FastifyRequest {
    /** Set by the dashboard API's hooks once the request passed them (null elsewhere). */
    dashboardCall: DashboardCall<unknown> | PublicCall<unknown> | null;
  }
}

/** What a signed-in route's handler is given. `body` passed the route's contract. */
export interface DashboardCall<Body> {
  req: FastifyRequest;
  reply: FastifyReply;
  signedIn: SignedIn;
  merchant: Merchant;
  body: Body;
  query: Record<string, unknown>;
  actor: AuditActor;
}

/** What a route before a session exists (sign-in, set-password) is given. */
export interface PublicCall<Body> {
  req: FastifyRequest;
  reply: FastifyReply;
  body: Body;
}

/** A group of dashboard routes, registered as a plugin inside the dashboard API. */
export type DashboardRouteGroup = FastifyPluginAsync<{ ctx: Ctx }>;

export function actorOf(req: FastifyRequest, signedIn: SignedIn): AuditActor {
  return { userId: signedIn.user.id, email: signedIn.user.email, ip: req.ip };
}

/** Registers a signed-in route (`session` or `manage`) from its contract. `bodyLimit` raises the
 * gateway's body limit for this route only; `tooLarge` is the message of a body over it. A handler
 * of a route without a JSON result (a download) answers itself and returns undefined. */
export function dashboardRoute<Body, Result>(
  app: FastifyInstance,
  route: DashboardRoute<Body, Result, string>,
  handler: (call: DashboardCall<Body>) => Promise<NoInfer<Result>>,
  opts: { bodyLimit?: number; tooLarge?: string } = {},
): void {
  if (route.access === 'public') throw new Error(`dashboard route ${route.path} is public: use publicRoute`);
  register(app, route as DashboardRoute, opts, (call) => handler(call as DashboardCall<Body>));
}

/** Registers a route called before a session exists: Origin check only. */
export function publicRoute<Body, Result>(app: FastifyInstance, route: DashboardRoute<Body, Result, string>, handler: (call: PublicCall<Body>) => Promise<NoInfer<Result>>): void {
  if (route.access !== 'public') throw new Error(`dashboard route ${route.path} is not public`);
  register(app, route as DashboardRoute, {}, (call) => handler(call as PublicCall<Body>));
}

function register(app: FastifyInstance, route: DashboardRoute, opts: { bodyLimit?: number; tooLarge?: string }, run: (call: DashboardCall<unknown> | PublicCall<unknown>) => Promise<unknown>): void {
  app.route({
    method: route.method,
    url: route.path,
    ...(opts.bodyLimit ? { bodyLimit: opts.bodyLimit } : {}),
    config: { dashboardRoute: route, ...(opts.tooLarge ? { tooLarge: opts.tooLarge } : {}) },
    handler: async (req, reply) => {
      const call = req.dashboardCall;
      if (!call) throw new SessionRequiredError();
      const result = await run(call);
      if (result === undefined) return reply;
      return reply.send({ state: 0, result });
    },
  });
}

/** A failure envelope; `code` (when the failure has one) lets the dashboard say it in the user's language. */
function fail(reply: FastifyReply, status: number, message: string, code: DashboardErrorCode | null, extra: Record<string, unknown> = {}) {
  return reply.code(status).header('cache-control', 'no-store').send({ state: 1, message, ...(code ? { code } : {}), ...extra });
}

/** The one error table of the dashboard API: each error class, the status it answers and its code
 * (null: the message is particular to the request, and the dashboard shows it as it is). */
const STATUSES: ReadonlyArray<[new (...args: never[]) => Error, number, DashboardErrorCode | null]> = [
  [SessionRequiredError, 401, 'session_required'],
  [BadCredentialsError, 401, 'bad_credentials'],
  [CsrfError, 403, 'csrf'],
  [RoleForbiddenError, 403, 'role_forbidden'],
  [PasswordRecheckError, 403, null],
  [LinkExpiredError, 410, 'link_expired'],
  [KeyChangedError, 409, 'key_changed'],
  [UserInputError, 422, null],
  [BusinessError, 422, null],
  [NotFoundError, 404, 'not_found'],
];

export interface DashboardApiOptions {
  ctx: Ctx;
  groups: readonly DashboardRouteGroup[];
}

/** Register with `prefix: API_PREFIX`. */
export const dashboardApi: FastifyPluginAsync<DashboardApiOptions> = async (app, { ctx, groups }) => {
  app.decorateRequest('dashboardCall', null);
  app.addHook('onSend', async (_req, reply) => {
    reply.header('cache-control', 'no-store');
    reply.header('x-content-type-options', 'nosniff');
  });
  app.setErrorHandler((err, req, reply) => {
    if ((err as { code?: unknown }).code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return fail(reply, 413, req.routeOptions.config?.tooLarge ?? 'The request is too large.', 'too_large');
    }
    if (err instanceof LoginThrottledError) {
      reply.header('retry-after', String(err.retryAfterSeconds));
      return fail(reply, 429, err.message, 'login_throttled', { retry_after: err.retryAfterSeconds });
    }
    if (err instanceof ValidationError) return reply.code(422).send({ state: 1, message: 'Check the highlighted fields.', code: 'validation', errors: err.errors });
    const entry = STATUSES.find(([cls]) => err instanceof cls);
    if (err instanceof UserInputError && err.code) return fail(reply, 422, err.message, err.code, Object.keys(err.params).length ? { params: err.params } : {});
    if (entry) return fail(reply, entry[1], (err as Error).message, err instanceof PasswordRecheckError ? err.code : entry[2]);
    throw err; // the gateway's own handler answers the rest
  });

  app.addHook('preHandler', async (req, reply) => {
    const route = req.routeOptions.config.dashboardRoute;
    if (!route) return; // the fallback below
    if (route.access === 'public') {
      checkOrigin(ctx, req);
      req.dashboardCall = { req, reply, body: dashboardBody(req, route) };
      return;
    }
    const signedIn = await requireSession(ctx, req);
    const change = route.method === 'POST';
    if (change) {
      checkOrigin(ctx, req);
      checkCsrfToken(req, signedIn);
    }
    if (route.access === 'manage') requireManager(signedIn);
    const merchant = await merchantInView(ctx, req, signedIn);
    const body = change ? dashboardBody(req, route) : {};
    const query = (req.query ?? {}) as Record<string, unknown>;
    req.dashboardCall = { req, reply, signedIn, merchant, body, query, actor: actorOf(req, signedIn) };
  });

  for (const group of groups) await app.register(group, { ctx });

  // Anything else under the prefix: 401 without a session (never a redirect), 404 with one.
  app.all('/*', async (req, reply) => {
    await requireSession(ctx, req);
    return fail(reply, 404, 'Not found', 'not_found');
  });
};
