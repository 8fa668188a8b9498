import { Decimal } from '../../money/decimal.ts';
import type { RateSource } from '../types.ts';
import { median } from '../median.ts';
import { field, HttpRateSource, PIVOT, price, type HttpSourceOptions, type Market } from './http.ts';

export interface BinanceP2POptions extends HttpSourceOptions {
  /** "BUY": ads of people selling USDT, i.e. what a payer pays for USDT. */
  tradeType?: 'BUY' | 'SELL';
  /** How many of the best ads the median is taken over. */
  rows?: number;
  /** Prices crypto<->USDT legs (P2P only prices fiat<->USDT); usually the Binance spot source. */
  spot?: RateSource;
}

// ISO 4217 codes known to the runtime; P2P is asked only about these, crypto goes to `spot`.
const FIAT = new Set(Intl.supportedValuesOf('currency'));

/**
 * Binance P2P median ad price for fiat<->USDT:
 * POST /bapi/c2c/v2/friendly/c2c/adv/search {asset, fiat, tradeType, page, rows}
 * -> {"code":"000000","data":[{"adv":{"price":"..."}}...]}.
 */
export class BinanceP2PRateSource extends HttpRateSource {
  readonly name = 'BinanceP2P';
  private readonly tradeType: 'BUY' | 'SELL';
  private readonly rows: number;
  private readonly spot: RateSource | undefined;

  constructor(opts: BinanceP2POptions = {}) {
    super(opts, 'https://p2p.binance.com');
    this.tradeType = opts.tradeType ?? 'BUY';
    this.rows = opts.rows ?? 10;
    this.spot = opts.spot;
  }

  /** A pair with no fiat leg would be priced by `spot` alone: Binance's price, not a P2P one. */
  ownsPair(base: string, quote: string): boolean {
    const fiat = (c: string) => c !== 'USD' && FIAT.has(c.trim().toUpperCase());
    return fiat(base) || fiat(quote);
  }

  protected async markets(): Promise<Market> {
    return async (base, quote) => {
      if (base === PIVOT && FIAT.has(quote)) return this.usdtIn(quote);
      if (this.spot && !FIAT.has(base) && !FIAT.has(quote)) {
        const r = await this.spot.getRate(base, quote);
        return r === null ? null : Decimal.parse(r);
      }
      return null; // fiat->USDT is found by the resolver as the inverse of USDT->fiat
    };
  }

  /** Median price of one USDT in `fiat` over the first ads; null when nobody trades that fiat. */
  private async usdtIn(fiat: string): Promise<Decimal | null> {
    const { status, body } = await this.request('/bapi/c2c/v2/friendly/c2c/adv/search', {
      asset: PIVOT,
      fiat,
      tradeType: this.tradeType,
      page: 1,
      rows: this.rows,
      payTypes: [],
      publisherType: null,
    });
    const data = field(body, 'data');
    if (status !== 200 || field(body, 'code') !== '000000' || !Array.isArray(data)) {
      throw new Error(`Binance P2P HTTP ${status} code ${String(field(body, 'code'))}`);
    }
    if (data.length === 0) return null;
    // The median rather than the best ad: one odd ad cannot move the rate.
    return median(data.map((ad) => price(field(field(ad, 'adv'), 'price'))));
  }
}
