// What a request handler or a worker is given: the configuration and the services built from it
// once (by src/compose.ts). Types only, so that every layer may name it without importing a feature.
import type { Config } from './config.ts';
import type { Storage } from './db/dialect.ts';
import type { Registry } from './registry/index.ts';
import type { MerchantCache } from './merchants/store.ts';
import type { Chains } from './chain/networks.ts';

export interface Rates {
  /** Price of one `base` in `quote`, and the source that priced it. */
  quote(base: string, quote: string, source?: string | null): Promise<{ rate: string; source: string }>;
}

export interface Ctx {
  config: Config;
  storage: Storage;
  registry: Registry;
  rates: Rates;
  merchants: MerchantCache;
  /** The networks' drivers, test mode and confirmations. */
  chains: Chains;
  /** Milliseconds since the epoch; tests move it. */
  now: () => number;
  seed: () => Uint8Array;
}
