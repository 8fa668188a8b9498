// One driver per network: `simulated` unless the configuration names another.
import type { Ctx } from '../context.ts';
import type { ChainDriver, ChainSink } from './driver.ts';
import { createSink } from './ingest.ts';
import { SimulatedDriver } from './simulated/driver.ts';
import { evmDriverFactory } from './evm/index.ts';
import { bitcoinDriverFactory } from './bitcoin/index.ts';
import { tronDriverFactory } from './tron/index.ts';

export type DriverFactory = (ctx: Ctx, network: string) => ChainDriver;

/** Real drivers register here by kind (the EVM driver registers `evm`). */
export const driverFactories: Record<string, DriverFactory> = { evm: evmDriverFactory, 'bitcoin-core': bitcoinDriverFactory, tron: tronDriverFactory };

const cache = new WeakMap<Ctx, Map<string, ChainDriver>>();

export function driverFor(ctx: Ctx, networkCode: string): ChainDriver {
  let map = cache.get(ctx);
  if (!map) cache.set(ctx, (map = new Map()));
  const code = networkCode.toUpperCase();
  let d = map.get(code);
  if (!d) {
    const network = ctx.registry.network(code);
    if (!network) throw new Error(`Unknown network ${code}`);
    const kind = ctx.config.networks[code]?.driver ?? 'simulated';
    if (kind === 'simulated') d = new SimulatedDriver(network, ctx.storage, ctx.now);
    else {
      const factory = driverFactories[kind];
      if (!factory) throw new Error(`Network ${code}: unknown driver "${kind}"`);
      d = factory(ctx, code);
    }
    map.set(code, d);
  }
  return d;
}

export function allDrivers(ctx: Ctx): ChainDriver[] {
  return ctx.registry.networks.map((n) => driverFor(ctx, n.code));
}

/** How long a caller that must see its own change (the simulator) waits for another scanner. */
const INLINE_SCAN_WAIT_MS = 15_000;

/**
 * One scanner per network, for every driver and every process: a poll runs only while holding the
 * lock `scan:<NETWORK>` (PostgreSQL advisory lock; see Storage.withLock). A worker's round skips
 * a network another process is scanning (`wait` 0); the simulator, which needs the change it just
 * made to be recorded before it answers, waits its turn and then scans itself (what the other
 * scanner read before that change committed cannot include it). Returns false when skipped.
 */
export async function scanNetwork(ctx: Ctx, driver: ChainDriver, sink: ChainSink, opts: { wait: boolean }): Promise<boolean> {
  const code = driver.network.code;
  const done = await ctx.storage.withLock(`scan:${code}`, opts.wait ? INLINE_SCAN_WAIT_MS : 0, async () => {
    const started = ctx.now();
    await driver.poll(sink);
    await noteScanned(ctx, code, started);
  });
  return done !== null;
}

/** Records the start of the last completed scan (the scan lag in /metrics), at most once a second
 * per network and process: a worker scans several times a second. */
async function noteScanned(ctx: Ctx, network: string, startedAt: number): Promise<void> {
  let noted = lastNoted.get(ctx);
  if (!noted) lastNoted.set(ctx, (noted = new Map()));
  if (startedAt - (noted.get(network) ?? 0) < 1000) return;
  noted.set(network, startedAt);
  await ctx.storage.db
    .insertInto('chain_scans')
    .values({ network, scanned_at: startedAt })
    .onConflict((oc) => oc.column('network').doUpdateSet({ scanned_at: startedAt }))
    .execute();
}
const lastNoted = new WeakMap<Ctx, Map<string, number>>();

/** Ingests whatever is new on one network's chain, waiting for another scanner to finish first. */
export async function processNetwork(ctx: Ctx, networkCode: string): Promise<void> {
  const scanned = await scanNetwork(ctx, driverFor(ctx, networkCode), createSink(ctx), { wait: true });
  if (!scanned) throw new ScanBusyError(networkCode);
}

/** Another process kept the network's scanner lock longer than a caller could wait. */
export class ScanBusyError extends Error {
  constructor(network: string) {
    super(`${network}: another process is scanning this network`);
    this.name = 'ScanBusyError';
  }
}

export async function closeDrivers(ctx: Ctx): Promise<void> {
  const map = cache.get(ctx);
  if (!map) return;
  for (const d of map.values()) await d.close();
  map.clear();
}
