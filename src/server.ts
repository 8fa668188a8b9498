// Starts the gateway: storage, HTTP server and (by role) the workers.
import type { FastifyInstance } from 'fastify';
import { refuseSimulatedMoneyBesideRealNetworks } from './chain/simulated/leftovers.ts';
import type { Config } from './config.ts';
import type { Ctx } from './context.ts';
import { createContext } from './compose.ts';
import { buildApp, type AppOptions } from './http/app.ts';
import { createMerchant, listMerchants, type Merchant } from './merchants/store.ts';
import { acquireWorkerLock, runWorkers } from './worker/index.ts';
import { stopRefills } from './chain/allocate.ts';
import { oneWorkerProcess } from './db/differences.ts';
import { DatabaseUnavailableError } from './errors.ts';
import type { ChainLog } from './chain/contract.ts';
import type { NetworkReport } from './contracts/network-report.ts';

export interface Gateway {
  ctx: Ctx;
  app: FastifyInstance;
  url: string;
  demo: Merchant | null;
  /** Each network as the start found it (main.ts prints it as a table; /readyz shows it as it is now). */
  networks: NetworkReport[];
  close(): Promise<void>;
}

export async function startGateway(
  config: Config,
  opts: { logger?: boolean; createDemo?: boolean; workerIntervalMs?: number; logStream?: AppOptions['logStream'] } = {},
): Promise<Gateway> {
  const ctx = await createContext(config);
  try {
    await refuseSimulatedMoneyBesideRealNetworks(config, ctx.storage);
  } catch (e) {
    await ctx.storage.close();
    throw e;
  }
  let demo: Merchant | null = null;
  let app: Awaited<ReturnType<typeof buildApp>> | null = null;
  let networks: NetworkReport[];
  try {
    if (opts.createDemo !== false && (await listMerchants(ctx.storage.db)).length === 0) {
      demo = await createMerchant(ctx.storage.db, 'Demo shop');
    }
    app = await buildApp(ctx, { logger: opts.logger, logStream: opts.logStream });
    // The drivers' lines (reorganisations, alarms) go where the server's own go.
    ctx.chains.useLog(app.log);
    // Before the first request: a real network whose node does not answer now is not offered
    // until it does, and the timer below is what notices that it does (in every role: an API
    // process decides what it offers too).
    networks = await ctx.chains.checkNodes(chainLogOf(app));
    // Hot custody on a real network: whoever copies the seed owns what is received there.
    const hot = ctx.chains.hotRealNetworks();
    if (hot.length) {
      app.log.warn(
        { networks: hot },
        `hot custody on ${hot.join(', ')}: deposit addresses derive from the gateway's own seed, so whoever copies it can spend what they receive; "custody": "watch-only" receives into each merchant's own wallet (docs/custody.md)`,
      );
    }
  } catch (e) {
    // Nothing is listening yet: let go of the database, so a start tried again holds one pool.
    await app?.close().catch(() => {});
    await ctx.storage.close().catch(() => {});
    throw e;
  }
  const chainLog = chainLogOf(app);
  const nodeChecks = setInterval(() => void ctx.chains.checkNodes(chainLog).catch(() => {}), config.nodeCheckIntervalMs);
  nodeChecks.unref();
  // A worker-only process serves no HTTP (it would take the API's port); `url` is then empty.
  const url = config.role === 'worker' ? '' : await app.listen({ host: config.host, port: config.port });
  let workers: { stop(): Promise<void> } | null = null;
  let unlock: (() => void) | null = null;
  if (config.role !== 'api') {
    unlock = oneWorkerProcess(ctx.storage) ? acquireWorkerLock(config.dataDir) : () => {};
    if (unlock) workers = runWorkers(ctx, { intervalMs: opts.workerIntervalMs ?? config.workerIntervalMs, log: app.log });
    else app.log.warn('another process runs the workers on this SQLite database; this one serves HTTP only');
  }
  return {
    ctx,
    app,
    url,
    demo,
    networks,
    async close() {
      clearInterval(nodeChecks);
      // Both at once: HTTP stops accepting (new requests get 503) and waits for those in flight,
      // while the workers start nothing new, hand back what they claimed and finish what is under
      // way. The pool closes last; closing it ends the lock session, so the scanner locks go too.
      await Promise.all([app.close(), workers?.stop()]);
      // Address-pool refills that requests started in the background end with the chunk they store.
      await stopRefills(ctx.storage);
      unlock?.();
      await ctx.storage.close();
    },
  };
}

function chainLogOf(app: FastifyInstance): ChainLog {
  return (level, msg, data) => app.log[level](data ?? {}, msg);
}

/**
 * Starts the gateway, waiting for the database when it does not answer yet (a database that
 * restarts at the same moment as the gateway, or comes up after it): every `retryMs` until
 * `waitMs` has passed, saying so once per attempt. Any other failure ends the start at once.
 */
export async function startGatewayWhenDatabaseAnswers(
  config: Config,
  opts: { waitMs: number; retryMs?: number; say?: (line: string) => void; start?: (config: Config) => Promise<Gateway> },
): Promise<Gateway> {
  const start = opts.start ?? startGateway;
  const deadline = Date.now() + (Number.isFinite(opts.waitMs) && opts.waitMs > 0 ? opts.waitMs : 0);
  for (;;) {
    try {
      return await start(config);
    } catch (e) {
      if (!(e instanceof DatabaseUnavailableError) || Date.now() >= deadline) throw e;
      opts.say?.(`satchel: the database does not answer yet (${String((e.cause as Error | undefined)?.message ?? e.message)}); trying again`);
      await new Promise((r) => setTimeout(r, opts.retryMs ?? 1000));
    }
  }
}

// The banner lives with the demo (src/demo/banner.ts), where `satchel merchant show` reprints it.
export { demoBanner } from './demo/banner.ts';
