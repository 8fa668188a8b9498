import { field, HttpRateSource, price, type HttpSourceOptions, type Market } from './http.ts';

/** KuCoin spot last price: GET /api/v1/market/orderbook/level1?symbol=BTC-USDT -> {"code":"200000","data":{"price":"..."}}. */
export class KucoinRateSource extends HttpRateSource {
  readonly name = 'Kucoin';

  constructor(opts: HttpSourceOptions = {}) {
    super(opts, 'https://api.kucoin.com');
  }

  protected async markets(): Promise<Market> {
    return async (base, quote) => {
      const { status, body } = await this.request(`/api/v1/market/orderbook/level1?symbol=${base}-${quote}`);
      if (status !== 200 || field(body, 'code') !== '200000') throw new Error(`KuCoin HTTP ${status} code ${String(field(body, 'code'))}`);
      const data = field(body, 'data');
      // KuCoin answers an unlisted symbol with success and "data": null.
      if (data === null) return null;
      return price(field(data, 'price'));
    };
  }
}
