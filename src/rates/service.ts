// The rate engine: a price is the median of the enabled sources' fresh quotes, outliers dropped,
// and no price at all when too few fresh sources agree. A live gateway that priced from an old
// table, or from one exchange's stale or broken feed, would lose part of every sale without an
// error; refusing the invoice (`Error convert to_currency`) is the safe failure.
import { Decimal } from '../money/decimal.ts';
import { courseSourceName } from '../contracts/rules.ts';
import { median } from './median.ts';
import { RateUnavailableError, type RateSource } from './types.ts';

export const STATIC_SOURCE = 'static';
/** What `Quote.source` says when several sources' median priced it (the quotes name them). */
export const MEDIAN_SOURCE = 'median';
const DEFAULT_MAX_AGE_MS = 60_000;
// A failing exchange is retried after this long, not on every request (each try costs a timeout).
const DEFAULT_RETRY_MS = 5_000;
// Keys come from merchant input; expired entries are swept once the map grows past this.
const SWEEP_AT = 10_000;

/** Maps a `course_source` value (any case, e.g. "BinanceP2p") to a source name; null if not accepted. */
export function normalizeSourceName(s: string): string | null {
  return courseSourceName(s.trim());
}

/** One source's answer as a price was made from it (stored with the invoice it priced). */
export interface SourceQuote {
  source: string;
  price: string;
  /** When the gateway received it (ms since the epoch, the gateway's clock). */
  received_at: number;
  /** False: dropped, too far from the median of the fresh quotes. */
  used: boolean;
}

export interface Quote {
  rate: string;
  /** The one source that priced it, or "median" when several did. */
  source: string;
  /** Every fresh quote considered, the dropped ones included. */
  quotes: SourceQuote[];
}

/** What /metrics says of each enabled source. */
export interface SourceStat {
  source: string;
  /** When its last answer (any pair) arrived; null before the first. */
  received_at: number | null;
  /** Failed calls since start (timeouts, HTTP errors, malformed answers). */
  errors: number;
  /** Signed distance of its last median-priced quote from that median, in percent; null before one. */
  deviation_percent: string | null;
}

export interface RateServiceOptions {
  /** The enabled sources; nothing else ever prices. */
  sources: RateSource[];
  maxAgeMs?: number;
  /** Decimal string; default "2". */
  maxDeviationPercent?: string;
  minSources?: number;
  /** How long a failed source is left alone before it is called again. */
  retryMs?: number;
  now?: () => number;
}

interface Answer {
  price: string;
  receivedAt: number;
}

interface Entry {
  value: Promise<Answer | null>;
  /** null while the call is in flight. */
  settledAt: number | null;
  failed: boolean;
}

interface Stat {
  receivedAt: number | null;
  errors: number;
  deviation: string | null;
  /** A failed source is not called before this. */
  pausedUntil: number;
}

export class RateService {
  private readonly sources = new Map<string, RateSource>();
  private readonly stats = new Map<string, Stat>();
  private readonly maxAgeMs: number;
  private readonly band: Decimal;
  private readonly minSources: number;
  private readonly retryMs: number;
  private readonly now: () => number;
  // One map does both jobs: an entry holds the in-flight promise (so concurrent identical
  // requests share one upstream call) and keeps it, settled, while its answer is fresh.
  private readonly cache = new Map<string, Entry>();

  constructor(opts: RateServiceOptions) {
    for (const s of opts.sources) {
      this.sources.set(s.name, s);
      this.stats.set(s.name, { receivedAt: null, errors: 0, deviation: null, pausedUntil: 0 });
    }
    this.maxAgeMs = opts.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
    this.band = Decimal.parse(opts.maxDeviationPercent ?? '2');
    this.minSources = opts.minSources ?? 1;
    if (this.sources.size === 0) throw new RangeError('No rate source enabled');
    if (this.minSources > this.sources.size) throw new RangeError(`min_sources ${this.minSources} exceeds the ${this.sources.size} enabled sources`);
    this.retryMs = Math.min(opts.retryMs ?? DEFAULT_RETRY_MS, this.maxAgeMs);
    this.now = opts.now ?? Date.now;
  }

  async rate(base: string, quote: string, sourceName?: string | null): Promise<string> {
    return (await this.quote(base, quote, sourceName)).rate;
  }

