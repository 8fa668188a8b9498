// A rate source answers "how many `quote` is one `base` worth", as an exact decimal string; the
// engine (service.ts) decides which answers are fresh and close enough to price with.
export interface RateSource {
  /** Name as the merchant API spells it in `course_source` (e.g. "Binance"), or "static". */
  readonly name: string;
  /** Price of one `base` in `quote`, or null when this source cannot price the pair. */
  getRate(base: string, quote: string): Promise<string | null>;
  /**
   * False when this source's price for the pair would only be another source's price passed on
   * (BinanceP2P crosses crypto legs with Binance spot): the median leaves it out, so one exchange
   * does not count twice. Absent: the source prices every pair itself.
   */
  ownsPair?(base: string, quote: string): boolean;
}

/** No price for the pair: the source failed or cannot price it, or too few fresh sources agree. */
export class RateUnavailableError extends Error {
  constructor(
    readonly base: string,
    readonly quote: string,
    readonly source: string,
    reason?: string,
  ) {
    super(`No ${source} rate for ${base}/${quote}${reason ? `: ${reason}` : ''}`);
    this.name = 'RateUnavailableError';
  }
}
