// The HTTP server: envelopes, errors and cross-cutting hooks. Route groups register themselves.
import Fastify, { type FastifyInstance, type FastifyError } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { Ctx } from '../context.ts';
import { AuthError, BusinessError, NotFoundError, ValidationError } from '../errors.ts';
import { Metrics } from '../ops/metrics.ts';
import { merchantApi } from './merchant-api.ts';
import { simulatorRoutes } from './routes/simulator.ts';
import { payerRoutes } from './routes/payer.ts';
import { pageRoutes } from './routes/page.ts';
import { demoRoutes } from '../demo/index.ts';
import { moneyOutSimulatorRoutes } from './routes/payouts.ts';
import { exchangeRateRoutes } from './routes/extras.ts';

declare module 'fastify' {
  interface FastifyRequest {
    rawBody: Buffer;
  }
}

export interface AppOptions {
  logger?: boolean;
  /** Extra route groups (payer API, simulator, page) registered by later layers. */
  plugins?: Array<(app: FastifyInstance, ctx: Ctx) => Promise<void> | void>;
}

export const SERVER_ERROR = { message: 'Server error', code: 500, error: null } as const;

export async function buildApp(ctx: Ctx, opts: AppOptions = {}): Promise<FastifyInstance> {
  const metrics = new Metrics();
  const app = Fastify({
    logger: opts.logger === false ? false : { level: ctx.config.logLevel, redact: ['req.headers.sign'] },
    bodyLimit: ctx.config.bodyLimit,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID();
    },
    requestIdHeader: false,
    return503OnClosing: true,
  });

  // Every body is kept as raw bytes: signatures are computed over exactly what arrived (D2).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  app.decorateRequest('rawBody', null as unknown as Buffer);
  app.addHook('preValidation', async (req) => {
    req.rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  });

  app.addHook('onResponse', async (req, reply) => {
    metrics.inc('satchel_http_requests_total', 'HTTP requests answered', {
      route: req.routeOptions.url ?? 'unknown',
      status: String(reply.statusCode),
    });
  });
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });

  app.setErrorHandler((err: FastifyError | Error, req, reply) => {
    if (err instanceof ValidationError) return reply.code(422).send({ state: 1, errors: err.errors });
    if (err instanceof BusinessError) return reply.code(422).send({ state: 1, message: err.message });
    if (err instanceof AuthError) return reply.code(401).send({ state: 1, message: err.message });
    if (err instanceof NotFoundError) return reply.code(404).send({ state: 1, message: err.message });
    const fe = err as FastifyError;
    if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return reply.code(413).send({ state: 1, message: 'Request body is too large' });
    }
    if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
      return reply.code(fe.statusCode).send({ state: 1, message: 'Bad request' });
    }
    req.log.error({ err }, 'request failed');
    return reply.code(500).send(SERVER_ERROR);
  });
  app.setNotFoundHandler((_req, reply) => reply.code(404).send({ state: 1, message: 'Not found' }));

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    try {
      await ctx.storage.db.selectFrom('merchants').select('id').limit(1).execute();
      return { status: 'ready' };
    } catch {
      return reply.code(503).send({ status: 'unavailable' });
    }
  });
  app.get('/metrics', async (_req, reply) => reply.type('text/plain; version=0.0.4').send(await metrics.render()));

  await app.register(merchantApi, { ctx });
  // The simulator only exists in test mode: it makes money out of nothing.
  if (ctx.chains.simulator) {
    await simulatorRoutes(app, ctx);
    await moneyOutSimulatorRoutes(app, ctx);
  }
  await exchangeRateRoutes(app, ctx);
  await payerRoutes(app, ctx);
  await pageRoutes(app, ctx);
  await demoRoutes(app, ctx);
  for (const p of opts.plugins ?? []) await p(app, ctx);
  return app;
}
