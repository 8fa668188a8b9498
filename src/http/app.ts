// The HTTP server: envelopes, errors and cross-cutting hooks. Route groups register themselves.
import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { Ctx } from '../context.ts';
import { AuthError, BusinessError, DatabaseUnavailableError, NotFoundError, ValidationError } from '../errors.ts';
import { Metrics, type Sample } from '../ops/metrics.ts';
import { rateSourceSamples } from '../rates/metrics.ts';
import { floatLines } from '../outgoing/float.ts';
import { backlogSamples } from '../db/backlog.ts';
import { incidentCounts } from '../chain/incidents.ts';
import { clientErrorHandler, failure, frameworkErrors, frameworkStatus } from './envelope.ts';
import { ScanBusyError } from '../chain/errors.ts';
import { signedApi } from './signed-api.ts';
import { limitConnections, requestDeadlineOptions } from './connections.ts';
import { setSecurityHeaders } from './security-headers.ts';
import { invoiceRoutes } from './routes/invoices.ts';
import { recurrenceRoutes } from './routes/recurrences.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import { walletRoutes } from './routes/wallets.ts';
import { transferRoutes } from './routes/transfers.ts';
import { accountRoutes } from './routes/account.ts';
import { simulatorRoutes } from './routes/simulator.ts';
import { payerRoutes } from './routes/payer.ts';
import { pageRoutes } from './routes/page.ts';
import { logoRoutes } from './routes/logos.ts';
import { demoRoutes } from '../demo/index.ts';
import { moneyOutSimulatorRoutes, payoutRoutes } from './routes/payouts.ts';
import { exchangeRateRoutes } from './routes/exchange-rates.ts';
import { openApiRoutes } from './routes/openapi.ts';
import { dashboardRoutes } from './dashboard/index.ts';
import { countStuckPayouts } from '../outgoing/stuck.ts';
import { nodeFaultReport } from './node-faults.ts';

declare module 'fastify' {
  interface FastifyRequest {
    rawBody: Buffer;
  }
}

export interface AppOptions {
  logger?: boolean;
  /** Where the log lines go (standard output by default); tests read them here. */
  logStream?: { write(line: string): void };
  /** Extra route groups (payer API, simulator, page) registered by later layers. */
  plugins?: Array<(app: FastifyInstance, ctx: Ctx) => Promise<void> | void>;
  /** Where the built page and widget are (dist/ by default). */
  distDir?: string;
}

export const SERVER_ERROR = { message: 'Server error', code: 500, error: null } as const;
/** The database is out of reach: the server failure envelope with 503, worth retrying shortly. */
export const UNAVAILABLE = { message: 'Server error', code: 503, error: null } as const;
/** /readyz gives up on a database that does not answer within this time. */
const READY_TIMEOUT_MS = 2000;

function hops(n: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < n;
}

/** One line per answered request instead of Fastify's two. The merchant API's calls are what an
 * operator follows (and are few); payer polls every few seconds, health probes and metrics scrapes
 * would drown them, so everything else is at debug (LOG_LEVEL=debug shows it). */
class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, req: FastifyRequest, reply: FastifyReply): void {
    if (error) return super.requestCompleted(error, req, reply);
    const line = { method: req.method, url: req.url, statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime) };
    if (req.routeOptions.config?.merchantOperation !== undefined) req.log.info(line, 'request');
    else req.log.debug(line, 'request');
  }
}

