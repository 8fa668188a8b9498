// The signed merchant API as an encapsulated Fastify plugin. Its hooks, for every route registered
// inside it: the signature with the key the route's operation declares, the blocked-merchant rule,
// the body parsed into the operation's typed parameters, and the success envelope. Failures are
// thrown and answered with the failure envelope by the server's error handler.
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Ctx } from '../context.ts';
import { AuthError, BusinessError, Msg, ValidationError } from '../errors.ts';
import { refundKeys, type Merchant } from '../merchants/store.ts';
import { isUuid, type Input } from '../contracts/rules.ts';
import type { Operation, ParseEnv, SigningKey } from '../contracts/merchant-api/operation.ts';
import { parseParams } from '../contracts/merchant-api/parse.ts';
import { MAX_JSON_DEPTH, parseJsonBody } from './json-body.ts';
import { failure } from './envelope.ts';
import { isWebhookSignature, looksLikeWebhook, verifySignature, withoutWebhookFields } from '../webhooks/signature.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The merchant operation a signed route serves: its key and blocked-merchant rule. */
    merchantOperation?: Operation<unknown, unknown, unknown>;
  }
  interface FastifyRequest {
    /** Set by the signed API's hooks once the request is authenticated (null elsewhere). */
    signedCall: SignedCall | null;
  }
}

/** What a signed route's handler is given once its request passed the plugin's hooks. */
export interface SignedCall<Params = unknown> {
  /** The body parsed with the operation's rules (the query string too, where it takes a cursor). */
  params: Params;
  merchant: Merchant;
  req: FastifyRequest;
}

export type SignedHandler<Params, Result> = (call: SignedCall<Params>) => Promise<Result>;

/** A group of signed routes, registered as a plugin inside the signed API. */
export type SignedRouteGroup = FastifyPluginAsync<{ ctx: Ctx }>;

/** Registers `op` on its path; `handler` gets the authenticated call and returns the result. */
export function signedRoute<Params, Result, Body>(app: FastifyInstance, op: Operation<Params, Result, Body>, handler: SignedHandler<Params, NoInfer<Result>>): void {
  app.post(op.path, { config: { merchantOperation: op as Operation<unknown, unknown, unknown> } }, async (req) => {
    const call = req.signedCall;
    if (!call) throw new AuthError();
    return handler(call as SignedCall<Params>);
  });
}

/** What parsing an operation's parameters needs from the gateway; `query`: the query string. */
export function parseEnv(ctx: Ctx, query?: Input): ParseEnv {
  return { isFiat: (code) => ctx.registry.fiatCurrency(code) !== undefined, query };
}

/** An operation's typed parameters from raw input, as the signed API parses a body. */
export function paramsFor<Params, Result, Body>(ctx: Ctx, op: Operation<Params, Result, Body>, input: Input, query?: Input): Params {
  return parseParams(op, input, parseEnv(ctx, query));
}

export interface SignedApiOptions {
  ctx: Ctx;
  groups: readonly SignedRouteGroup[];
}

export const signedApi: FastifyPluginAsync<SignedApiOptions> = async (app, { ctx, groups }) => {
  // A request property rather than a WeakMap keyed by request: weak entries for every short-lived
  // request are costly work for the garbage collector.
  app.decorateRequest('signedCall', null);
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.config?.merchantOperation) throw new Error(`signed route ${route.url} declares no merchant operation`);
    const handler = route.handler;
    route.handler = async function (this: FastifyInstance, req, reply) {
      const result = await handler.call(this, req, reply);
      return reply.code(200).send({ state: 0, result });
    };
  });
  app.addHook('preHandler', async (req, reply) => {
    const op = req.routeOptions.config.merchantOperation!;
    const merchant = await authenticate(ctx, req, op.signedWith);
    let input = parseBody(req, reply);
    if (input === null) return reply;
    if (looksLikeWebhook(input)) {
      // A webhook replayed as a request carries the webhook's own signature: refused everywhere.
      // Re-signed as a request, it is accepted only by read-only operations, minus its webhook fields.
      if (!op.acceptsWebhookBody) throw new AuthError();
      const keys = keysFor(op.signedWith, merchant).map((k) => (k === 'payout' ? merchant.payout_key : merchant.payment_key));
      if (isWebhookSignature(input, keys, req.headers['sign'] as string | undefined)) throw new AuthError();
      input = withoutWebhookFields(input);
    }
    if (op.blockedMerchant === 'forbidden' && merchant.is_blocked) throw new BusinessError(Msg.forbidden);
    const params = paramsFor(ctx, op, input, (req.query ?? {}) as Input);
    req.signedCall = { params, merchant, req };
  });
  for (const group of groups) await app.register(group, { ctx });
};

/** The keys that may sign an operation for this merchant (`refund` follows the merchant's setting). */
function keysFor(signedWith: SigningKey, merchant: Merchant): ReadonlyArray<'payment' | 'payout'> {
  switch (signedWith) {
    case 'payment':
      return ['payment'];
    case 'payout':
      return ['payout'];
    case 'payment_or_payout':
      return ['payment', 'payout'];
    case 'refund':
      return refundKeys(merchant);
  }
}

async function authenticate(ctx: Ctx, req: FastifyRequest, signedWith: SigningKey): Promise<Merchant> {
  const id = req.headers['merchant'];
  const sign = req.headers['sign'];
  if (typeof id !== 'string' || !isUuid(id) || typeof sign !== 'string') throw new AuthError();
  const merchant = await ctx.merchants.get(id.toLowerCase());
  if (!merchant) throw new AuthError();
  if (!keysFor(signedWith, merchant).some((k) => verifySignature(req.rawBody, k === 'payout' ? merchant.payout_key : merchant.payment_key, sign))) throw new AuthError();
  return merchant;
}

const JSON_TYPE = /^application\/([\w.+-]*\+)?json\s*(;|$)/i;

/**
 * Empty body, {} and [] mean "no parameters", as clients send them. Returns null after answering a
 * bad body.
 */
function parseBody(req: FastifyRequest, reply: FastifyReply): Input | null {
  if (req.rawBody.length === 0) return {};
  const type = req.headers['content-type'];
  if (type !== undefined && !JSON_TYPE.test(type) && req.rawBody.toString('utf8').trim() !== '') {
    reply.code(415).send(failure(415));
    return null;
  }
  const r = parseJsonBody(req.rawBody);
  if (r.ok) return r.input;
  if (!('field' in r)) {
    const message = r.reason === 'malformed' ? 'Malformed JSON' : `JSON nested deeper than ${MAX_JSON_DEPTH} levels`;
    reply.code(400).send({ state: 1, message });
    return null;
  }
  // A field name made safe to echo: no NUL, and as an own property even when it is "__proto__".
  const field = r.field.replace(/\u0000/g, '');
  throw new ValidationError(Object.fromEntries([[field, [r.reason === 'nul' ? 'validation.string' : 'validation.prohibited']]]));
}
