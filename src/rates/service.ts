// Picks the rate source a request names, caches its answers, and falls back to the static
// table so that an exchange outage degrades prices instead of failing invoices.
import { StaticRateSource } from './static.ts';
import { RateUnavailableError, type RateSource } from './types.ts';
import { BinanceRateSource } from './sources/binance.ts';
import { BinanceP2PRateSource } from './sources/binance-p2p.ts';
import { KucoinRateSource } from './sources/kucoin.ts';
import { ExmoRateSource } from './sources/exmo.ts';
import { courseSourceName } from '../contracts/rules.ts';

export const STATIC_SOURCE = 'static';
const DEFAULT_TTL_MS = 60_000;
// A failing exchange is retried after this long, not on every request (each try costs a timeout).
const DEFAULT_RETRY_MS = 5_000;
// Keys come from merchant input; expired entries are swept once the map grows past this.
const SWEEP_AT = 10_000;

/** Maps a `course_source` value (any case, e.g. "BinanceP2p") to a source name; null if not accepted. */
export function normalizeSourceName(s: string): string | null {
  return courseSourceName(s.trim());
}

export interface RateServiceOptions {
  sources: RateSource[];
  /** Name of the source used when a request names none. */
  default: string;
  ttlMs?: number;
  /** How long a failed upstream call is remembered before the source is tried again. */
  retryMs?: number;
  now?: () => number;
}

export interface Quote {
  rate: string;
  /** Source that actually produced the rate ("static" after a fallback). */
  source: string;
}

interface Entry {
  value: Promise<string | null>;
  expires: number;
}

export class RateService {
  private readonly sources = new Map<string, RateSource>();
  private readonly defaultName: string;
  private readonly ttlMs: number;
  private readonly retryMs: number;
  private readonly now: () => number;
  // One map does both jobs: an entry holds the in-flight promise (so concurrent identical
  // requests share one upstream call) and keeps it, settled, until it expires.
  private readonly cache = new Map<string, Entry>();

  constructor(opts: RateServiceOptions) {
    for (const s of opts.sources) this.sources.set(s.name, s);
    if (!this.sources.has(opts.default)) throw new RangeError(`Unknown default rate source ${opts.default}`);
    this.defaultName = opts.default;
    this.ttlMs = opts.ttlMs ?? DEFAULT_TTL_MS;
    this.retryMs = Math.min(opts.retryMs ?? DEFAULT_RETRY_MS, this.ttlMs);
    this.now = opts.now ?? Date.now;
  }

  async rate(base: string, quote: string, sourceName?: string): Promise<string> {
    return (await this.quote(base, quote, sourceName)).rate;
  }

  /**
   * Rate from the named source (default if none). When that source fails or cannot price the
   * pair, or is a valid API source that is not enabled (offline start), the static table answers.
   */
  async quote(base: string, quote: string, sourceName?: string): Promise<Quote> {
    const b = base.trim().toUpperCase();
    const q = quote.trim().toUpperCase();
    const name = this.resolveName(sourceName);
    const source = this.sources.get(name);
    let failure: unknown;
    if (source) {
      try {
        const rate = await this.cached(source, b, q);
        if (rate !== null) return { rate, source: name };
      } catch (e) {
        failure = e;
      }
    }
    const fallback = this.sources.get(STATIC_SOURCE);
    if (fallback && fallback !== source) {
      const rate = await this.cached(fallback, b, q).catch(() => null);
      if (rate !== null) return { rate, source: STATIC_SOURCE };
    }
    if (failure instanceof RateUnavailableError) throw failure;
    const err = new RateUnavailableError(b, q, name);
    if (failure !== undefined) err.cause = failure;
    throw err;
  }

  /** GET /v1/exchange-rate/{currency}/list: one {from, to, course} per target that can be priced. */
  async list(currency: string, targets: string[], sourceName?: string): Promise<Array<{ from: string; to: string; course: string }>> {
    const from = currency.trim().toUpperCase();
    const rows = await Promise.all(
      targets.map(async (t) => {
        const to = t.trim().toUpperCase();
        try {
          return { from, to, course: await this.rate(from, to, sourceName) };
        } catch (e) {
          // A pair nobody prices is left out rather than failing the whole list.
          if (e instanceof RateUnavailableError) return null;
          throw e;
        }
      }),
    );
    return rows.filter((r) => r !== null);
  }

  private resolveName(sourceName: string | undefined): string {
    if (sourceName === undefined) return this.defaultName;
    if (this.sources.has(sourceName)) return sourceName;
    const name = normalizeSourceName(sourceName);
    // The API layer validates with normalizeSourceName; reaching here with junk is a caller bug.
    if (!name) throw new RangeError(`Unknown rate source ${JSON.stringify(sourceName)}`);
    return name;
  }

  private cached(source: RateSource, base: string, quote: string): Promise<string | null> {
    const key = `${source.name}\0${base}\0${quote}`;
    const hit = this.cache.get(key);
    const now = this.now();
    if (hit && hit.expires > now) return hit.value;
    if (this.cache.size >= SWEEP_AT) for (const [k, e] of this.cache) if (e.expires <= now) this.cache.delete(k);
    // Wrapped so a source that throws synchronously still yields a promise.
    const entry: Entry = { value: Promise.resolve().then(() => source.getRate(base, quote)), expires: Infinity };
    this.cache.set(key, entry);
    entry.value.then(
      () => (entry.expires = this.now() + this.ttlMs),
      () => (entry.expires = this.now() + this.retryMs),
    );
    return entry.value;
  }
}

export interface CreateRateServiceOptions {
  ratesFile: string;
  binanceUrl?: string;
  binanceP2PUrl?: string;
  kucoinUrl?: string;
  exmoUrl?: string;
  /** Off by default: the gateway must start and price invoices with no network. */
  enableHttp?: boolean;
  ttlMs?: number;
  timeoutMs?: number;
}

/** Static table (the default) plus, when enabled, the exchange sources. */
export function createRateService(opts: CreateRateServiceOptions): RateService {
  const sources: RateSource[] = [StaticRateSource.fromFile(opts.ratesFile)];
  if (opts.enableHttp) {
    const timeoutMs = opts.timeoutMs;
    const binance = new BinanceRateSource({ baseUrl: opts.binanceUrl, timeoutMs });
    sources.push(
      binance,
      new BinanceP2PRateSource({ baseUrl: opts.binanceP2PUrl, timeoutMs, spot: binance }),
      new KucoinRateSource({ baseUrl: opts.kucoinUrl, timeoutMs }),
      new ExmoRateSource({ baseUrl: opts.exmoUrl, timeoutMs }),
    );
  }
  return new RateService({ sources, default: STATIC_SOURCE, ttlMs: opts.ttlMs });
}
