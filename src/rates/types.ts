// A rate source answers "how many `quote` is one `base` worth", as an exact decimal string.
export interface RateSource {
  /** Name as the merchant API spells it in `course_source` (e.g. "Binance"), or "static". */
  readonly name: string;
  /** Price of one `base` in `quote`, or null when this source cannot price the pair. */
  getRate(base: string, quote: string): Promise<string | null>;
}

export class RateUnavailableError extends Error {
  constructor(
    readonly base: string,
    readonly quote: string,
    readonly source: string,
  ) {
    super(`No ${source} rate for ${base}/${quote}`);
  }
}