export async function buildApp(ctx: Ctx, opts: AppOptions = {}): Promise<FastifyInstance> {
  const metrics = new Metrics();
  const app = Fastify({
    logger: opts.logger === false ? false : { level: ctx.config.logLevel, redact: ['req.headers.sign'], ...(opts.logStream ? { stream: opts.logStream } : {}) },
    logController: new RequestLog(),
    bodyLimit: ctx.config.bodyLimit,
    ...requestDeadlineOptions(ctx.config),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID();
    },
    requestIdHeader: false,
    // A hop count trusts that many proxies nearest to us (Fastify's types want it as a function).
    trustProxy: typeof ctx.config.trustProxy === 'number' ? hops(ctx.config.trustProxy) : ctx.config.trustProxy,
    // Fastify's own 503, 400/414 and 431 bodies have no `state`: these answer with envelopes.
    return503OnClosing: false,
    frameworkErrors,
    clientErrorHandler,
  });

  limitConnections(app.server, ctx.config);

  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // The hooks every request passes are synchronous (callback style): an async hook costs a
  // promise and a microtask turn per request, a measurable share of a small answer's CPU.
  app.addHook('onRequest', (req, reply, done) => {
    // Set here rather than in an onSend hook: headers set on arrival stay on every answer, error
    // answers included, and an onSend hook costs a hook run per answer.
    reply.header('x-request-id', req.id);
    setSecurityHeaders(reply);
    if (closing) return void reply.code(503).header('connection', 'close').send(failure(503));
    done();
  });

  // Every body is kept as raw bytes: signatures are computed over exactly what arrived (clients
  // serialize JSON differently).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  app.decorateRequest('rawBody', null as unknown as Buffer);
  const EMPTY = Buffer.alloc(0);
  app.addHook('preValidation', (req, _reply, done) => {
    req.rawBody = Buffer.isBuffer(req.body) ? req.body : EMPTY;
    done();
  });

  const answered = metrics.counter('satchel_http_requests_total', 'HTTP requests answered', ['route', 'status']);
  app.addHook('onResponse', (req, reply, done) => {
    answered(req.routeOptions.url ?? 'unknown', String(reply.statusCode));
    done();
  });
  metrics.gauge('satchel_transfers_set_aside', 'Incoming transfers set aside because they could not be processed (see set_aside_transfers)', async () => {
    const row = await ctx.storage.db.selectFrom('set_aside_transfers').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirst();
    return Number(row?.n ?? 0);
  });
  metrics.gauge('satchel_payouts_stuck', 'Payouts not sent whose last attempt failed (hot wallet short, node down): satchel payouts list --stuck', () =>
    countStuckPayouts(ctx.storage.db),
  );

  app.setErrorHandler((err: FastifyError | Error, req, reply) => {
    if (err instanceof ValidationError) return reply.code(422).send({ state: 1, errors: err.errors });
    if (err instanceof BusinessError) return reply.code(422).send(err.code === undefined ? { state: 1, message: err.message } : { state: 1, message: err.message, code: err.code });
    if (err instanceof AuthError) return reply.code(401).send({ state: 1, message: err.message });
    if (err instanceof NotFoundError) return reply.code(404).send({ state: 1, message: err.message });
    if (err instanceof DatabaseUnavailableError || err instanceof ScanBusyError) {
      req.log.warn({ err: err.cause }, 'database unavailable');
      return reply.code(503).header('retry-after', '1').send(UNAVAILABLE);
    }
    const fe = err as FastifyError;
    if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
      const status = frameworkStatus(fe);
      return reply.code(status).send(failure(status));
    }
    req.log.error({ err }, 'request failed');
    return reply.code(500).send(SERVER_ERROR);
  });
  app.setNotFoundHandler((req, reply) => {
    // A known path asked with another method is a 405 that names the methods it has.
    const path = req.url.split('?')[0] ?? req.url;
    const allowed = (['GET', 'POST'] as const).filter((method) => method !== req.method && app.hasRoute({ method, url: path }));
    if (allowed.length > 0) return reply.code(405).header('allow', allowed.join(', ')).send(failure(405));
    return reply.code(404).send(failure(404));
  });

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    let timer: NodeJS.Timeout | undefined;
    try {
      const probe = ctx.storage.db.selectFrom('merchants').select('id').limit(1).execute();
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('database did not answer')), READY_TIMEOUT_MS);
      });
      probe.catch(() => {});
      await Promise.race([probe, late]);
      // Each real network's scan: last scanned height and how far behind its node it is.
      const networks = Object.fromEntries(
        (await ctx.chains.families.scanStatus(ctx.storage.db)).map((s) => [s.network, { height: s.height, node_height: s.nodeHeight, lag: s.lag, updated_at: s.updatedAt }]),
      );
      const faults = await nodeFaultReport(ctx);
      if (faults.all) return reply.code(503).send({ status: 'unavailable', networks, faulty_nodes: faults.faulty, chains: ctx.chains.report() });
      return { status: 'ready', networks, faulty_nodes: faults.faulty, chains: ctx.chains.report() };
    } catch {
      return reply.code(503).send({ status: 'unavailable' });
    } finally {
      clearTimeout(timer);
    }
  });
  metrics.collect(async () =>
    (await ctx.chains.families.scanStatus(ctx.storage.db)).flatMap((s) => [
      { name: 'satchel_chain_scan_height', help: 'Last block scanned, per network', labels: { network: s.network }, value: s.height },
      ...(s.nodeHeight === null ? [] : [
        { name: 'satchel_chain_node_height', help: 'The node\'s height at the last scan, per network', labels: { network: s.network }, value: s.nodeHeight },
        { name: 'satchel_chain_scan_lag_blocks', help: 'Blocks the scan is behind the node, per network', labels: { network: s.network }, value: s.lag ?? 0 },
      ]),
    ]),
  );
  metrics.collect(async () =>
    (await nodeFaultReport(ctx)).samples.map((s) => ({
      name: 'satchel_chain_node_faulty',
      help: 'Whether the network\'s node is judged faulty (answers no sane node gives): nothing is scanned on it until it recovers',
      labels: { network: s.network },
      value: s.faulty,
    })),
  );
  metrics.collect(() => backlogSamples(ctx.storage, ctx.now));
  metrics.collect(async () => rateSourceSamples(ctx.rates.sourceStats(), ctx.now()));
  // Counted by whichever process met them (a worker), read here: every api process shows them all.
  metrics.collect(async () =>
    (await incidentCounts(ctx.storage.db)).map((c): Sample =>
      c.kind === 'poll_timeout'
        ? { name: 'satchel_chain_poll_timeouts_total', help: 'Chain polls that ran past SATCHEL_CHAIN_POLL_TIMEOUT_MS, per network', labels: { network: c.network }, value: c.count, type: 'counter' }
        : { name: 'satchel_chain_alarms_total', help: 'Chain alarms (foreign_spend: a coin spent by a transaction the gateway did not sign; node_mismatch: a node built a transaction other than asked)', labels: { network: c.network, kind: c.kind }, value: c.count, type: 'counter' },
    ),
  );
  // Each watch-only network's payout float: its balance as last read from the node (never waited
  // for here) and what it sent today, per currency (src/outgoing/float.ts).
  metrics.collect(async () =>
    (await floatLines(ctx)).flatMap((f): Sample[] => [
      ...(f.balance === null ? [] : [{ name: 'satchel_payout_float_balance', help: 'The payout float\'s balance as last read from the node, per network and currency', labels: { network: f.network, currency: f.currency }, value: Number(f.balance) }]),
      { name: 'satchel_payout_float_spent_today', help: 'What the payout float sent or has accepted to send this UTC day (payments not failed), per network and currency', labels: { network: f.network, currency: f.currency }, value: Number(f.spent_today) },
    ]),
  );
  app.get('/metrics', async (_req, reply) => reply.type('text/plain; version=0.0.4').send(await metrics.render()));

  await app.register(signedApi, { ctx, groups: [invoiceRoutes, webhookRoutes, walletRoutes, payoutRoutes, transferRoutes, accountRoutes, recurrenceRoutes] });
  // The simulator only exists in test mode: it makes money out of nothing.
  if (ctx.chains.simulator) {
    await simulatorRoutes(app, ctx);
    await moneyOutSimulatorRoutes(app, ctx);
  }
  await exchangeRateRoutes(app, ctx);
  await openApiRoutes(app);
  const payerLimit = await payerRoutes(app, ctx);
  await pageRoutes(app, ctx, opts.distDir, payerLimit);
  await logoRoutes(app, ctx);
  await demoRoutes(app, ctx);
  await dashboardRoutes(app, ctx);
  for (const p of opts.plugins ?? []) await p(app, ctx);
  return app;
}
