import { field, HttpRateSource, price, type HttpSourceOptions, type Market } from './http.ts';

/** Exmo last trade: GET /v1.1/ticker -> {"BTC_USD":{"buy_price":"...","sell_price":"...","last_trade":"..."},...}. */
export class ExmoRateSource extends HttpRateSource {
  readonly name = 'Exmo';
  // Exmo lists real USD markets next to USDT ones (and a USDT_USD market), so USD stays USD.
  protected override readonly usdIsUsdt = false;

  constructor(opts: HttpSourceOptions = {}) {
    super(opts, 'https://api.exmo.com');
  }

  // One request returns every pair, so a getRate (direct, inverted and crossed legs) costs one call.
  protected async markets(): Promise<Market> {
    const { status, body } = await this.request('/v1.1/ticker');
    // Exmo reports API errors as HTTP 200 {"result":false,"error":"..."}.
    if (status !== 200 || typeof body !== 'object' || body === null || Array.isArray(body) || 'error' in body) {
      throw new Error(`Exmo HTTP ${status} ${String(field(body, 'error') ?? '')}`);
    }
    const tickers = body as Record<string, unknown>;
    return async (base, quote) => {
      const t = tickers[`${base}_${quote}`];
      return t === undefined ? null : price(field(t, 'last_trade'));
    };
  }
}
