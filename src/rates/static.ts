import { readFileSync } from 'node:fs';
import { Decimal } from '../money/decimal.ts';
import type { RateSource } from './types.ts';

/** Rate source backed by a data file of USD prices; cross rates go through USD. */
export class StaticRateSource implements RateSource {
  readonly name = 'static';
  private readonly usd: Map<string, Decimal>;

  constructor(usdPrices: Record<string, string>) {
    this.usd = new Map(Object.entries(usdPrices).map(([k, v]) => [k.toUpperCase(), Decimal.parse(v)]));
  }

  static fromFile(path: string): StaticRateSource {
    const data = JSON.parse(readFileSync(path, 'utf8')) as { usd: Record<string, string> };
    return new StaticRateSource(data.usd);
  }

  async getRate(base: string, quote: string): Promise<string | null> {
    const b = this.usd.get(base.toUpperCase());
    const q = this.usd.get(quote.toUpperCase());
    if (!b || !q || q.isZero()) return null;
    if (base.toUpperCase() === quote.toUpperCase()) return '1';
    return b.div(q, 18, 'half-up').toString();
  }

  currencies(): string[] {
    return [...this.usd.keys()];
  }
}
