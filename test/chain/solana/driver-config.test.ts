// The `solana` driver's settings: what a start refuses, with the setting named.
import { describe, expect, it } from 'vitest';
import { openStorage } from '../../../src/db/dialect.ts';
import { Registry } from '../../../src/registry/index.ts';
import { createSolanaDriver } from '../../../src/chain/solana/config.ts';

const SOL = Registry.load().network('SOL')!;
const storage = openStorage({ sqlitePath: ':memory:' });
const make = (cfg: Record<string, unknown>) => createSolanaDriver(SOL, { driver: 'solana', rpc_url: 'http://127.0.0.1:1', cluster: 'localnet', ...cfg }, { seed: new Uint8Array(), storage });

describe('solana driver settings', () => {
  it('refuses a missing or non-http rpc_url, an unknown cluster, a token that is no mint or not in the registry', () => {
    expect(() => make({ rpc_url: undefined })).toThrow(/networks\.SOL\.rpc_url/);
    expect(() => make({ rpc_url: 'ws://x' })).toThrow(/networks\.SOL\.rpc_url/);
    expect(() => make({ cluster: 'testnet' })).toThrow(/networks\.SOL\.cluster/);
    expect(() => make({ tokens: { USDC: '0xdeadbeef' } })).toThrow(/networks\.SOL\.tokens\.USDC/);
    expect(() => make({ tokens: { DAI: 'EPjFWdd5AufqSSqeM2qFLdkdsQn7y3WR1jQoNtaA5CTs' } })).toThrow(/networks\.SOL\.tokens/);
    expect(() => make({ custody: 'hot' })).toThrow(/custody/);
    expect(() => make({ max_response_bytes: 10 })).toThrow(/max_response_bytes/);
  });

  it('takes the registry mints and confirmations, the operator overrides, and mainnet-beta by default', () => {
    const d = make({ cluster: undefined, tokens: { USDT: 'So11111111111111111111111111111111111111112' } });
    expect(d.cluster).toBe('mainnet-beta');
    expect(d.confirmations).toBe(32);
    const tokens = (d.scanner as unknown as { o: { tokens: { code: string; mint: string }[] } }).o.tokens;
    expect(tokens.map((t) => [t.code, t.mint])).toEqual([
      ['USDT', 'So11111111111111111111111111111111111111112'],
      ['USDC', 'EPjFWdd5AufqSSqeM2qFLdkdsQn7y3WR1jQoNtaA5CTs'],
    ]);
  });
});
