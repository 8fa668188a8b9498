// The public payer API (docs/payment-page.md): unauthenticated, CORS-enabled, rate-limited, cheap
// to poll (ETag/304).
import { createHash } from 'node:crypto';
import cors from '@fastify/cors';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { Ctx } from '../../context.ts';
import { chooseCurrency, payerAnswer, payerView, pollTag } from '../../invoices/payer.ts';
import { walletView } from '../../wallets/payer.ts';
import { cancelByUser, subscribe } from '../../recurrences/lifecycle.ts';
import { recurrencePayerView } from '../../recurrences/payer.ts';
import { presentRecurrence } from '../../recurrences/recurrence-object.ts';
import { parsePayerContact } from '../../recurrences/emails.ts';
import { jsonBody } from '../json-body.ts';
import { allowanceRoutes } from './payer-allowance.ts';

function etagOf(result: Record<string, unknown>): string {
  const { server_time: _ignored, ...stable } = result;
  return `"${createHash('sha1').update(JSON.stringify(stable)).digest('base64url')}"`;
}

function sendCacheable(req: FastifyRequest, reply: FastifyReply, result: Record<string, unknown>) {
  const tag = etagOf(result);
  reply.header('etag', tag).header('cache-control', 'no-cache');
  if (req.headers['if-none-match'] === tag) return reply.code(304).send();
  return reply.send({ state: 0, result });
}

/** The payer API's per-client limit as a hook, for routes outside its scope that count on the same bucket. */
export type PayerLimit = preHandlerAsyncHookHandler;

/**
 * Registers the payer API and returns its rate limit: the payment page `/pay/{uuid}` embeds the
 * same payer view in its HTML, so it must draw on the same per-client bucket, or it would be an
 * unlimited way to read what the limited API serves.
 */
export async function payerRoutes(app: FastifyInstance, ctx: Ctx): Promise<PayerLimit> {
  let limit: PayerLimit | undefined;
  await app.register(payerApi, { prefix: '/api/pay', ctx, expose: (l: PayerLimit) => (limit = l) });
  if (!limit) throw new Error('the payer API did not hand out its rate limit');
  return limit;
}

/**
 * The payer API as its own scope: CORS and the per-client rate limit (the maintained plugins) apply
 * to its routes only, and the limit is counted on the route the router matched, so
 * `/api/p%61y/{uuid}` and other spellings of a path share the bucket of the path they reach.
 * Behind a reverse proxy, `SATCHEL_TRUST_PROXY` makes the client address the payer's, not the
 * proxy's (docs/configuration.md).
 */
async function payerApi(app: FastifyInstance, { ctx, expose }: { ctx: Ctx; expose: (limit: PayerLimit) => void }): Promise<void> {
  await app.register(cors, {
    origin: '*',
    methods: ['GET', 'POST', 'OPTIONS'],
    allowedHeaders: ['content-type', 'if-none-match'],
    exposedHeaders: ['etag'],
    strictPreflight: false,
  });
  await app.register(rateLimit, {
    global: true,
    max: ctx.config.payerRateLimit,
    timeWindow: 60_000,
    // Thrown to the error handler, which answers the envelope `Too many requests`.
    errorResponseBuilder: () => ({ statusCode: 429, message: 'Too many requests' }),
  });
  // Without options the limiter shares this scope's store: one bucket per client address.
  expose(app.rateLimit());
  allowanceRoutes(app, ctx);

  app.get<{ Params: { uuid: string } }>('/:uuid', async (req, reply) => {
    // Most polls change nothing: answer those from one narrow read, before loading the invoice.
    const given = req.headers['if-none-match'];
    if (given !== undefined && given === (await pollTag(ctx, req.params.uuid))) {
      return reply.code(304).header('etag', given).header('cache-control', 'no-cache').send();
    }
    const { etag, result } = await payerAnswer(ctx, req.params.uuid);
    reply.header('etag', etag).header('cache-control', 'no-cache');
    if (given === etag) return reply.code(304).send();
    return reply.send({ state: 0, result });
  });

  app.post<{ Params: { uuid: string } }>('/:uuid/choose', async (req, reply) => {
    const body = jsonBody(req);
    if (body === null) return reply.code(400).send({ state: 1, message: 'Malformed JSON' });
    const inv = await chooseCurrency(ctx, req.params.uuid, body.currency, body.network);
    return reply.send({ state: 0, result: await payerView(ctx, inv) });
  });

  // The payer subscribes to a recurrence (docs/recurring.md): the currency and network every period
  // is paid in, and the first period's invoice to pay (its payer view, as /choose answers); and
  // optionally the payer's `email` and `lang` for the subscription emails (checked first).
  app.post<{ Params: { uuid: string } }>('/recurrence/:uuid/subscribe', async (req, reply) => {
    const body = jsonBody(req);
    if (body === null) return reply.code(400).send({ state: 1, message: 'Malformed JSON' });
    const contact = parsePayerContact(body);
    const { recurrence, invoice } = await subscribe(ctx, req.params.uuid, body.currency, body.network, contact);
    const { url_callback: _hidden, additional_data: _private, ...shown } = presentRecurrence(ctx, recurrence);
    return reply.send({ state: 0, result: { recurrence: shown, invoice: (await payerAnswer(ctx, invoice)).result } });
  });

  // The payer's view of a recurrence (docs/recurring.md): what is subscribed to, the choice, where it stands.
  app.get<{ Params: { uuid: string } }>('/recurrence/:uuid', async (req, reply) =>
    sendCacheable(req, reply, (await recurrencePayerView(ctx, req.params.uuid)) as unknown as Record<string, unknown>),
  );

  // The payer cancels, after confirming on the page: `cancel_by_user`; answers the view after.
  app.post<{ Params: { uuid: string } }>('/recurrence/:uuid/cancel', async (req, reply) => {
    const rec = await cancelByUser(ctx, req.params.uuid);
    return reply.send({ state: 0, result: await recurrencePayerView(ctx, rec.id) });
  });

  app.get<{ Params: { uuid: string } }>('/wallet/:uuid', async (req, reply) => {
    const view = (await walletView(ctx, req.params.uuid)) as Record<string, unknown> | null;
    if (!view) return reply.code(404).send({ state: 1, message: 'Not found' });
    return sendCacheable(req, reply, view);
  });
}
