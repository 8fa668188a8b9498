// The rate engine as an operator configures it (SATCHEL_RATES, read by loadConfig) against local
// exchange servers: the median of fresh quotes with outliers dropped, the maximum age, the
// merchant's one named source, live mode without the static table and test mode with it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { DEFAULT_RATES_FILE } from '../../src/compose.ts';
import { createRateService } from '../../src/rates/from-config.ts';
import { RateUnavailableError } from '../../src/rates/types.ts';
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

/** A server whose behaviour the test switches while it runs. */
async function switchable(first: Handler): Promise<FakeExchange & { use(h: Handler): void }> {
  let current = first;
  const ex = await server((req, res) => current(req, res));
  return { ...ex, use: (h) => (current = h) };
}

const dead: Handler = (_req, res) => json(res, 500, { code: -1000, msg: 'internal' });
// A live gateway: one real network configured turns test mode off.
const LIVE = { SATCHEL_NETWORKS: JSON.stringify({ ETH: { driver: 'evm', custody: 'hot', rpc_url: 'http://127.0.0.1:9', chain_id: 1 } }) };

function tableFile(usd: Record<string, string>): string {
  const path = join(mkdtempSync(join(tmpdir(), 'satchel-rates-')), 'rates.json');
  writeFileSync(path, JSON.stringify({ usd }));
  return path;
}

function engine(env: Record<string, string>, now: () => number) {
  const config = loadConfig({ SATCHEL_CONFIG: '', SATCHEL_DATA_DIR: mkdtempSync(join(tmpdir(), 'satchel-rates-')), ...env });
  return createRateService(config.rates, { defaultFile: DEFAULT_RATES_FILE, now, timeoutMs: 200 });
}

function clock() {
  const c = { t: Date.UTC(2026, 0, 15, 12), now: () => c.t };
  return c;
}

describe('the median of fresh quotes', () => {
  it('one source dead, one lagging past the maximum age, one skewed 10%: the honest median prices', async () => {
    const binance = await server(binanceHandler({ USDTRUB: '80.4' }));
    const p2p = await server(dead);
    const kucoin = await switchable(kucoinHandler({ 'USDT-RUB': '79' }));
    const exmo = await server(exmoHandler({ USDT_RUB: '88.4' }));
    const c = clock();
    const rates = engine(
      {
        ...LIVE,
        SATCHEL_RATES: JSON.stringify({
          sources: {
            binance: { url: binance.url },
            binance_p2p: { url: p2p.url },
            kucoin: { url: kucoin.url },
            exmo: { url: exmo.url },
            static: { enabled: true, file: tableFile({ USDT: '1', RUB: '0.0125' }) }, // 80 RUB per USDT
          },
        }),
      },
      c.now,
    );
    await rates.quote('USDT', 'RUB'); // every source that can answers once
    c.t += 61_000;
    kucoin.use(hang); // it stops answering: its quote from a minute ago is all it has
    const q = await rates.quote('USDT', 'RUB');
    // Fresh: static 80, Binance 80.4, Exmo 88.4 (9.95% off their median 80.4, dropped).
    // Had Kucoin's stale 79 counted, the price would be 80.
    expect(q.rate).toBe('80.2');
    expect(q.source).toBe('median');
    expect(q.quotes).toEqual([
      { source: 'static', price: '80', received_at: c.t, used: true },
      { source: 'Binance', price: '80.4', received_at: c.t, used: true },
      { source: 'Exmo', price: '88.4', received_at: c.t, used: false },
    ]);
    const stats = Object.fromEntries(rates.sourceStats().map((s) => [s.source, s]));
    expect(stats.BinanceP2P).toMatchObject({ errors: 2, received_at: null });
    expect(stats.Kucoin).toMatchObject({ errors: 1, received_at: c.t - 61_000 });
    expect(stats.Exmo!.deviation_percent).toBe('9.9502');
  });

  it('with fewer fresh sources than min_sources left after the outliers, there is no price', async () => {
    const binance = await server(binanceHandler({ BTCUSDT: '65000' }));
    const kucoin = await server(kucoinHandler({ 'BTC-USDT': '71500' })); // 10% off
    const rates = engine(
      { ...LIVE, SATCHEL_RATES: JSON.stringify({ sources: { binance: { url: binance.url }, kucoin: { url: kucoin.url } }, min_sources: 2, max_deviation_percent: 20 }) },
      clock().now,
    );
    // Within a 20% band both count: their median.
    expect((await rates.quote('BTC', 'USD')).rate).toBe('68250');
    const strict = engine({ ...LIVE, SATCHEL_RATES: JSON.stringify({ sources: { binance: { url: binance.url }, kucoin: { url: kucoin.url } }, min_sources: 2 }) }, clock().now);
    // Two sources 10% apart: each is 4.8% from their median, both dropped, nothing left.
    await expect(strict.quote('BTC', 'USD')).rejects.toBeInstanceOf(RateUnavailableError);
  });

  it('a cached quote older than the maximum age is never used', async () => {
    const binance = await switchable(binanceHandler({ BTCUSDT: '65000' }));
    const c = clock();
    const rates = engine({ ...LIVE, SATCHEL_RATES: JSON.stringify({ sources: { binance: { url: binance.url } }, max_age_seconds: 30 }) }, c.now);
    expect((await rates.quote('BTC', 'USD')).rate).toBe('65000');
    binance.use(binanceHandler({ BTCUSDT: '66000' }));
    c.t += 29_999;
    expect((await rates.quote('BTC', 'USD')).rate).toBe('65000'); // cached, still fresh
    expect(binance.seen).toHaveLength(1);
    c.t += 1;
    expect((await rates.quote('BTC', 'USD')).rate).toBe('66000');
    binance.use(dead);
    c.t += 30_000;
    await expect(rates.quote('BTC', 'USD')).rejects.toBeInstanceOf(RateUnavailableError);
  });

  it("the merchant's course_source prices alone, under the same maximum age", async () => {
    const binance = await server(binanceHandler({ BTCUSDT: '65000' }));
    const kucoin = await switchable(kucoinHandler({ 'BTC-USDT': '65500' }));
    const exmo = await server(exmoHandler({ BTC_USD: '65100' }));
    const c = clock();
    const rates = engine({ ...LIVE, SATCHEL_RATES: JSON.stringify({ sources: { binance: { url: binance.url }, kucoin: { url: kucoin.url }, exmo: { url: exmo.url } } }) }, c.now);
    expect(await rates.quote('BTC', 'USD', 'KuCoin')).toEqual({ rate: '65500', source: 'Kucoin', quotes: [{ source: 'Kucoin', price: '65500', received_at: c.t, used: true }] });
    expect((await rates.quote('BTC', 'USD')).rate).toBe('65100');
    c.t += 61_000;
    kucoin.use(dead);
    // The others are fresh, but the merchant asked for KuCoin and KuCoin has nothing fresh.
    await expect(rates.quote('BTC', 'USD', 'Kucoin')).rejects.toMatchObject({ source: 'Kucoin' });
    expect((await rates.quote('BTC', 'USD')).rate).toBe('65050');
  });

  it('BinanceP2P counts only for pairs with a fiat leg (elsewhere it would repeat Binance spot)', async () => {
    const binance = await server(binanceHandler({ BTCUSDT: '65000' }));
    const p2p = await server(p2pHandler({ RUB: ['80', '81'] }));
    const rates = engine({ ...LIVE, SATCHEL_RATES: JSON.stringify({ sources: { binance: { url: binance.url }, binance_p2p: { url: p2p.url } }, min_sources: 2 }) }, clock().now);
    await expect(rates.quote('BTC', 'USD')).rejects.toBeInstanceOf(RateUnavailableError); // one source, not two
    expect((await rates.quote('BTC', 'USD', 'BinanceP2P')).rate).toBe('65000'); // named, it still prices
    const single = engine({ ...LIVE, SATCHEL_RATES: JSON.stringify({ sources: { binance: { url: binance.url }, binance_p2p: { url: p2p.url } } }) }, clock().now);
    expect((await single.quote('BTC', 'USD')).quotes.map((x) => x.source)).toEqual(['Binance']);
    expect((await single.quote('USDT', 'RUB')).quotes.map((x) => x.source)).toEqual(['BinanceP2P']);
  });
});

