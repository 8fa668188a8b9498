import { afterEach, describe, expect, it } from 'vitest';
import { BinanceRateSource } from '../../src/rates/sources/binance.ts';
import { BinanceP2PRateSource } from '../../src/rates/sources/binance-p2p.ts';
import { median } from '../../src/rates/median.ts';
import { ExmoRateSource } from '../../src/rates/sources/exmo.ts';
import { KucoinRateSource } from '../../src/rates/sources/kucoin.ts';
import { RateUnavailableError } from '../../src/rates/types.ts';
import { Decimal } from '../../src/money/decimal.ts';
import {
  binanceHandler,
  exmoHandler,
  fakeExchange,
  hang,
  json,
  kucoinHandler,
  p2pHandler,
  type FakeExchange,
  type Handler,
} from './fake-exchange.ts';

const open: FakeExchange[] = [];
async function server(h: Handler): Promise<FakeExchange> {
  const s = await fakeExchange(h);
  open.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

const BINANCE = { BTCUSDT: '65000.01000000', USDTTRY: '34.12000000', ETHBTC: '0.04615000', DEADUSDT: '0.00000000' };

describe('Binance', () => {
  it('prices the direct pair from /api/v3/ticker/price', async () => {
    const ex = await server(binanceHandler(BINANCE));
    const src = new BinanceRateSource({ baseUrl: ex.url });
    expect(src.name).toBe('Binance');
    expect(await src.getRate('BTC', 'USDT')).toBe('65000.01');
    expect(ex.seen.map((r) => r.method + ' ' + r.url)).toEqual(['GET /api/v3/ticker/price?symbol=BTCUSDT']);
  });

  it('inverts the pair with 18-place division', async () => {
    const ex = await server(binanceHandler(BINANCE));
    const src = new BinanceRateSource({ baseUrl: ex.url });
    expect(await src.getRate('usdt', 'btc')).toBe('0.000015384613017752');
    expect(ex.seen.map((r) => r.url)).toEqual(['/api/v3/ticker/price?symbol=USDTBTC', '/api/v3/ticker/price?symbol=BTCUSDT']);
  });

  it('crosses through USDT when neither direct nor inverted market exists', async () => {
    const ex = await server(binanceHandler(BINANCE));
    const src = new BinanceRateSource({ baseUrl: ex.url });
    expect(await src.getRate('BTC', 'TRY')).toBe('2217800.3412');
    expect(await src.getRate('TRY', 'BTC')).toBe('0.00000045089721623');
    // Only USDT is a pivot: ETH/USDT is not derived from ETH/BTC x BTC/USDT.
    expect(await src.getRate('ETH', 'USDT')).toBeNull();
    expect(await src.getRate('ETH', 'BTC')).toBe('0.04615');
  });

  it('reads USD as USDT, answers 1 for the same currency without a request', async () => {
    const ex = await server(binanceHandler(BINANCE));
    const src = new BinanceRateSource({ baseUrl: ex.url });
    expect(await src.getRate('BTC', 'USD')).toBe('65000.01');
    expect(await src.getRate('USD', 'USDT')).toBe('1');
    expect(await src.getRate('TRY', 'TRY')).toBe('1');
    expect(ex.seen).toHaveLength(1);
  });

  it('returns null for unlisted pairs, dead (zero-price) markets and junk codes', async () => {
    const ex = await server(binanceHandler(BINANCE));
    const src = new BinanceRateSource({ baseUrl: ex.url });
    expect(await src.getRate('FOO', 'BAR')).toBeNull();
    expect(await src.getRate('DEAD', 'USDT')).toBeNull();
    expect(await src.getRate('BTC&x=1', 'USDT')).toBeNull();
    expect(ex.seen.every((r) => !r.url.includes('&'))).toBe(true);
  });

  it('throws RateUnavailableError on HTTP 500', async () => {
    const ex = await server((_req, res) => json(res, 500, { code: -1000, msg: 'internal' }));
    const err = await new BinanceRateSource({ baseUrl: ex.url }).getRate('BTC', 'USDT').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateUnavailableError);
    expect(err).toMatchObject({ base: 'BTC', quote: 'USDT', source: 'Binance' });
  });

  it('throws RateUnavailableError on HTTP 429 (rate limited) and on a non-decimal price', async () => {
    const limited = await server((_req, res) => json(res, 429, { code: -1003, msg: 'Too many requests' }));
    await expect(new BinanceRateSource({ baseUrl: limited.url }).getRate('BTC', 'USDT')).rejects.toBeInstanceOf(RateUnavailableError);
    const numeric = await server((_req, res) => json(res, 200, '{"symbol":"BTCUSDT","price":65000.01}'));
    await expect(new BinanceRateSource({ baseUrl: numeric.url }).getRate('BTC', 'USDT')).rejects.toBeInstanceOf(RateUnavailableError);
  });

  it('throws RateUnavailableError on malformed JSON', async () => {
    const ex = await server((_req, res) => json(res, 200, '{"symbol":"BTCUSDT","price":"650'));
    await expect(new BinanceRateSource({ baseUrl: ex.url }).getRate('BTC', 'USDT')).rejects.toBeInstanceOf(RateUnavailableError);
  });

  it('times out a server that never answers', async () => {
    const ex = await server(hang);
    const started = Date.now();
    const err = await new BinanceRateSource({ baseUrl: ex.url, timeoutMs: 200 }).getRate('BTC', 'USDT').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateUnavailableError);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(ex.seen).toHaveLength(1);
  });

  it('times out a server that sends headers and then stalls the body', async () => {
    const ex = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"symbol":"BTCUSDT",');
    });
    await expect(new BinanceRateSource({ baseUrl: ex.url, timeoutMs: 200 }).getRate('BTC', 'USDT')).rejects.toBeInstanceOf(RateUnavailableError);
  });

  it('wraps a connection refusal', async () => {
    const ex = await server(hang);
    await ex.close();
    await expect(new BinanceRateSource({ baseUrl: ex.url }).getRate('BTC', 'USDT')).rejects.toBeInstanceOf(RateUnavailableError);
  });

  it('uses an injected fetch and wraps whatever it throws', async () => {
    const boom = (async () => {
      throw new TypeError('fetch failed');
    }) as typeof fetch;
    const err = await new BinanceRateSource({ fetch: boom }).getRate('BTC', 'USDT').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateUnavailableError);
    expect((err as Error).cause).toBeInstanceOf(TypeError);
  });
});

