// createEvmDriver: from the registry and the operator's network configuration to the driver.
import { afterAll, describe, expect, it } from 'vitest';
import { mnemonicToAccount } from 'viem/accounts';
import { Registry } from '../../../src/registry/index.ts';
import { openStorage } from '../../../src/db/dialect.ts';
import { createEvmDriver, hotWalletPath, type EvmDriver } from '../../../src/chain/evm/index.ts';
import { Chains } from '../../../src/chain/networks.ts';
import { driverFactories } from '../../../src/compose.ts';
import type { Config } from '../../../src/config.ts';
import { MNEMONIC, SEED } from './setup.ts';

const registry = Registry.load();
const storage = openStorage({ sqlitePath: ':memory:' });
afterAll(() => storage.close());
const deps = { seed: SEED, storage };
const tokensOf = (d: ReturnType<typeof createEvmDriver>) => (d as unknown as { tokens: Array<{ code: string; contract: string; decimals: number }> }).tokens;

describe('createEvmDriver', () => {
  it('takes chain id, confirmations and token contracts from the registry by default', () => {
    const d = createEvmDriver(registry.network('ETH')!, { driver: 'evm', rpc_url: 'http://127.0.0.1:8545' }, deps);
    expect(d.kind).toBe('evm');
    expect(d.chainId).toBe(1);
    expect(d.network.confirmations).toBe(12);
    expect(tokensOf(d)).toEqual([
      { code: 'USDT', contract: '0xdAC17F958D2ee523a2206206994597C13D831ec7', decimals: 6 },
      { code: 'USDC', contract: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', decimals: 6 },
    ]);
  });

  it('applies the overrides of a local chain: chain id, confirmations, its own test tokens', () => {
    const d = createEvmDriver(
      registry.network('BSC')!,
      { driver: 'evm', rpc_url: 'http://127.0.0.1:8545', chain_id: 31337, confirmations: 2, tokens: { usdt: '0x5fbdb2315678afecb367f032d93f642f64180aa3' } },
      deps,
    );
    expect(d.chainId).toBe(31337);
    expect(d.network.chain_id).toBe(31337);
    expect(d.network.confirmations).toBe(2);
    expect(d.network.code).toBe('BSC');
    expect(tokensOf(d)[0]).toEqual({ code: 'USDT', contract: '0x5FbDB2315678afecb367f032d93F642f64180aa3', decimals: 18 });
  });

  it('puts the hot wallet at m/44\'/60\'/1\'/0/0 on every EVM network in hot custody; watch-only has none but a payout float', () => {
    const expected = mnemonicToAccount(MNEMONIC, { accountIndex: 1, addressIndex: 0 }).address;
    expect(hotWalletPath(60)).toBe("m/44'/60'/1'/0/0");
    for (const code of ['ETH', 'BSC', 'POLYGON', 'ARBITRUM', 'AVALANCHE']) {
      expect(createEvmDriver(registry.network(code)!, { rpc_url: 'http://node:8545', custody: 'hot' }, deps).hotWallet).toBe(expected);
      // Watch-only (the default) never reads the seed: without a float nothing can pay.
      const seedless = { ...deps, get seed(): Uint8Array { throw new Error('the seed was read'); } };
      expect(() => createEvmDriver(registry.network(code)!, { rpc_url: 'http://node:8545' }, seedless).hotWallet).toThrow(/no payout float configured/);
    }
  });

  it('refuses incomplete or wrong configuration', () => {
    const eth = registry.network('ETH')!;
    expect(() => createEvmDriver(eth, { driver: 'evm' }, deps)).toThrow(/rpc_url/);
    expect(() => createEvmDriver(eth, { rpc_url: 'ws://x' }, deps)).toThrow(/rpc_url/);
    expect(() => createEvmDriver(eth, { rpc_url: 'http://x', confirmations: 0 }, deps)).toThrow(/confirmations/);
    expect(() => createEvmDriver(eth, { rpc_url: 'http://x', tokens: { DAI: '0x5fbdb2315678afecb367f032d93f642f64180aa3' } }, deps)).toThrow(/DAI/);
    expect(() => createEvmDriver(eth, { rpc_url: 'http://x', tokens: { USDT: 'nope' } }, deps)).toThrow(/USDT/);
    expect(() => createEvmDriver(eth, { rpc_url: 'http://x', sweep: { enabled: true, min_native: 1 } }, deps)).toThrow(/min_native/);
    expect(() => createEvmDriver(registry.network('BTC')!, { rpc_url: 'http://x' }, deps)).toThrow(/EVM/);
  });

  it('plugs into the driver registry from the gateway context', () => {
    const config = { networks: { ARBITRUM: { driver: 'evm', rpc_url: 'http://arb:8547', confirmations: 5, custody: 'hot' } } } as unknown as Config;
    const chains = new Chains({ config, registry, storage, seed: () => SEED, now: Date.now, factories: driverFactories });
    const d = chains.driver('arbitrum') as EvmDriver;
    expect([d.kind, d.network.code, d.chainId, d.network.confirmations]).toEqual(['evm', 'ARBITRUM', 42161, 5]);
  });

  it('reads the sweep policy', () => {
    const d = createEvmDriver(
      registry.network('POLYGON')!,
      { rpc_url: 'http://x', sweep: { enabled: true, min_native: '0.5', min_token: { usdt: '20' } } },
      deps,
    );
    expect((d as unknown as { sweepPolicy: unknown }).sweepPolicy).toEqual({ enabled: true, minNative: '0.5', minToken: { USDT: '20' }, everyMs: 60_000 });
  });
});
