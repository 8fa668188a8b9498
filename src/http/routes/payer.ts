// The public payer API (D9): unauthenticated, CORS-enabled, rate-limited, cheap to poll (ETag/304).
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../../context.ts';
import { chooseCurrency, loadInvoice, payerFingerprint, payerView } from '../../invoices/payer.ts';
import { jsonBody } from '../json-body.ts';
import { payerHooks } from '../../invoices/payer-hooks.ts';

/** A fixed window per client address; enough to stop a runaway poller or a scraper. */
class RateLimiter {
  private window = 0;
  private counts = new Map<string, number>();
  constructor(private readonly perMinute: number) {}
  allow(key: string, now: number): boolean {
    const w = Math.floor(now / 60_000);
    if (w !== this.window) {
      this.window = w;
      this.counts.clear();
    }
    const c = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, c);
    return c <= this.perMinute;
  }
}

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

export async function payerRoutes(app: FastifyInstance, ctx: Ctx): Promise<void> {
  const limiter = new RateLimiter(ctx.config.payerRateLimit);
  app.addHook('onRequest', async (req, reply) => {
    if (!req.url.startsWith('/api/pay/')) return;
    reply.header('access-control-allow-origin', '*');
    reply.header('access-control-allow-headers', 'content-type, if-none-match');
    reply.header('access-control-allow-methods', 'GET, POST, OPTIONS');
    reply.header('access-control-expose-headers', 'etag');
    if (req.method === 'OPTIONS') return reply.code(204).send();
    if (!limiter.allow(req.ip, Date.now())) return reply.code(429).send({ state: 1, message: 'Too many requests' });
  });
  app.options('/api/pay/*', async (_req, reply) => reply.code(204).send());

  app.get<{ Params: { uuid: string } }>('/api/pay/:uuid', async (req, reply) => {
    const inv = await loadInvoice(ctx, req.params.uuid);
    // Most polls change nothing: answer those from a cheap fingerprint, before building the view.
    const tag = await payerFingerprint(ctx, inv);
    reply.header('etag', tag).header('cache-control', 'no-cache');
    if (req.headers['if-none-match'] === tag) return reply.code(304).send();
    return reply.send({ state: 0, result: await payerView(ctx, inv) });
  });

  app.post<{ Params: { uuid: string } }>('/api/pay/:uuid/choose', async (req, reply) => {
    const body = jsonBody(req);
    if (body === null) return reply.code(400).send({ state: 1, message: 'Malformed JSON' });
    const inv = await chooseCurrency(ctx, req.params.uuid, body.currency, body.network);
    return reply.send({ state: 0, result: await payerView(ctx, inv) });
  });

  app.get<{ Params: { uuid: string } }>('/api/pay/wallet/:uuid', async (req, reply) => {
    const view = await payerHooks.walletView?.(ctx, req.params.uuid);
    if (!view) return reply.code(404).send({ state: 1, message: 'Not found' });
    return sendCacheable(req, reply, view);
  });
}