describe('Kucoin', () => {
  const PRICES = { 'BTC-USDT': '64999.9', 'TON-USDT': '5.123' };

  it('prices direct, inverted and crossed pairs from level1', async () => {
    const ex = await server(kucoinHandler(PRICES));
    const src = new KucoinRateSource({ baseUrl: ex.url });
    expect(src.name).toBe('Kucoin');
    expect(await src.getRate('BTC', 'USDT')).toBe('64999.9');
    expect(ex.seen[0]?.url).toBe('/api/v1/market/orderbook/level1?symbol=BTC-USDT');
    expect(await src.getRate('USD', 'BTC')).toBe('0.000015384639053291');
    expect(await src.getRate('TON', 'BTC')).toBe('0.000078815505870009');
    expect(await src.getRate('FOO', 'USDT')).toBeNull();
  });

  it('throws on an error code, HTTP 500 and malformed JSON', async () => {
    const code = await server((_req, res) => json(res, 200, { code: '429000', msg: 'Too Many Requests' }));
    await expect(new KucoinRateSource({ baseUrl: code.url }).getRate('BTC', 'USDT')).rejects.toBeInstanceOf(RateUnavailableError);
    const http = await server((_req, res) => json(res, 500, 'oops'));
    await expect(new KucoinRateSource({ baseUrl: http.url }).getRate('BTC', 'USDT')).rejects.toBeInstanceOf(RateUnavailableError);
    const bad = await server((_req, res) => json(res, 200, '{"code":"200000","data":{"price":'));
    await expect(new KucoinRateSource({ baseUrl: bad.url }).getRate('BTC', 'USDT')).rejects.toBeInstanceOf(RateUnavailableError);
  });

  it('times out', async () => {
    const ex = await server(hang);
    await expect(new KucoinRateSource({ baseUrl: ex.url, timeoutMs: 150 }).getRate('BTC', 'USDT')).rejects.toBeInstanceOf(RateUnavailableError);
  });
});

describe('Exmo', () => {
  const TICKERS = { BTC_USD: '65010.5', BTC_USDT: '64990.12', USDT_USD: '1.0004', ETH_USDT: '3001.7', USDT_UAH: '41.35', DEAD_USDT: '0' };

  it('prices direct, inverted and crossed pairs from one /v1.1/ticker call each', async () => {
    const ex = await server(exmoHandler(TICKERS));
    const src = new ExmoRateSource({ baseUrl: ex.url });
    expect(src.name).toBe('Exmo');
    expect(await src.getRate('BTC', 'USD')).toBe('65010.5'); // a real USD market, not USDT
    expect(await src.getRate('BTC', 'USDT')).toBe('64990.12');
    expect(await src.getRate('UAH', 'USDT')).toBe('0.024183796856106409');
    expect(await src.getRate('USD', 'USDT')).toBe('0.99960015993602559');
    expect(await src.getRate('ETH', 'UAH')).toBe('124120.295');
    expect(await src.getRate('DEAD', 'UAH')).toBeNull();
    expect(await src.getRate('FOO', 'BAR')).toBeNull();
    expect(ex.seen.map((r) => r.url)).toEqual(Array(7).fill('/v1.1/ticker'));
  });

  it('throws on an Exmo error body, HTTP 500, malformed JSON and a non-decimal last_trade', async () => {
    const cases: Handler[] = [
      (_req, res) => json(res, 200, { result: false, error: 'Error 50052: Insufficient funds' }),
      (_req, res) => json(res, 500, '<html>bad gateway</html>'),
      (_req, res) => json(res, 200, '{"BTC_USD":{"last_trade":"65'),
      (_req, res) => json(res, 200, { BTC_USD: { last_trade: '6.5e4' } }),
    ];
    for (const h of cases) {
      const ex = await server(h);
      await expect(new ExmoRateSource({ baseUrl: ex.url }).getRate('BTC', 'USD')).rejects.toBeInstanceOf(RateUnavailableError);
    }
  });

  it('times out', async () => {
    const ex = await server(hang);
    await expect(new ExmoRateSource({ baseUrl: ex.url, timeoutMs: 150 }).getRate('BTC', 'USD')).rejects.toBeInstanceOf(RateUnavailableError);
  });
});

