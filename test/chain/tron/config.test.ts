// createTronDriver: the configuration contract of issue 16, from the registry and the operator's
// network settings to the driver; bad settings are refused at start with the key that is wrong.
import { afterAll, describe, expect, it } from 'vitest';
import { mnemonicToSeedSync } from '@scure/bip39';
import { Registry } from '../../../src/registry/index.ts';
import { openStorage } from '../../../src/db/dialect.ts';
import { createTronDriver } from '../../../src/chain/tron/index.ts';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TronWeb } from 'tronweb';
import fixture from './fixtures/forwarder-vectors.json' with { type: 'json' };

const registry = Registry.load();
const storage = openStorage({ sqlitePath: ':memory:' });
afterAll(() => storage.close());
const SEED = mnemonicToSeedSync('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about');
const deps = { seed: SEED, storage };
const TRON = registry.network('TRON')!;
const make = (cfg: Record<string, unknown>) => createTronDriver(TRON, { driver: 'tron', api_url: 'https://tron-node.internal:8090', custody: 'hot', ...cfg }, deps);
const FACTORY = fixture.factory;
const IMPLEMENTATION = fixture.implementation;
const watchOnly = (cfg: Record<string, unknown>) => make({ custody: 'watch-only', factory_address: FACTORY, implementation_address: IMPLEMENTATION, ...cfg });
const dir = mkdtempSync(join(tmpdir(), 'satchel-tron-relayer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
function keyFile(name: string, content: string, mode = 0o600): string {
  const f = join(dir, name);
  writeFileSync(f, content, { mode });
  chmodSync(f, mode);
  return f;
}

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

  it('watch-only (the default custody) needs the forwarder factory, and refuses sweeping', () => {
    expect(() => createTronDriver(TRON, { driver: 'tron', api_url: 'https://tron-node.internal:8090' }, deps)).toThrow(
      'networks.TRON.factory_address: the forwarder factory (and implementation_address) is required in watch-only custody',
    );
    expect(() => watchOnly({ implementation_address: undefined })).toThrow('networks.TRON.implementation_address: required with factory_address');
    expect(() => watchOnly({ factory_address: 'TXYZ' })).toThrow('networks.TRON.factory_address: a TRON contract address');
    expect(() => watchOnly({ sweep: { enabled: true } })).toThrow('networks.TRON.sweep: watch-only custody never sweeps');
    expect(() => make({ flush: { every_seconds: 60 } })).toThrow('networks.TRON.flush: only in watch-only custody');
    const d = watchOnly({});
    expect(d.custody).toBe('watch-only');
    expect(d.flusher?.relayer).toBeNull();
    expect(make({}).flusher).toBeNull();
  });

  it('the flush settings: every_seconds (0: on demand), min_native, min_token', () => {
    expect(() => watchOnly({ flush: { every_seconds: -1 } })).toThrow('networks.TRON.flush.every_seconds');
    expect(() => watchOnly({ flush: { min_native: 1 } })).toThrow('networks.TRON.flush.min_native: a decimal string is required');
    expect(() => watchOnly({ flush: { min_token: { USDT: 10 } } })).toThrow('networks.TRON.flush.min_token.USDT');
    expect(() => watchOnly({ flush: { every: 5 } })).toThrow('networks.TRON.flush.every: unknown setting');
    expect(() => watchOnly({ flush: [] })).toThrow('networks.TRON.flush: an object is required');
    expect(watchOnly({ flush: { every_seconds: 0, min_native: '1', min_token: { usdt: '10' } } }).custody).toBe('watch-only');
  });

  it('relayer_key_file: a hex key (0x optional) or a mnemonic, in a file of mode 0600, never echoed', () => {
    const key = '5a'.repeat(32);
    const expected = TronWeb.address.fromPrivateKey(key) as string;
    expect(watchOnly({ relayer_key_file: keyFile('hex', `${key}\n`) }).flusher?.relayer).toBe(expected);
    expect(watchOnly({ relayer_key_file: keyFile('hex0x', `0x${key.toUpperCase()}`) }).flusher?.relayer).toBe(expected);
    const phrase = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
    // m/44'/195'/0'/0/0 of this phrase, as TronLink and tronweb derive it.
    const fromPhrase = TronWeb.fromMnemonic(phrase, "m/44'/195'/0'/0/0") as { address: string };
    expect(watchOnly({ relayer_key_file: keyFile('words', `${phrase}\n`) }).flusher?.relayer).toBe(fromPhrase.address);

    const open = keyFile('open', key, 0o644);
    expect(() => watchOnly({ relayer_key_file: open })).toThrow(`networks.TRON.relayer_key_file: ${open} has mode 0644: other accounts on this host can read the relayer key; chmod 600 ${open}`);
    expect(() => watchOnly({ relayer_key_file: join(dir, 'missing') })).toThrow('cannot be read (ENOENT)');
    const bad = [keyFile('garbage', 'not a key at all'), keyFile('zero', '0'.repeat(64)), keyFile('words2', phrase.replace('about', 'abandon'))];
    for (const f of bad) {
      let message = '';
      try {
        watchOnly({ relayer_key_file: f });
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(/^networks\.TRON\.relayer_key_file: /);
      expect(message).not.toMatch(/abandon|0{64}|not a key at all/);
    }
  });
});
