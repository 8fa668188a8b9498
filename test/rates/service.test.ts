import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRateService, normalizeSourceName, RateService } from '../../src/rates/service.ts';
import { BinanceRateSource } from '../../src/rates/sources/binance.ts';
import { StaticRateSource } from '../../src/rates/static.ts';
import { RateUnavailableError, type RateSource } from '../../src/rates/types.ts';
import { binanceHandler, exmoHandler, fakeExchange, hang, json, kucoinHandler, p2pHandler, type FakeExchange, type Handler } from './fake-exchange.ts';

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
  it('uses the default source and the named one, reporting which answered', async () => {
    const ex = await server(binanceHandler(BINANCE));
    const svc = new RateService({ sources: [STATIC, new BinanceRateSource({ baseUrl: ex.url })], default: 'static' });
    expect(await svc.quote('BTC', 'USD')).toEqual({ rate: '65000', source: 'static' });
    expect(await svc.quote('btc', 'usdt', 'binance')).toEqual({ rate: '65000.01', source: 'Binance' });
    expect(await svc.rate('BTC', 'RUB')).toBe('5909090.909090909090909091');
  });

  it('caches each (source, base, quote) for ttlMs', async () => {
    const ex = await server(binanceHandler(BINANCE));
    const c = clock();
    const svc = new RateService({ sources: [STATIC, new BinanceRateSource({ baseUrl: ex.url })], default: 'Binance', ttlMs: 60_000, now: c.now });
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
    const svc = new RateService({ sources: [STATIC, new BinanceRateSource({ baseUrl: ex.url })], default: 'Binance' });
    const quotes = await Promise.all(Array.from({ length: 10 }, () => svc.quote('BTC', 'USDT')));
    expect(quotes).toEqual(Array(10).fill({ rate: '65000.01', source: 'Binance' }));
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
    const svc = new RateService({ sources: [STATIC, slow], default: 'Exmo' });
    expect(await Promise.all(Array.from({ length: 10 }, () => svc.rate('A1', 'B1')))).toEqual(Array(10).fill('42'));
    expect(calls).toBe(1);
  });

  it('falls back to static when the HTTP source fails, and retries it after retryMs', async () => {
    let fail = true;
    const answer = binanceHandler(BINANCE);
    const ex = await server((req, res) => (fail ? json(res, 500, { code: -1000, msg: 'down' }) : answer(req, res)));
    const c = clock();
    const svc = new RateService({ sources: [STATIC, new BinanceRateSource({ baseUrl: ex.url })], default: 'static', now: c.now, retryMs: 5_000 });
    expect(await svc.quote('BTC', 'USDT', 'Binance')).toEqual({ rate: '65000', source: 'static' });
    expect(await svc.quote('BTC', 'USDT', 'Binance')).toEqual({ rate: '65000', source: 'static' });
    expect(ex.seen).toHaveLength(1); // the failure is remembered, not retried per request
    fail = false;
    c.t += 5_000;
    expect(await svc.quote('BTC', 'USDT', 'Binance')).toEqual({ rate: '65000.01', source: 'Binance' });
  });

  it('falls back to static on a timeout within the timeout', async () => {
    const ex = await server(hang);
    const svc = new RateService({ sources: [STATIC, new BinanceRateSource({ baseUrl: ex.url, timeoutMs: 200 })], default: 'static' });
    const started = Date.now();
    expect(await svc.quote('ETH', 'USD', 'Binance')).toEqual({ rate: '3000', source: 'static' });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('falls back to static when the source cannot price the pair', async () => {
    const ex = await server(binanceHandler(BINANCE));
    const svc = new RateService({ sources: [STATIC, new BinanceRateSource({ baseUrl: ex.url })], default: 'Binance' });
    expect(await svc.quote('RUB', 'BTC')).toEqual({ rate: '0.000000169230769231', source: 'static' });
  });

  it('throws RateUnavailableError when no source can price the pair', async () => {
    const ex = await server((_req, res) => json(res, 500, ''));
    const svc = new RateService({ sources: [STATIC, new BinanceRateSource({ baseUrl: ex.url })], default: 'static' });
    await expect(svc.rate('XYZ', 'USD')).rejects.toBeInstanceOf(RateUnavailableError);
    const err = await svc.rate('XYZ', 'USD', 'Binance').catch((e: unknown) => e);
    expect(err).toMatchObject({ source: 'Binance', base: 'XYZ', quote: 'USD' });
  });

  it('without the fallback source an HTTP failure surfaces as RateUnavailableError', async () => {
    const ex = await server((_req, res) => json(res, 200, 'not json'));
    const svc = new RateService({ sources: [new BinanceRateSource({ baseUrl: ex.url })], default: 'Binance' });
    await expect(svc.rate('BTC', 'USDT')).rejects.toBeInstanceOf(RateUnavailableError);
  });

  it('rejects an unknown source name and an unknown default', async () => {
    const svc = new RateService({ sources: [STATIC], default: 'static' });
    await expect(svc.rate('BTC', 'USD', 'Coinbase')).rejects.toBeInstanceOf(RangeError);
    expect(() => new RateService({ sources: [STATIC], default: 'Binance' })).toThrow(RangeError);
  });

  it('list returns Cryptomus-shaped rows and skips what cannot be priced', async () => {
    const svc = new RateService({ sources: [STATIC], default: 'static' });
    expect(await svc.list('eth', ['BTC', 'usd', 'NOPE', 'RUB'])).toEqual([
      { from: 'ETH', to: 'BTC', course: '0.046153846153846154' },
      { from: 'ETH', to: 'USD', course: '3000' },
      { from: 'ETH', to: 'RUB', course: '272727.272727272727272727' },
    ]);
  });

  it('list through an HTTP source', async () => {
    const ex = await server(exmoHandler({ BTC_USD: '65010.5', BTC_USDT: '64990.12' }));
    const svc = createRateService({ ratesFile: ratesFile(), enableHttp: true, exmoUrl: ex.url });
    expect(await svc.list('BTC', ['USD', 'USDT'], 'exmo')).toEqual([
      { from: 'BTC', to: 'USD', course: '65010.5' },
      { from: 'BTC', to: 'USDT', course: '64990.12' },
    ]);
    expect(ex.seen).toHaveLength(1); // the ticker request is shared by both rows
  });
});

