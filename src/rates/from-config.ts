// Which rate sources run, from the operator's `rates` settings (src/config.ts decides what is
// enabled and refuses bad settings; this builds the sources and the engine from that).
import type { RatesConfig } from '../config.ts';
import { RateService } from './service.ts';
import { StaticRateSource } from './static.ts';
import type { RateSource } from './types.ts';
import { BinanceRateSource } from './sources/binance.ts';
import { BinanceP2PRateSource } from './sources/binance-p2p.ts';
import { KucoinRateSource } from './sources/kucoin.ts';
import { ExmoRateSource } from './sources/exmo.ts';

export interface RateServiceSetup {
  /** The static table used when `rates.sources.static.file` and SATCHEL_RATES_FILE name none. */
  defaultFile: string;
  /** One HTTP call's time limit. */
  timeoutMs?: number;
  retryMs?: number;
  now?: () => number;
}

export function createRateService(config: RatesConfig, setup: RateServiceSetup): RateService {
  const { timeoutMs } = setup;
  const sources: RateSource[] = [];
  if (config.static.enabled) sources.push(StaticRateSource.fromFile(config.static.file ?? setup.defaultFile));
  const { binance, binance_p2p, kucoin, exmo } = config.http;
  const spot = binance ? new BinanceRateSource({ baseUrl: binance.url, timeoutMs }) : undefined;
  if (spot) sources.push(spot);
  // P2P prices fiat against USDT only; its crypto legs are Binance spot's, and only when binance
  // is enabled too, so that no host the operator did not list is ever called.
  if (binance_p2p) sources.push(new BinanceP2PRateSource({ baseUrl: binance_p2p.url, timeoutMs, spot }));
  if (kucoin) sources.push(new KucoinRateSource({ baseUrl: kucoin.url, timeoutMs }));
  if (exmo) sources.push(new ExmoRateSource({ baseUrl: exmo.url, timeoutMs }));
  return new RateService({
    sources,
    maxAgeMs: config.maxAgeSeconds * 1000,
    maxDeviationPercent: config.maxDeviationPercent,
    minSources: config.minSources,
    retryMs: setup.retryMs,
    now: setup.now,
  });
}
