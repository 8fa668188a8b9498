// The `rates` settings as an operator writes them (SATCHEL_RATES, the config file's `rates`, the
// older SATCHEL_HTTP_RATES and SATCHEL_RATES_FILE): what they enable, and the refusal at start
// (a ConfigError naming the setting, which main.ts prints and exits on) of what cannot run.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

const LIVE = { SATCHEL_NETWORKS: JSON.stringify({ ETH: { driver: 'evm', custody: 'hot', rpc_url: 'http://127.0.0.1:9', chain_id: 1 } }) };
const load = (env: Record<string, string>) => loadConfig({ SATCHEL_CONFIG: '', SATCHEL_DATA_DIR: mkdtempSync(join(tmpdir(), 'satchel-rates-')), ...env });
const refusal = (env: Record<string, string>) => {
  try {
    load(env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('accepted');
};

describe('rates settings', () => {
  it('enables exactly the sources listed, each at its URL; static only when enabled', () => {
    const rates = load({
      ...LIVE,
      SATCHEL_HTTP_RATES: '1', // ignored once sources are listed
      SATCHEL_RATES: JSON.stringify({ sources: { kucoin: { url: 'http://proxy.internal:8080/kucoin' }, static: { enabled: false, file: 'x.json' } }, max_age_seconds: 30, max_deviation_percent: '1.5', min_sources: 1 }),
    }).rates;
    expect(rates).toEqual({ http: { kucoin: { url: 'http://proxy.internal:8080/kucoin' } }, static: { enabled: false, file: 'x.json' }, maxAgeSeconds: 30, maxDeviationPercent: '1.5', minSources: 1 });
    expect(load({ ...LIVE, SATCHEL_RATES: JSON.stringify({ sources: { exmo: {}, static: { enabled: true } } }) }).rates).toMatchObject({ http: { exmo: {} }, static: { enabled: true } });
  });

  it('reads the config file, and SATCHEL_RATES over it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'satchel-rates-'));
    try {
      const file = join(dir, 'satchel.config.json');
      writeFileSync(file, JSON.stringify({ networks: JSON.parse(LIVE.SATCHEL_NETWORKS), rates: { sources: { binance: {}, exmo: {} }, min_sources: 2 } }));
      expect(loadConfig({ SATCHEL_CONFIG: file, SATCHEL_DATA_DIR: dir }).rates).toMatchObject({ http: { binance: {}, exmo: {} }, minSources: 2 });
      expect(loadConfig({ SATCHEL_CONFIG: file, SATCHEL_DATA_DIR: dir, SATCHEL_RATES: '{"sources":{"kucoin":{}}}' }).rates).toMatchObject({ http: { kucoin: {} }, minSources: 1 });
      const bad = join(dir, 'bad.json');
      writeFileSync(bad, JSON.stringify({ rates: { max_age_seconds: -5 } }));
      expect(() => loadConfig({ SATCHEL_CONFIG: bad, SATCHEL_DATA_DIR: dir })).toThrow('rates.max_age_seconds');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('without a source list: the exchanges in live mode, the table in test mode, SATCHEL_HTTP_RATES as before', () => {
    expect(load(LIVE).rates).toMatchObject({ http: { binance: {}, binance_p2p: {}, kucoin: {}, exmo: {} }, static: { enabled: false } });
    expect(load({}).rates).toMatchObject({ http: {}, static: { enabled: true } });
    const mine = join(mkdtempSync(join(tmpdir(), 'satchel-rates-')), 'mine.json');
    writeFileSync(mine, '{"usd":{"USD":"1"}}');
    expect(load({ SATCHEL_RATES_FILE: mine, SATCHEL_RATES: '{"max_age_seconds": 10}' }).rates).toMatchObject({ static: { enabled: true, file: mine }, maxAgeSeconds: 10 });
  });

  it('refuses what cannot run, naming the setting', () => {
    expect(refusal({ SATCHEL_RATES: '{"sources":{"coinbase":{}}}' })).toContain('SATCHEL_RATES.sources.coinbase');
    expect(refusal({ SATCHEL_RATES: '{"max_age_seconds":-1}' })).toContain('SATCHEL_RATES.max_age_seconds');
    expect(refusal({ SATCHEL_RATES: '{"max_age_seconds":"60"}' })).toContain('SATCHEL_RATES.max_age_seconds');
    expect(refusal({ SATCHEL_RATES: '{"max_deviation_percent":-2}' })).toContain('SATCHEL_RATES.max_deviation_percent');
    expect(refusal({ SATCHEL_RATES: '{"min_sources":0}' })).toContain('SATCHEL_RATES.min_sources');
    expect(refusal({ SATCHEL_RATES: '{"min_sources":1.5}' })).toContain('SATCHEL_RATES.min_sources');
    expect(refusal({ ...LIVE, SATCHEL_RATES: '{"sources":{"binance":{},"kucoin":{}},"min_sources":3}' })).toContain('SATCHEL_RATES.min_sources is 3');
    expect(refusal({ SATCHEL_RATES: '{"sources":{"binance":{"url":"ftp://x"}}}' })).toContain('SATCHEL_RATES.sources.binance.url');
    expect(refusal({ SATCHEL_RATES: '{"sources":{"binance":{"uri":"http://x"}}}' })).toContain('SATCHEL_RATES.sources.binance.uri');
    expect(refusal({ SATCHEL_RATES: '{"max_age":60}' })).toContain('SATCHEL_RATES.max_age');
    expect(refusal({ SATCHEL_RATES: '{"sources":' })).toContain('SATCHEL_RATES');
    expect(refusal({ SATCHEL_RATES: '{"sources":{"static":{"enabled":true,"file":"/nonexistent/rates.json"}}}' })).toContain('static');
    // Live, with the exchanges switched off and the table not named: nothing could price.
    expect(refusal({ ...LIVE, SATCHEL_HTTP_RATES: '0' })).toContain('"static": {"enabled": true}');
    expect(refusal({ ...LIVE, SATCHEL_RATES: '{"sources":{"static":{}}}' })).toContain('No rate source is enabled');
  });
});
