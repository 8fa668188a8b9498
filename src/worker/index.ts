// Background work (D8): follow the chains, expire invoices, deliver webhooks, send payouts.
// With SQLite one process runs it (a lock file); with PostgreSQL any number may, since every job
// is claimed with FOR UPDATE SKIP LOCKED and a network is scanned only under its advisory lock.
import { closeSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Ctx, Job } from '../context.ts';
import { createSink } from '../chain/ingest.ts';
import { refillAddressPools } from '../chain/allocate.ts';
import { WebhookDeliverer } from '../webhooks/deliver.ts';

export interface Workers {
  /** Runs every job once (tests and the CLI use this). */
  tick(): Promise<void>;
  /** Shutting down: jobs start nothing new and release what they claimed but did not begin. */
  abort(): void;
  stop(): Promise<void>;
}

export function createWorkers(ctx: Ctx, log: { error(o: unknown, msg?: string): void } = console): Workers {
  const deliverer = new WebhookDeliverer(ctx, { timeoutMs: ctx.config.webhookTimeoutMs });
  const sink = createSink(ctx, log);
  const shutdown = new AbortController();
  let refilling: Promise<unknown> | null = null;
  const jobs: Array<[string, Job]> = [
    ['chains', async (_c, signal) => {
      // Networks in parallel: a slow or unreachable node must not hold up the others.
      await Promise.all(
        ctx.chains.all().filter(() => !signal.aborted).map((d) =>
          ctx.chains.poll(d.network.code, sink, { wait: false }).catch((err: unknown) => log.error({ err, network: d.network.code }, 'chain poll failed')),
        ),
      );
    }],
    ['expiry', ctx.features.jobs.expiry],
    // Deposit addresses derived ahead (with their QR codes), so that requests do not derive them.
    // In the background: a round (and its webhooks) does not wait for the derivations.
    ['addresses', async (c, signal) => {
      refilling ??= refillAddressPools(c, signal)
        .catch((err: unknown) => log.error({ err, job: 'addresses' }, 'worker job failed'))
        .finally(() => (refilling = null));
    }],
    ['webhooks', (_c, signal) => deliverer.runOnce(50, signal)],
    ['payouts', ctx.features.jobs.payouts],
  ];
  return {
    async tick() {
      // Jobs are independent; run side by side so that one slow job (a node timing out, a webhook
      // receiver that hangs) does not delay expiry or the others.
      // Webhooks go last, so that what this round changed is announced in the same round.
      if (shutdown.signal.aborted) return;
      const run = ([name, job]: [string, Job]) => job(ctx, shutdown.signal).catch((err: unknown) => log.error({ err, job: name }, 'worker job failed'));
      await Promise.all(jobs.filter(([name]) => name !== 'webhooks').map(run));
      await Promise.all(jobs.filter(([name]) => name === 'webhooks').map(run));
    },
    abort() {
      shutdown.abort();
    },
    async stop() {
      shutdown.abort();
      // The pool refill runs beside the rounds: it ends with the chunk it stores, before storage closes.
      await refilling;
      await ctx.chains.close();
    },
  };
}

/** Runs the workers every `intervalMs` until stopped. */
export function runWorkers(ctx: Ctx, opts: { intervalMs?: number; log?: { error(o: unknown, msg?: string): void } } = {}): { stop(): Promise<void> } {
  const workers = createWorkers(ctx, opts.log);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const loop = () => {
    if (stopped) return;
    running = workers.tick().finally(() => {
      if (!stopped) timer = setTimeout(loop, opts.intervalMs ?? 500);
    });
  };
  loop();
  return {
    async stop() {
      stopped = true;
      workers.abort();
      if (timer) clearTimeout(timer);
      await running;
      await workers.stop();
    },
  };
}

/** With SQLite only one process may run the workers; a lock file in the data folder says which. */
export function acquireWorkerLock(dataDir: string): (() => void) | null {
  const path = join(dataDir, 'worker.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch {
      const pid = Number(readFileSync(path, 'utf8').trim());
      if (pid && pid !== process.pid && alive(pid)) return null;
      rmSync(path, { force: true }); // stale: its process is gone
    }
  }
  return null;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
