// The payout float's settings as a start reads them (src/chain/payout-float.ts): the key file (a hex
// key or a mnemonic, the chain's standard first account, mode 0600 only), the caps (decimal strings
// per currency of the network), SATCHEL_PAYOUT_KEY_FILE, and the refusals, each naming the setting
// and never repeating the secret.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { TronWeb } from 'tronweb';
import { loadConfig, type NetworkConfig } from '../../src/config.ts';
import { createContext, families } from '../../src/compose.ts';
import { Registry } from '../../src/registry/index.ts';
import { withPayoutFloats } from '../../src/chain/payout-float.ts';
import { tronFloatSigner } from '../../src/chain/tron/float.ts';
import { evmFloatAccount } from '../../src/chain/evm/float.ts';

const PHRASE = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
const HEX = '4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318';
const ETH = { driver: 'evm', rpc_url: 'http://127.0.0.1:1', chain_id: 1 };

describe('payout float settings', () => {
  let dir: string;
  const registry = Registry.load();
  const file = (name: string, text: string, mode = 0o600) => {
    const path = join(dir, name);
    writeFileSync(path, text, { mode });
    chmodSync(path, mode);
    return path;
  };
  const check = (networks: Record<string, NetworkConfig>, payoutKeyFile?: string) => withPayoutFloats({ networks, payoutKeyFile }, registry, families);

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'satchel-float-settings-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a mnemonic is the chain\'s standard first account: m/44\'/60\'/0\'/0/0 on EVM, m/44\'/195\'/0\'/0/0 on TRON', () => {
    expect(evmFloatAccount(PHRASE).address).toBe(mnemonicToAccount(PHRASE).address);
    expect(tronFloatSigner(` ${PHRASE}\n`).address).toBe(TronWeb.fromMnemonic(PHRASE).address);
    // A hex key, with or without 0x, is that key's account.
    expect(evmFloatAccount(HEX).address).toBe(privateKeyToAccount(`0x${HEX}`).address);
    expect(evmFloatAccount(`0x${HEX}`).address).toBe(privateKeyToAccount(`0x${HEX}`).address);
    expect(tronFloatSigner(HEX).address).toBe(TronWeb.address.fromPrivateKey(HEX));
  });

  it('caps and key file are accepted as documented', () => {
    const key = file('ok.key', `${HEX}\n`);
    const out = check({ ETH: { ...ETH, payout_float: { key_file: key, max_per_payout: { ETH: '1', usdt: '1000' }, max_per_day: { ETH: '5', USDT: '20000' } } } });
    expect(out.networks.ETH!.payout_float).toMatchObject({ key_file: key });
  });

  it('SATCHEL_PAYOUT_KEY_FILE gives a key file to every watch-only network that takes a float and names none', () => {
    const env = file('env.key', PHRASE);
    const own = file('own.key', HEX);
    const out = check(
      {
        ETH: { ...ETH, payout_float: { max_per_day: { USDT: '100' } } },
        BSC: { ...ETH, chain_id: 56, payout_float: { key_file: own } },
        POLYGON: { ...ETH, chain_id: 137, custody: 'hot' },
        LTC: { driver: 'bitcoin-core', rpc_url: 'http://127.0.0.1:1' },
      },
      env,
    );
    expect(out.networks.ETH!.payout_float).toEqual({ key_file: env, max_per_day: { USDT: '100' } });
    expect(out.networks.BSC!.payout_float).toEqual({ key_file: own });
    // Hot custody pays from the seed; the Bitcoin family has no float yet: neither takes the file.
    expect(out.networks.POLYGON!.payout_float).toBeUndefined();
    expect(out.networks.LTC!.payout_float).toBeUndefined();
  });

  it('refuses a key file others can read, naming the setting and the fix', () => {
    const key = file('open.key', HEX, 0o644);
    expect(() => check({ ETH: { ...ETH, payout_float: { key_file: key } } })).toThrow(
      `networks.ETH.payout_float.key_file: the key file ${key} has mode 0644; other accounts on this host could read the float's key. Run: chmod 600 ${key}`,
    );
    expect(() => check({ ETH: { ...ETH, payout_float: { key_file: join(dir, 'missing.key') } } })).toThrow(/networks\.ETH\.payout_float\.key_file: the key file .* cannot be read/);
    expect(() => check({ ETH: { ...ETH } }, join(dir, 'missing.key'))).toThrow(/networks\.ETH\.payout_float\.key_file/);
  });

  it('refuses a key file that holds neither a key nor a mnemonic, without repeating it', () => {
    const words = 'legal winner thank year wave sausage worth useful legal winner thank thank';
    for (const [text, why] of [
      ['not a key at all', /neither 64 hex digits nor a BIP-39 mnemonic/],
      [words, /not a valid BIP-39 mnemonic/],
      ['0'.repeat(64), /not a valid secp256k1 key/],
    ] as const) {
      const key = file(`bad-${Math.random()}.key`, text);
      let message = '';
      try {
        check({ ETH: { ...ETH, payout_float: { key_file: key } } });
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message).toMatch(why);
      expect(message).toMatch(/^networks\.ETH\.payout_float\.key_file: /);
      expect(message).toContain('a hex private key (0x optional) or a BIP-39 mnemonic');
      expect(message).not.toContain(text);
    }
  });

  it('refuses caps that are not decimal strings of the network\'s currencies, naming the setting', () => {
    const key = file('caps.key', HEX);
    const float = (caps: Record<string, unknown>) => ({ ETH: { ...ETH, payout_float: { key_file: key, ...caps } } });
    expect(() => check(float({ max_per_payout: { USDT: 1000 } }))).toThrow(/^networks\.ETH\.payout_float\.max_per_payout\.USDT: a decimal string above 0 is required/);
    expect(() => check(float({ max_per_day: { USDT: '-5' } }))).toThrow(/^networks\.ETH\.payout_float\.max_per_day\.USDT: a decimal string above 0/);
    expect(() => check(float({ max_per_day: { BTC: '1' } }))).toThrow(/^networks\.ETH\.payout_float\.max_per_day\.BTC: not a currency of ETH/);
    expect(() => check(float({ max_per_payout: { USDT: '1.0000001' } }))).toThrow(/^networks\.ETH\.payout_float\.max_per_payout\.USDT: USDT has 6 decimal places/);
    expect(() => check(float({ max_per_payout: ['1'] }))).toThrow(/^networks\.ETH\.payout_float\.max_per_payout: an object of decimal strings/);
    expect(() => check(float({ max_per_payout: { ETH: '6' }, max_per_day: { ETH: '5' } }))).toThrow(/^networks\.ETH\.payout_float\.max_per_payout\.ETH: 6 is more than max_per_day\.ETH \(5\)/);
    expect(() => check(float({ max_daily: { ETH: '5' } }))).toThrow(/^networks\.ETH\.payout_float\.max_daily is not a setting \(known: key_file, max_per_payout, max_per_day\)/);
    expect(() => check({ ETH: { ...ETH, payout_float: { max_per_day: { ETH: '5' } } } })).toThrow(/^networks\.ETH\.payout_float\.key_file: the path of the float's key file is required \(or set SATCHEL_PAYOUT_KEY_FILE\)/);
  });

  it('refuses a float where none is used: hot custody, or a family without a float form', () => {
    const key = file('where.key', HEX);
    expect(() => check({ ETH: { ...ETH, custody: 'hot', payout_float: { key_file: key } } })).toThrow(/^networks\.ETH\.payout_float: a payout float is only used on a watch-only network/);
    expect(() => check({ LTC: { driver: 'bitcoin-core', rpc_url: 'http://127.0.0.1:1', payout_float: { key_file: key } } })).toThrow(/^networks\.LTC\.payout_float: Litecoin has no payout float yet/);
  });

  it('a gateway does not start with a float setting it cannot use', async () => {
    const key = file('start.key', HEX, 0o640);
    const config = loadConfig({
      SATCHEL_DATA_DIR: join(dir, 'data'),
      SATCHEL_MNEMONIC: PHRASE,
      SATCHEL_HTTP_RATES: '0',
      SATCHEL_RATES: JSON.stringify({ sources: { static: { enabled: true } } }),
      SATCHEL_NETWORKS: JSON.stringify({ ETH: { ...ETH, payout_float: { key_file: key } } }),
    });
    await expect(createContext(config)).rejects.toThrow(/networks\.ETH\.payout_float\.key_file: .* has mode 0640/);
  });
});