function ratesFile(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'satchel-rates-')), 'rates.json');
  writeFileSync(path, JSON.stringify({ usd: { USD: '1', USDT: '1', BTC: '60000', RUB: '0.01' } }));
  return path;
}

describe('createRateService', () => {
  it('starts offline: static is the default and named sources fall back to it', async () => {
    const svc = createRateService({ ratesFile: ratesFile() });
    expect(await svc.quote('BTC', 'RUB')).toEqual({ rate: '6000000', source: 'static' });
    expect(await svc.quote('BTC', 'USD', 'BinanceP2p')).toEqual({ rate: '60000', source: 'static' });
  });

  it('wires every HTTP source to its URL when enabled', async () => {
    const binance = await server(binanceHandler(BINANCE));
    const p2p = await server(p2pHandler({ RUB: ['95', '97'] }));
    const kucoin = await server(kucoinHandler({ 'BTC-USDT': '64999.9' }));
    const exmo = await server(exmoHandler({ BTC_USD: '65010.5' }));
    const svc = createRateService({
      ratesFile: ratesFile(),
      enableHttp: true,
      binanceUrl: binance.url,
      binanceP2PUrl: p2p.url,
      kucoinUrl: kucoin.url,
      exmoUrl: exmo.url,
    });
    expect(await svc.quote('BTC', 'USD')).toEqual({ rate: '60000', source: 'static' });
    expect(await svc.quote('BTC', 'USD', 'Binance')).toEqual({ rate: '65000.01', source: 'Binance' });
    expect(await svc.quote('BTC', 'USD', 'Kucoin')).toEqual({ rate: '64999.9', source: 'Kucoin' });
    expect(await svc.quote('BTC', 'USD', 'Exmo')).toEqual({ rate: '65010.5', source: 'Exmo' });
    expect(await svc.quote('USDT', 'RUB', 'BinanceP2P')).toEqual({ rate: '96', source: 'BinanceP2P' });
    expect(await svc.quote('BTC', 'RUB', 'BinanceP2P')).toEqual({ rate: '6240000.96', source: 'BinanceP2P' });
  });
});
