// createTronDriver: the configuration contract of issue 16, from the registry and the operator's
// network settings to the driver; bad settings are refused at start with the key that is wrong.
import { afterAll, describe, expect, it } from 'vitest';
import { mnemonicToSeedSync } from '@scure/bip39';
import { Registry } from '../../../src/registry/index.ts';
import { openStorage } from '../../../src/db/dialect.ts';
import { createTronDriver } from '../../../src/chain/tron/index.ts';

const registry = Registry.load();
const storage = openStorage({ sqlitePath: ':memory:' });
afterAll(() => storage.close());
const SEED = mnemonicToSeedSync('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about');
const deps = { seed: SEED, storage };
const TRON = registry.network('TRON')!;
const make = (cfg: Record<string, unknown>) => createTronDriver(TRON, { driver: 'tron', api_url: 'https://tron-node.internal:8090', ...cfg }, deps);

describe('createTronDriver', () => {
  it('takes confirmations and the USDT contract from the registry; fee_limit 50 TRX by default', () => {
    const d = make({ custody: 'hot' });
    expect(d.kind).toBe('tron');
    expect(d.confirmations).toBe(19);
    expect(d.feeLimit).toBe(50_000_000n);
    expect((d as unknown as { tokens: unknown[] }).tokens).toEqual([{ code: 'USDT', decimals: 6, contract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' }]);
    expect(d.hotWallet).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
  });

  it('the contract of the issue: api_url, api_key, confirmations, tokens, fee_limit, sweep, start_block, poll_batch', () => {
    const d = make({
      api_key: 'secret', confirmations: 5, tokens: { usdt: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf' }, fee_limit: '12.5',
      sweep: { enabled: true, resources: 'delegate', min_native: '1', min_token: { USDT: '10' }, every_seconds: 30 }, start_block: 1000, poll_batch: 20,
    });
    expect(d.confirmations).toBe(5);
    expect(d.feeLimit).toBe(12_500_000n);
    expect((d as unknown as { tokens: Array<{ contract: string }> }).tokens[0]!.contract).toBe('TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf');
  });

  it('refuses what is wrong, naming the key', () => {
    expect(() => createTronDriver(TRON, { driver: 'tron' }, deps)).toThrow('networks.TRON.api_url');
    expect(() => make({ api_url: 'ftp://x' })).toThrow('networks.TRON.api_url');
    expect(() => make({ api_key: '' })).toThrow('networks.TRON.api_key');
    expect(() => make({ confirmations: 0 })).toThrow('networks.TRON.confirmations');
    expect(() => make({ tokens: { USDT: '0xdAC17F958D2ee523a2206206994597C13D831ec7' } })).toThrow('networks.TRON.tokens.USDT');
    expect(() => make({ tokens: { USDC: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf' } })).toThrow('USDC not a token of TRON');
    expect(() => make({ fee_limit: 30 })).toThrow('networks.TRON.fee_limit');
    expect(() => make({ fee_limit: '0' })).toThrow('networks.TRON.fee_limit');
    expect(() => make({ poll_batch: 101 })).toThrow('networks.TRON.poll_batch');
    expect(() => make({ sweep: { enabled: true, resources: 'rent' } })).toThrow('networks.TRON.sweep.resources');
    expect(() => make({ sweep: { min_token: { USDT: 10 } } })).toThrow('networks.TRON.sweep.min_token.USDT');
    expect(() => createTronDriver(registry.network('ETH')!, { driver: 'tron', api_url: 'http://x' }, deps)).toThrow('only serves TRON networks');
  });
});