describe('BinanceP2P', () => {
  const ADS = { RUB: ['96.5', '96.8', '97.1', '95.9', '97.3', '96.95'], EUR: ['0.91', '0.93', '0.92'] };

  it('posts the ad search and takes the median ad price for USDT<->fiat', async () => {
    const ex = await server(p2pHandler(ADS));
    const src = new BinanceP2PRateSource({ baseUrl: ex.url });
    expect(src.name).toBe('BinanceP2P');
    expect(await src.getRate('USDT', 'RUB')).toBe('96.875');
    const req = ex.seen[0];
    expect(req?.method).toBe('POST');
    expect(req?.url).toBe('/bapi/c2c/v2/friendly/c2c/adv/search');
    expect(JSON.parse(req?.body ?? '')).toMatchObject({ asset: 'USDT', fiat: 'RUB', tradeType: 'BUY', page: 1, rows: 10 });
    expect(await src.getRate('RUB', 'USD')).toBe('0.01032258064516129'); // USD read as USDT, inverted
    expect(await src.getRate('RUB', 'EUR')).toBe('0.009496774193548387'); // crossed through USDT
    expect(await src.getRate('USDT', 'KZT')).toBeNull(); // no ads
  });

  it('prices crypto legs with the spot source it is given', async () => {
    const spot = await server(binanceHandler(BINANCE));
    const p2p = await server(p2pHandler(ADS));
    const src = new BinanceP2PRateSource({ baseUrl: p2p.url, spot: new BinanceRateSource({ baseUrl: spot.url }) });
    expect(await src.getRate('BTC', 'RUB')).toBe('6296875.96875');
    expect(p2p.seen.map((r) => (JSON.parse(r.body) as { fiat: string }).fiat)).toEqual(['RUB']); // BTC never sent to P2P
    expect(await new BinanceP2PRateSource({ baseUrl: p2p.url }).getRate('BTC', 'RUB')).toBeNull();
  });

  it('throws on an error code, HTTP 500, malformed JSON and timeouts', async () => {
    const cases: Handler[] = [
      (_req, res) => json(res, 200, { code: '000002', message: 'illegal parameter', data: null, success: false }),
      (_req, res) => json(res, 500, { code: '000000', data: [] }),
      (_req, res) => json(res, 200, '{"code":"000000","data":[{"adv":'),
      (_req, res) => json(res, 200, { code: '000000', data: [{ adv: {} }] }),
    ];
    for (const h of cases) {
      const ex = await server(h);
      await expect(new BinanceP2PRateSource({ baseUrl: ex.url }).getRate('USDT', 'RUB')).rejects.toBeInstanceOf(RateUnavailableError);
    }
    const slow = await server(hang);
    await expect(new BinanceP2PRateSource({ baseUrl: slow.url, timeoutMs: 150 }).getRate('USDT', 'RUB')).rejects.toBeInstanceOf(RateUnavailableError);
  });

  it('median is exact', () => {
    const d = (xs: string[]) => median(xs.map((x) => Decimal.parse(x))).toString();
    expect(d(['3', '1', '2'])).toBe('2');
    expect(d(['0.1', '0.2'])).toBe('0.15');
    expect(d(['1', '2'])).toBe('1.5');
  });
});

describe('in-flight sharing', () => {
  it('shares one upstream request among concurrent identical lookups', async () => {
    const ex = await server(exmoHandler({ BTC_USD: '65010.5' }));
    const src = new ExmoRateSource({ baseUrl: ex.url });
    const rates = await Promise.all(Array.from({ length: 5 }, () => src.getRate('BTC', 'USD')));
    expect(rates).toEqual(Array(5).fill('65010.5'));
    expect(ex.seen).toHaveLength(1);
  });
});
