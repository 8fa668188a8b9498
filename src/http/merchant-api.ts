// The signed merchant API under /v1: signature check, body parsing, success envelope.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../context.ts';
import { AuthError, BusinessError, Msg, ValidationError } from '../errors.ts';
import type { Merchant } from '../merchants/store.ts';
import { isUuid, type Input } from '../contracts/rules.ts';
import { MAX_JSON_DEPTH, parseJsonBody } from './json-body.ts';
import { failure } from './envelope.ts';
import { keyKindsFor, looksLikeWebhook, verifySignature } from './signature.ts';
import { invoiceRoutes } from './routes/invoices.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import { walletRoutes } from './routes/wallets.ts';
import { payoutRoutes } from './routes/payouts.ts';
import { transferRoutes } from './routes/transfers.ts';
import { extraRoutes } from './routes/extras.ts';

export interface SignedCall {
  input: Input;
  merchant: Merchant;
  /** The query string (some endpoints take a cursor there). */
  query: Record<string, unknown>;
  req: FastifyRequest;
}

export type SignedHandler = (call: SignedCall) => Promise<unknown>;

export interface V1 {
  /** Registers a signed POST route. `forbidIfBlocked` answers `You are forbidden` for blocked merchants. */
  post(path: string, handler: SignedHandler, opts?: { forbidIfBlocked?: boolean }): void;
  ctx: Ctx;
}

/** Route groups of the merchant API; later capabilities append theirs. */
export const v1RouteGroups: Array<(v1: V1) => void> = [
  invoiceRoutes,
  webhookRoutes,
  walletRoutes,
  payoutRoutes,
  transferRoutes,
  extraRoutes,
];

export async function merchantApi(app: FastifyInstance, { ctx }: { ctx: Ctx }): Promise<void> {
  const v1: V1 = {
    ctx,
    post(path, handler, opts = {}) {
      const run = async (req: FastifyRequest, reply: FastifyReply) => {
        const merchant = await authenticate(ctx, req);
        const input = parseBody(req, reply);
        if (input === null) return reply;
        if (looksLikeWebhook(input)) throw new AuthError();
        if (opts.forbidIfBlocked !== false && merchant.is_blocked) throw new BusinessError(Msg.forbidden);
        const result = await handler({ input, merchant, query: (req.query ?? {}) as Record<string, unknown>, req });
        return reply.code(200).send({ state: 0, result });
      };
      app.post(path, run);
    },
  };
  for (const group of v1RouteGroups) group(v1);
}

async function authenticate(ctx: Ctx, req: FastifyRequest): Promise<Merchant> {
  const id = req.headers['merchant'];
  const sign = req.headers['sign'];
  if (typeof id !== 'string' || !isUuid(id) || typeof sign !== 'string') throw new AuthError();
  const merchant = await ctx.merchants.get(id.toLowerCase());
  if (!merchant) throw new AuthError();
  const kinds = keyKindsFor(req.routeOptions.url ?? req.url);
  if (!kinds.some((k) => verifySignature(req.rawBody, k === 'payout' ? merchant.payout_key : merchant.payment_key, sign))) throw new AuthError();
  return merchant;
}

const JSON_TYPE = /^application\/([\w.+-]*\+)?json\s*(;|$)/i;

/** Empty body, {} and [] mean "no parameters" (D2). Returns null after answering a bad body. */
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
