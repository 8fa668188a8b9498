// Shared plumbing for exchange-backed rate sources: one HTTP call path (timeout, error
// wrapping, in-flight sharing) and one pair resolver (direct, inverted, crossed via USDT).
import { Decimal } from '../../money/decimal.ts';
import { RateUnavailableError, type RateSource } from '../types.ts';

export interface HttpSourceOptions {
  /** Exchange API origin; tests point it at a local server. Defaults to the real public host. */
  baseUrl?: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** Price of one `base` in `quote` on one listed market, or null when the exchange has no such market. */
export type Market = (base: string, quote: string) => Promise<Decimal | null>;

export const DEFAULT_TIMEOUT_MS = 5_000;
export const PIVOT = 'USDT';
/** Places kept when a rate needs a division (inverted or crossed pair). */
export const RATE_PLACES = 18;

const ONE = Decimal.of(1n);
// Tickers go into URLs and symbols; anything else cannot be a listed market.
const CODE_RE = /^[A-Z0-9]{2,15}$/;
const PRICE_RE = /^\d+(?:\.\d+)?$/;

export abstract class HttpRateSource implements RateSource {
  abstract readonly name: string;
  /** Binance and KuCoin list no USD markets and quote "dollar" prices in USDT, so USD is read as USDT. */
  protected readonly usdIsUsdt: boolean = true;
  protected readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly fetchFn: typeof fetch;
  // Identical upstream requests in flight are shared (e.g. list() pricing many pairs through one leg).
  private readonly inflight = new Map<string, Promise<{ status: number; body: unknown }>>();

  constructor(opts: HttpSourceOptions, defaultBaseUrl: string) {
    this.baseUrl = (opts.baseUrl ?? defaultBaseUrl).replace(/\/+$/, '');
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.fetchFn = opts.fetch ?? fetch;
  }

  /** Lookup of single markets for one getRate call (Exmo loads all tickers once here). */
  protected abstract markets(): Promise<Market>;

  async getRate(base: string, quote: string): Promise<string | null> {
    const b = this.code(base);
    const q = this.code(quote);
    if (!b || !q) return null;
    if (b === q) return '1';
    try {
      return await resolvePair(b, q, await this.markets());
    } catch (e) {
      // Callers only ever see RateUnavailableError; the fetch/parse error is kept as the cause.
      if (e instanceof RateUnavailableError && e.source === this.name) throw e;
      const err = new RateUnavailableError(base, quote, this.name);
      err.cause = e;
      throw err;
    }
  }

  private code(c: string): string | null {
    const u = c.trim().toUpperCase();
    if (!CODE_RE.test(u)) return null;
    return this.usdIsUsdt && u === 'USD' ? PIVOT : u;
  }

  /** JSON request with a hard timeout. Returns the status and parsed body (undefined if not JSON). */
  protected request(path: string, post?: unknown): Promise<{ status: number; body: unknown }> {
    const url = this.baseUrl + path;
    const payload = post === undefined ? undefined : JSON.stringify(post);
    const key = `${url} ${payload ?? ''}`;
    let p = this.inflight.get(key);
    if (!p) {
      p = this.send(url, payload).finally(() => this.inflight.delete(key));
      this.inflight.set(key, p);
    }
    return p;
  }

  private async send(url: string, payload: string | undefined): Promise<{ status: number; body: unknown }> {
    const res = await this.fetchFn(url, {
      method: payload === undefined ? 'GET' : 'POST',
      headers: payload === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
      body: payload,
      // The signal also bounds reading the body, so a server that stalls mid-response times out too.
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: res.status, body };
  }
}

/**
 * Rate of base in quote from single markets: the direct market, else the inverted one, else
 * base->USDT->quote (each leg direct or inverted). Kept as a fraction so there is one rounding.
 */
export async function resolvePair(base: string, quote: string, market: Market): Promise<string | null> {
  let r = await leg(base, quote, market);
  if (!r && base !== PIVOT && quote !== PIVOT) {
    const x = await leg(base, PIVOT, market);
    const y = x && (await leg(PIVOT, quote, market));
    if (x && y) r = { num: x.num.mul(y.num), den: x.den.mul(y.den) };
  }
  return r ? r.num.div(r.den, RATE_PLACES, 'half-up').toString() : null;
}

async function leg(a: string, b: string, market: Market): Promise<{ num: Decimal; den: Decimal } | null> {
  // A zero price means a dead market (no trades), not a free asset.
  const direct = await market(a, b);
  if (direct && !direct.isZero()) return { num: direct, den: ONE };
  const inverse = await market(b, a);
  if (inverse && !inverse.isZero()) return { num: ONE, den: inverse };
  return null;
}

/** Strict price: exchanges send prices as plain decimal strings; anything else is a malformed body. */
export function price(v: unknown): Decimal {
  if (typeof v !== 'string' || !PRICE_RE.test(v)) throw new Error(`Malformed price: ${JSON.stringify(v)}`);
  return Decimal.parse(v);
}

export function field(o: unknown, key: string): unknown {
  return typeof o === 'object' && o !== null ? (o as Record<string, unknown>)[key] : undefined;
}
