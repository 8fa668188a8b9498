import { field, HttpRateSource, price, type HttpSourceOptions, type Market } from './http.ts';

/** Binance spot last price: GET /api/v3/ticker/price?symbol=BTCUSDT -> {"symbol":"BTCUSDT","price":"65000.01000000"}. */
export class BinanceRateSource extends HttpRateSource {
  readonly name = 'Binance';

  constructor(opts: HttpSourceOptions = {}) {
    super(opts, 'https://api.binance.com');
  }

  protected async markets(): Promise<Market> {
    return async (base, quote) => {
      const { status, body } = await this.request(`/api/v3/ticker/price?symbol=${base}${quote}`);
      // Binance answers an unlisted symbol with 400 {"code":-1121,"msg":"Invalid symbol."}: no market, not an outage.
      if (status === 400 && field(body, 'code') === -1121) return null;
      if (status !== 200) throw new Error(`Binance HTTP ${status}`);
      return price(field(body, 'price'));
    };
  }
}
