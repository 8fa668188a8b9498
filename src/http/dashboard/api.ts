// The dashboard's session-authed JSON API under /api/dashboard: one place that checks the
// session, the CSRF guard and the role before any handler runs, and maps errors to statuses.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../../context.ts';
import { BusinessError, NotFoundError, ValidationError } from '../../errors.ts';
import {
  BadCredentialsError,
  CsrfError,
  KeyChangedError,
  LinkExpiredError,
  LoginThrottledError,
  RoleForbiddenError,
  SessionRequiredError,
  UserInputError,
} from '../../dashboard/errors.ts';
import type { SignedIn } from '../../dashboard/sessions.ts';
import type { AuditActor } from '../../dashboard/audit.ts';
import type { Merchant } from '../../merchants/store.ts';
import { checkCsrfToken, checkOrigin, jsonBody, merchantInView, requireManager, requireSession } from './session.ts';

export const API_PREFIX = '/api/dashboard';

export interface DashboardCall {
  req: FastifyRequest;
  reply: FastifyReply;
  signedIn: SignedIn;
  merchant: Merchant;
  body: Record<string, unknown>;
  query: Record<string, unknown>;
  actor: AuditActor;
}

export interface PublicCall {
  req: FastifyRequest;
  reply: FastifyReply;
  body: Record<string, unknown>;
}

type Handler = (call: DashboardCall) => Promise<unknown>;

export interface DashboardApi {
  ctx: Ctx;
  /** A read: needs a session. Returning undefined means the handler answered itself (a stream). */
  get(path: string, handler: Handler, opts?: { manage?: boolean }): void;
  /**
   * A change: session, Origin and CSRF token; `manage` routes refuse viewers. `bodyLimit` raises
   * the gateway's body limit for this route only; `tooLarge` is the message of a body over it.
   */
  post(path: string, handler: Handler, opts?: { manage?: boolean; bodyLimit?: number; tooLarge?: string }): void;
  /** Before a session exists (sign-in, set-password): Origin check only. */
  publicPost(path: string, handler: (call: PublicCall) => Promise<unknown>): void;
}

export function actorOf(req: FastifyRequest, signedIn: SignedIn): AuditActor {
  return { userId: signedIn.user.id, email: signedIn.user.email, ip: req.ip };
}

function fail(reply: FastifyReply, code: number, message: string, extra: Record<string, unknown> = {}) {
  return reply.code(code).header('cache-control', 'no-store').send({ state: 1, message, ...extra });
}

export async function dashboardApi(app: FastifyInstance, ctx: Ctx, groups: Array<(d: DashboardApi) => void>): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook('onSend', async (_req, reply) => {
      reply.header('cache-control', 'no-store');
      reply.header('x-content-type-options', 'nosniff');
    });
    const tooLarge = new Map<string, string>();
    scope.setErrorHandler((err, req, reply) => {
      if ((err as { code?: unknown }).code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
        return fail(reply, 413, tooLarge.get(req.routeOptions.url ?? '') ?? 'The request is too large.');
      }
      if (err instanceof SessionRequiredError) return fail(reply, 401, err.message);
      if (err instanceof BadCredentialsError) return fail(reply, 401, err.message);
      if (err instanceof CsrfError) return fail(reply, 403, err.message);
      if (err instanceof RoleForbiddenError) return fail(reply, 403, err.message);
      if (err instanceof LoginThrottledError) {
        reply.header('retry-after', String(err.retryAfterSeconds));
        return fail(reply, 429, err.message, { retry_after: err.retryAfterSeconds });
      }
      if (err instanceof LinkExpiredError) return fail(reply, 410, err.message);
      if (err instanceof KeyChangedError) return fail(reply, 409, err.message);
      if (err instanceof UserInputError) return fail(reply, 422, err.message);
      if (err instanceof ValidationError) return reply.code(422).send({ state: 1, message: 'Check the highlighted fields.', errors: err.errors });
      if (err instanceof BusinessError) return fail(reply, 422, err.message);
      if (err instanceof NotFoundError) return fail(reply, 404, err.message);
      throw err; // the gateway's own handler answers the rest
    });

    const withSession = async (req: FastifyRequest, reply: FastifyReply, run: Handler, change: boolean, manage: boolean) => {
      const signedIn = await requireSession(ctx, req);
      if (change) {
        checkOrigin(ctx, req);
        checkCsrfToken(req, signedIn);
      }
      if (manage) requireManager(signedIn);
      const merchant = await merchantInView(ctx, req, signedIn);
      const body = change ? jsonBody(req) : {};
      const query = (req.query ?? {}) as Record<string, unknown>;
      const result = await run({ req, reply, signedIn, merchant, body, query, actor: actorOf(req, signedIn) });
      if (result === undefined) return reply;
      return reply.send({ state: 0, result });
    };

    const api: DashboardApi = {
      ctx,
      get(path, handler, opts = {}) {
        scope.get(API_PREFIX + path, (req, reply) => withSession(req, reply, handler, false, opts.manage ?? false));
      },
      post(path, handler, opts = {}) {
        if (opts.tooLarge) tooLarge.set(API_PREFIX + path, opts.tooLarge);
        scope.post(API_PREFIX + path, opts.bodyLimit ? { bodyLimit: opts.bodyLimit } : {}, (req, reply) => withSession(req, reply, handler, true, opts.manage ?? false));
      },
      publicPost(path, handler) {
        scope.post(API_PREFIX + path, async (req, reply) => {
          checkOrigin(ctx, req);
          const result = await handler({ req, reply, body: jsonBody(req) });
          return reply.send({ state: 0, result });
        });
      },
    };
    for (const group of groups) group(api);

    // Anything else under the prefix: 401 without a session (never a redirect), 404 with one.
    scope.all(`${API_PREFIX}/*`, async (req, reply) => {
      await requireSession(ctx, req);
      return fail(reply, 404, 'Not found');
    });
  });
}