  /**
   * The price of one `base` in `quote`. A `sourceName` that is enabled prices alone (the merchant's
   * `course_source`), under the same freshness rule; one that is not enabled is priced like no
   * name, by the enabled sources. Throws RateUnavailableError when nothing fresh enough answers.
   */
  async quote(base: string, quote: string, sourceName?: string | null): Promise<Quote> {
    const b = base.trim().toUpperCase();
    const q = quote.trim().toUpperCase();
    const named = sourceName === undefined || sourceName === null ? null : this.resolveName(sourceName);
    const one = named === null ? undefined : this.sources.get(named);
    if (one) {
      const a = await this.fresh(one, b, q);
      if (!a) throw new RateUnavailableError(b, q, one.name, 'no fresh quote');
      return { rate: a.price, source: one.name, quotes: [{ source: one.name, price: a.price, received_at: a.receivedAt, used: true }] };
    }
    return this.median(b, q);
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

  /** Each enabled source's last answer, errors and deviation, for /metrics. */
  sourceStats(): SourceStat[] {
    return [...this.stats].map(([source, s]) => ({ source, received_at: s.receivedAt, errors: s.errors, deviation_percent: s.deviation }));
  }

  private async median(b: string, q: string): Promise<Quote> {
    const asked = [...this.sources.values()].filter((s) => s.ownsPair?.(b, q) ?? true);
    const answers = await Promise.all(asked.map(async (s) => ({ source: s.name, answer: await this.fresh(s, b, q) })));
    const fresh = answers.flatMap(({ source, answer }) => (answer ? [{ source, price: Decimal.parse(answer.price), at: answer.receivedAt }] : []));
    if (fresh.length === 0) throw new RateUnavailableError(b, q, MEDIAN_SOURCE, 'no enabled source answered with a fresh quote');
    const mid = median(fresh.map((f) => f.price));
    const quotes: SourceQuote[] = fresh.map((f) => {
      // |price - median| * 100 <= band * median, compared exactly (no division, no rounding).
      const off = f.price.sub(mid);
      const stat = this.stats.get(f.source);
      if (stat) stat.deviation = off.mul('100').div(mid, 4, 'half-up').toString();
      return { source: f.source, price: f.price.toString(), received_at: f.at, used: off.abs().mul('100').lte(this.band.mul(mid)) };
    });
    const kept = quotes.filter((x) => x.used);
    if (kept.length < this.minSources) {
      throw new RateUnavailableError(b, q, MEDIAN_SOURCE, `${kept.length} fresh quote(s) within ${this.band.toString()}% of the median, ${this.minSources} needed`);
    }
    const rate = kept.length === quotes.length ? mid : median(kept.map((k) => Decimal.parse(k.price)));
    return { rate: rate.toString(), source: kept.length === 1 ? kept[0]!.source : MEDIAN_SOURCE, quotes };
  }

  private resolveName(sourceName: string): string {
    if (this.sources.has(sourceName)) return sourceName;
    const name = normalizeSourceName(sourceName);
    // The API layer validates with normalizeSourceName; reaching here with junk is a caller bug.
    if (!name) throw new RangeError(`Unknown rate source ${JSON.stringify(sourceName)}`);
    return name;
  }

  /** The source's answer for the pair if it is fresh; null if it failed, cannot price it, or is too old. */
  private async fresh(source: RateSource, base: string, quote: string): Promise<Answer | null> {
    const key = `${source.name}\0${base}\0${quote}`;
    const now = this.now();
    let entry = this.cache.get(key);
    if (!entry || !this.reusable(entry, now)) {
      const stat = this.stats.get(source.name);
      if (stat && stat.pausedUntil > now) return null;
      if (this.cache.size >= SWEEP_AT) for (const [k, e] of this.cache) if (!this.reusable(e, now)) this.cache.delete(k);
      entry = this.call(source, base, quote);
      this.cache.set(key, entry);
    }
    const answer = await entry.value;
    // An answer shared from a call made earlier may have aged past the limit while this waited.
    if (answer && this.now() - answer.receivedAt > this.maxAgeMs) return null;
    return answer;
  }

  private reusable(e: Entry, now: number): boolean {
    if (e.settledAt === null) return true;
    return !e.failed && now - e.settledAt < this.maxAgeMs;
  }

  private call(source: RateSource, base: string, quote: string): Entry {
    const stat = this.stats.get(source.name);
    const entry: Entry = { settledAt: null, failed: false, value: Promise.resolve(null) };
    // Wrapped so a source that throws synchronously still yields a promise.
    entry.value = Promise.resolve()
      .then(() => source.getRate(base, quote))
      .then(
        (price) => {
          const at = this.now();
          entry.settledAt = at;
          if (stat) stat.receivedAt = at;
          // A zero (or unreadable) price is a dead market, not a free asset.
          const d = price === null ? null : Decimal.tryParse(price);
          return d === null || !d.gt('0') ? null : { price: d.toString(), receivedAt: at };
        },
        () => {
          const at = this.now();
          entry.settledAt = at;
          entry.failed = true;
          if (stat) {
            stat.errors += 1;
            stat.pausedUntil = at + this.retryMs;
          }
          return null;
        },
      );
    return entry;
  }
}
