// Starts the gateway: storage, HTTP server and (by role) the workers.
import type { FastifyInstance } from 'fastify';
import { refuseSimulatedMoneyBesideRealNetworks } from './chain/simulated/leftovers.ts';
import type { Config } from './config.ts';
import type { Ctx } from './context.ts';
import { createContext } from './compose.ts';
import { buildApp } from './http/app.ts';
import { createMerchant, listMerchants, type Merchant } from './merchants/store.ts';
import { signBody } from './http/signature.ts';
import { acquireWorkerLock, runWorkers } from './worker/index.ts';
import { stopRefills } from './chain/allocate.ts';

export interface Gateway {
  ctx: Ctx;
  app: FastifyInstance;
  url: string;
  demo: Merchant | null;
  close(): Promise<void>;
}

export async function startGateway(config: Config, opts: { logger?: boolean; createDemo?: boolean; workerIntervalMs?: number } = {}): Promise<Gateway> {
  const ctx = await createContext(config);
  try {
    await refuseSimulatedMoneyBesideRealNetworks(config, ctx.storage);
  } catch (e) {
    await ctx.storage.close();
    throw e;
  }
  let demo: Merchant | null = null;
  if (opts.createDemo !== false && (await listMerchants(ctx.storage.db)).length === 0) {
    demo = await createMerchant(ctx.storage.db, 'Demo shop');
  }
  const app = await buildApp(ctx, { logger: opts.logger });
  // The drivers' lines (reorganisations, alarms) go where the server's own go.
  ctx.chains.useLog(app.log);
  // A worker-only process serves no HTTP (it would take the API's port); `url` is then empty.
  const url = config.role === 'worker' ? '' : await app.listen({ host: config.host, port: config.port });
  let workers: { stop(): Promise<void> } | null = null;
  let unlock: (() => void) | null = null;
  if (config.role !== 'api') {
    unlock = ctx.storage.kind === 'sqlite' ? acquireWorkerLock(config.dataDir) : () => {};
    if (unlock) workers = runWorkers(ctx, { intervalMs: opts.workerIntervalMs ?? config.workerIntervalMs, log: app.log });
    else app.log.warn('another process runs the workers on this SQLite database; this one serves HTTP only');
  }
  return {
    ctx,
    app,
    url,
    demo,
    async close() {
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

export function demoBanner(config: Config, m: Merchant): string {
  const body = JSON.stringify({ amount: '15', currency: 'USD', order_id: 'demo-1' });
  const sign = signBody(body, m.payment_key);
  return [
    'Satchel created a demo merchant (shown once; keep the keys):',
    `  merchant id:  ${m.id}`,
    `  payment key:  ${m.payment_key}`,
    `  payout key:   ${m.payout_key}`,
    'Create an invoice:',
    `  curl -s ${config.publicUrl}/v1/payment -H 'Content-Type: application/json' \\`,
    `    -H 'merchant: ${m.id}' -H 'sign: ${sign}' \\`,
    `    -d '${body}'`,
  ].join('\n');
}
