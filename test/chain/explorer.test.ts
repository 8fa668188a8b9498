// When a transaction gets an explorer link: never when simulated or on a local chain (no public
// explorer knows it), the operator's own explorer when configured, else the registry's.
import { describe, expect, it } from 'vitest';
import { explorerTemplate } from '../../src/chain/explorer.ts';
import { families } from '../../src/compose.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { Registry } from '../../src/registry/index.ts';

const registry = Registry.load();
const net = (code: string) => registry.network(code)!;
const OWN = 'https://explorer.shop.example/tx/{txid}';

describe('explorer links', () => {
  it('a real network on its main chain links to the registry explorer', () => {
    expect(explorerTemplate(families, net('ETH'), { driver: 'evm' }, false)).toBe('https://etherscan.io/tx/{txid}');
    expect(explorerTemplate(families, net('LTC'), { driver: 'bitcoin-core' }, false)).toBe('https://blockchair.com/litecoin/transaction/{txid}');
  });

  it('none for a simulated network, even with an explorer configured', () => {
    expect(explorerTemplate(families, net('TRON'), undefined, true)).toBeNull();
    expect(explorerTemplate(families, net('TRON'), { explorer_url: OWN }, true)).toBeNull();
  });

  it('none for a local EVM chain (31337) or a regtest Bitcoin-family chain, unless the operator names one', () => {
    expect(explorerTemplate(families, net('ETH'), { driver: 'evm', chain_id: 31337 }, false)).toBeNull();
    expect(explorerTemplate(families, { ...net('LTC'), chain: 'regtest' }, { driver: 'bitcoin-core', chain: 'regtest' }, false)).toBeNull();
    expect(explorerTemplate(families, net('ETH'), { driver: 'evm', chain_id: 31337, explorer_url: OWN }, false)).toBe(OWN);
  });

  it("the operator's explorer_url replaces the registry's", () => {
    expect(explorerTemplate(families, net('BSC'), { driver: 'evm', explorer_url: OWN }, false)).toBe(OWN);
  });

  it('the configuration refuses an explorer_url that is not http(s) or has no {txid}', () => {
    const load = (explorer_url: unknown) => () => loadConfig({ SATCHEL_DATA_DIR: '/nonexistent', SATCHEL_NETWORKS: JSON.stringify({ ETH: { explorer_url } }) });
    expect(load('javascript:alert("{txid}")')).toThrow(new ConfigError('networks.ETH.explorer_url must start with http:// or https://'));
    expect(load('https://explorer.example/tx/')).toThrow(/networks\.ETH\.explorer_url must contain \{txid\}/);
    expect(load(42)).toThrow(ConfigError);
    expect(load(OWN)().networks.ETH?.explorer_url).toBe(OWN);
  });
});