describe('live mode and test mode', () => {
  it('live mode without an explicit static source never prices from the static table', async () => {
    const down = await server(dead);
    const rates = engine({ ...LIVE, SATCHEL_RATES: JSON.stringify({ sources: { binance: { url: down.url }, exmo: { url: down.url } } }) }, clock().now);
    // The shipped table prices BTC; the live gateway still refuses.
    await expect(rates.quote('BTC', 'USD')).rejects.toBeInstanceOf(RateUnavailableError);
    expect(rates.sourceStats().map((s) => s.source)).toEqual(['Binance', 'Exmo']);
    // By default a live gateway asks the four exchanges, and not the table.
    const config = loadConfig({ SATCHEL_CONFIG: '', SATCHEL_DATA_DIR: mkdtempSync(join(tmpdir(), 'satchel-rates-')), ...LIVE });
    expect(config.rates).toMatchObject({ http: { binance: {}, binance_p2p: {}, kucoin: {}, exmo: {} }, static: { enabled: false } });
  });

  it('test mode prices offline from the static table', async () => {
    const c = clock();
    const rates = engine({ SATCHEL_RATES_FILE: tableFile({ USD: '1', BTC: '60000' }) }, c.now);
    expect(await rates.quote('BTC', 'USD')).toEqual({ rate: '60000', source: 'static', quotes: [{ source: 'static', price: '60000', received_at: c.t, used: true }] });
    expect(rates.sourceStats().map((s) => s.source)).toEqual(['static']);
  });

  it('SATCHEL_HTTP_RATES=1 in test mode adds the exchanges beside the table', async () => {
    const config = loadConfig({ SATCHEL_CONFIG: '', SATCHEL_DATA_DIR: mkdtempSync(join(tmpdir(), 'satchel-rates-')), SATCHEL_HTTP_RATES: '1' });
    expect(config.rates).toMatchObject({ http: { binance: {}, binance_p2p: {}, kucoin: {}, exmo: {} }, static: { enabled: true } });
    expect(config.rates).toMatchObject({ maxAgeSeconds: 60, maxDeviationPercent: '2', minSources: 1 });
  });
});
