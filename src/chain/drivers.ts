// One driver per network: `simulated` unless the configuration names another.
import type { Ctx } from '../context.ts';
import type { ChainDriver } from './driver.ts';
import { createSink } from './ingest.ts';
import { SimulatedDriver } from './simulated/driver.ts';
import { evmDriverFactory } from './evm/index.ts';
import { tronDriverFactory } from './tron/index.ts';

export type DriverFactory = (ctx: Ctx, network: string) => ChainDriver;

/** Real drivers register here by kind (the EVM driver registers `evm`). */
export const driverFactories: Record<string, DriverFactory> = { evm: evmDriverFactory, tron: tronDriverFactory };

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

/** Ingests whatever is new on one network's chain. */
export async function processNetwork(ctx: Ctx, networkCode: string): Promise<void> {
  await driverFor(ctx, networkCode).poll(createSink(ctx));
}

export async function closeDrivers(ctx: Ctx): Promise<void> {
  const map = cache.get(ctx);
  if (!map) return;
  for (const d of map.values()) await d.close();
  map.clear();
}
