// The engine's mechanics: caching within the maximum age, shared in-flight calls, the pause after a
// failure, named sources and the exchange-rate list.
import { afterEach, describe, expect, it } from 'vitest';
import { normalizeSourceName, RateService } from '../../src/rates/service.ts';
import { BinanceRateSource } from '../../src/rates/sources/binance.ts';
import { ExmoRateSource } from '../../src/rates/sources/exmo.ts';
import { StaticRateSource } from '../../src/rates/static.ts';
import { RateUnavailableError, type RateSource } from '../../src/rates/types.ts';
import { binanceHandler, exmoHandler, fakeExchange, hang, json, type FakeExchange, type Handler } from './fake-exchange.ts';

const open: FakeExchange[] = [];
async function server(h: Handler): Promise<FakeExchange> {
  const s = await fakeExchange(h);
  open.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

const STATIC = new StaticRateSource({ USD: '1', USDT: '1', BTC: '65000', ETH: '3000', RUB: '0.011' });
const BINANCE = { BTCUSDT: '65000.01000000', ETHUSDT: '3000.50000000' };

function clock() {
  const c = { t: 1_000_000, now: () => c.t };
  return c;
}

describe('normalizeSourceName', () => {
  it('maps the accepted course_source spellings case-insensitively', () => {
    expect(normalizeSourceName('Binance')).toBe('Binance');
    expect(normalizeSourceName('binance')).toBe('Binance');
    expect(normalizeSourceName('BinanceP2P')).toBe('BinanceP2P');
    expect(normalizeSourceName('BinanceP2p')).toBe('BinanceP2P');
    expect(normalizeSourceName('EXMO')).toBe('Exmo');
    expect(normalizeSourceName('KuCoin')).toBe('Kucoin');
    expect(normalizeSourceName('static')).toBeNull(); // internal, not an API value
    expect(normalizeSourceName('Coinbase')).toBeNull();
    expect(normalizeSourceName('')).toBeNull();
  });
});

describe('RateService', () => {
  it('prices with the enabled sources, or the one a request names, reporting which answered', async () => {
    const ex = await server(binanceHandler(BINANCE));
    const svc = new RateService({ sources: [STATIC, new BinanceRateSource({ baseUrl: ex.url })], maxDeviationPercent: '1' });
    // static 65000 and Binance 65000.01: the median of the two, both within the band.
    expect(await svc.quote('BTC', 'USD')).toMatchObject({ rate: '65000.005', source: 'median' });
    expect(await svc.quote('btc', 'usdt', 'binance')).toMatchObject({ rate: '65000.01', source: 'Binance' });
    expect(await svc.rate('ETH', 'USD', 'static')).toBe('3000');
  });

  it('caches each (source, base, quote) for the maximum age, never longer', async () => {
    const ex = await server(binanceHandler(BINANCE));
    const c = clock();
    const svc = new RateService({ sources: [new BinanceRateSource({ baseUrl: ex.url })], maxAgeMs: 60_000, now: c.now });
    expect(await svc.rate('BTC', 'USDT')).toBe('65000.01');
    c.t += 59_999;
    expect(await svc.rate('BTC', 'USDT')).toBe('65000.01');
    expect(ex.seen).toHaveLength(1);
    expect(await svc.rate('ETH', 'USDT')).toBe('3000.5'); // another pair is another entry
    expect(ex.seen).toHaveLength(2);
    c.t += 1;
    expect(await svc.rate('BTC', 'USDT')).toBe('65000.01');
    expect(ex.seen).toHaveLength(3);
  });

  it('coalesces 10 concurrent identical requests into one upstream call', async () => {
    const answer = binanceHandler(BINANCE);
    // Answer late so all ten calls are in flight together.
    const ex = await server((req, res) => setTimeout(() => answer(req, res), 50));
    const svc = new RateService({ sources: [new BinanceRateSource({ baseUrl: ex.url })] });
    const quotes = await Promise.all(Array.from({ length: 10 }, () => svc.quote('BTC', 'USDT')));
    expect(quotes.map((q) => [q.rate, q.source])).toEqual(Array(10).fill(['65000.01', 'Binance']));
    expect(ex.seen).toHaveLength(1);
  });

  it('coalesces at the service level too (source called once)', async () => {
    let calls = 0;
    const slow: RateSource = {
      name: 'Exmo',
      getRate: async () => {
        calls++;
        await new Promise((r) => setTimeout(r, 20));
        return '42';
      },
    };
    const svc = new RateService({ sources: [slow] });
    expect(await Promise.all(Array.from({ length: 10 }, () => svc.rate('A1', 'B1')))).toEqual(Array(10).fill('42'));
    expect(calls).toBe(1);
  });

  it('a failing source answers nothing (no fallback) and is retried after retryMs, not per request', async () => {
    let fail = true;
    const answer = binanceHandler(BINANCE);
    const ex = await server((req, res) => (fail ? json(res, 500, { code: -1000, msg: 'down' }) : answer(req, res)));
    const c = clock();
    const svc = new RateService({ sources: [STATIC, new BinanceRateSource({ baseUrl: ex.url })], now: c.now, retryMs: 5_000 });
    await expect(svc.quote('BTC', 'USDT', 'Binance')).rejects.toBeInstanceOf(RateUnavailableError);
    await expect(svc.quote('ETH', 'USDT', 'Binance')).rejects.toBeInstanceOf(RateUnavailableError);
    expect(ex.seen).toHaveLength(1); // the failure is remembered for the source, not retried per request
    expect(svc.sourceStats().find((s) => s.source === 'Binance')).toMatchObject({ errors: 1, received_at: null });
    fail = false;
    c.t += 5_000;
    expect(await svc.quote('BTC', 'USDT', 'Binance')).toMatchObject({ rate: '65000.01', source: 'Binance' });
  });

  it('gives up on a source that hangs within its timeout', async () => {
    const ex = await server(hang);
    const svc = new RateService({ sources: [STATIC, new BinanceRateSource({ baseUrl: ex.url, timeoutMs: 200 })] });
    const started = Date.now();
    // The hanging source did not answer: the static table alone prices.
    expect(await svc.quote('ETH', 'USD')).toMatchObject({ rate: '3000', source: 'static' });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('a source that cannot price the pair did not answer', async () => {
    const ex = await server(binanceHandler(BINANCE));
    const svc = new RateService({ sources: [STATIC, new BinanceRateSource({ baseUrl: ex.url })] });
    expect(await svc.quote('RUB', 'BTC')).toMatchObject({ rate: '0.000000169230769231', source: 'static' });
    await expect(svc.quote('RUB', 'BTC', 'Binance')).rejects.toBeInstanceOf(RateUnavailableError);
  });

  it('throws RateUnavailableError when no source can price the pair', async () => {
    const ex = await server((_req, res) => json(res, 500, ''));
    const svc = new RateService({ sources: [STATIC, new BinanceRateSource({ baseUrl: ex.url })] });
    await expect(svc.rate('XYZ', 'USD')).rejects.toBeInstanceOf(RateUnavailableError);
    const err = await svc.rate('XYZ', 'USD', 'Binance').catch((e: unknown) => e);
    expect(err).toMatchObject({ source: 'Binance', base: 'XYZ', quote: 'USD' });
  });

  it('a named source that is not enabled is priced by the enabled ones; an unknown name is a caller bug', async () => {
    const svc = new RateService({ sources: [STATIC] });
    expect(await svc.quote('BTC', 'USD', 'Kucoin')).toMatchObject({ rate: '65000', source: 'static' });
    await expect(svc.rate('BTC', 'USD', 'Coinbase')).rejects.toBeInstanceOf(RangeError);
    expect(() => new RateService({ sources: [] })).toThrow(RangeError);
    expect(() => new RateService({ sources: [STATIC], minSources: 2 })).toThrow(RangeError);
  });

  it('list returns Cryptomus-shaped rows and skips what cannot be priced', async () => {
    const svc = new RateService({ sources: [STATIC] });
    expect(await svc.list('eth', ['BTC', 'usd', 'NOPE', 'RUB'])).toEqual([
      { from: 'ETH', to: 'BTC', course: '0.046153846153846154' },
      { from: 'ETH', to: 'USD', course: '3000' },
      { from: 'ETH', to: 'RUB', course: '272727.272727272727272727' },
    ]);
  });

  it('list through an HTTP source shares one upstream call', async () => {
    const ex = await server(exmoHandler({ BTC_USD: '65010.5', BTC_USDT: '64990.12' }));
    const svc = new RateService({ sources: [new ExmoRateSource({ baseUrl: ex.url })] });
    expect(await svc.list('BTC', ['USD', 'USDT'], 'exmo')).toEqual([
      { from: 'BTC', to: 'USD', course: '65010.5' },
      { from: 'BTC', to: 'USDT', course: '64990.12' },
    ]);
    expect(ex.seen).toHaveLength(1); // the ticker request is shared by both rows
  });
});
