// Background work (docs/architecture.md): follow the chains, expire invoices, deliver webhooks,
// send payouts. With SQLite one process runs it (a lock file); with PostgreSQL any number may,
// since every job is claimed with FOR UPDATE SKIP LOCKED and a network is scanned only under its
// advisory lock. Every network and every job runs on its own schedule (./schedule.ts), so a node
// that hangs or a slow job holds up only itself: never another network, the webhooks, expiry or
// payouts.
import { closeSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setMaxListeners } from 'node:events';
import type { Ctx, Job } from '../context.ts';
import { createSink } from '../chain/ingest.ts';
import { refillAddressPools, refillMaterialPools } from '../chain/allocate.ts';
import { countIncident } from '../chain/incidents.ts';
import { WebhookDeliverer } from '../webhooks/deliver.ts';
import { Loop, type RoundLateError } from './schedule.ts';

/** What the workers log through (the server's logger; tests pass a collector). */
export interface WorkerLog {
  error(o: unknown, msg?: string): void;
  warn?(o: unknown, msg?: string): void;
}

export interface Workers {
  /** Runs every job once, and polls every network once (tests and the CLI use this). */
  tick(): Promise<void>;
  /** Runs every network and job on its own schedule, each round `intervalMs` after its last ended. */
  start(intervalMs: number): void;
  /** Shutting down: jobs start nothing new and release what they claimed but did not begin. */
  abort(): void;
  /** Stops, waiting for what is under way. */
  stop(): Promise<void>;
}

export function createWorkers(ctx: Ctx, log: WorkerLog = console): Workers {
  const deliverer = new WebhookDeliverer(ctx, { timeoutMs: ctx.config.webhookTimeoutMs, perTarget: ctx.config.webhookTargetLimit, log });
  const sink = createSink(ctx, log);
  const shutdown = new AbortController();
  // Every network's round under way listens for it.
  setMaxListeners(0, shutdown.signal);
  let refilling: Promise<unknown> | null = null;
  const jobs: Array<[string, Job]> = [
    ['expiry', ctx.features.jobs.expiry],
    // Deposit addresses derived ahead (with their QR codes), so that requests do not derive them.
    // In the background: a round (and its webhooks) does not wait for the derivations.
    ['addresses', async (c, signal) => {
      refilling ??= Promise.all([refillAddressPools(c, signal), refillMaterialPools(c, signal)])
        .catch((err: unknown) => log.error({ err, job: 'addresses' }, 'worker job failed'))
        .finally(() => (refilling = null));
    }],
    ['payouts', ctx.features.jobs.payouts],
    // Recurring payments: paid periods, renewals due, grace periods over (src/recurrences/).
    ['recurrences', ctx.features.jobs.recurrences],
  ];
  const jobLoops = jobs.map(
    ([name, job]) => new Loop(name, (signal) => job(ctx, signal), { shutdown: shutdown.signal, onError: (err) => log.error({ err, job: name }, 'worker job failed') }),
  );
  const late = (network: string) => (err: RoundLateError) => {
    (log.warn ?? log.error).call(log, { network, timeoutMs: err.deadlineMs }, 'chain poll ran past its deadline; the network waits for it before polling again');
    void countIncident(ctx.storage.db, network, 'poll_timeout', ctx.now()).catch((e: unknown) => log.error({ err: e, network }, 'poll timeout could not be counted'));
  };
  // One loop per network, made when first needed: a network's round never waits for another's.
  const networkLoops = new Map<string, Loop>();
  const networks = (): Loop[] =>
    ctx.registry.networks.map(({ code }) => {
      let l = networkLoops.get(code);
      if (!l) {
        l = new Loop(code, (signal) => ctx.chains.poll(code, sink, { wait: false, signal }), {
          shutdown: shutdown.signal,
          deadlineMs: ctx.config.chainPollTimeoutMs,
          onLate: late(code),
          onError: (err) => log.error({ err, network: code }, 'chain poll failed'),
        });
        networkLoops.set(code, l);
      }
      return l;
    });
  let delivering: Promise<void> | null = null;
  return {
    async tick() {
      // Side by side; a network whose poll runs past its deadline is waited for no longer (it goes
      // on, and its next round waits for it). Webhooks go last, so that what this round changed is
      // announced in the same round.
      if (shutdown.signal.aborted) return;
      await Promise.all([...networks(), ...jobLoops].map((l) => l.round()));
      await deliverer.runOnce(50, shutdown.signal).catch((err: unknown) => log.error({ err, job: 'webhooks' }, 'worker job failed'));
    },
    start(intervalMs) {
      for (const l of [...networks(), ...jobLoops]) l.start(intervalMs);
      // Webhooks have lanes that take new work as they free up, rather than rounds.
      delivering ??= deliverer.run(shutdown.signal, {
        idleMs: intervalMs,
        onError: (err) => log.error({ err, job: 'webhooks' }, 'worker job failed'),
      });
    },
    abort() {
      shutdown.abort();
    },
    async stop() {
      shutdown.abort();
      await Promise.all([...networkLoops.values(), ...jobLoops].map((l) => l.stop()));
      await delivering;
      // The pool refill runs beside the rounds: it ends with the chunk it stores, before storage closes.
      await refilling;
      await ctx.chains.close();
    },
  };
}

/** Runs the workers, each network and job every `intervalMs` after its last round, until stopped. */
export function runWorkers(ctx: Ctx, opts: { intervalMs?: number; log?: WorkerLog } = {}): { stop(): Promise<void> } {
  const workers = createWorkers(ctx, opts.log);
  workers.start(opts.intervalMs ?? 500);
  return { stop: () => workers.stop() };
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
