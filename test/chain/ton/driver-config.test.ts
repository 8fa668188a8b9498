// createTonDriver: the operator's settings for networks.TON, refused at start with the key that is
// wrong; the API key read from api_key_file reaches the node in X-API-Key and nowhere else.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStorage } from '../../../src/db/dialect.ts';
import { migrateToLatest } from '../../../src/db/migrate.ts';
import { Registry } from '../../../src/registry/index.ts';
import { createTonDriver } from '../../../src/chain/ton/config.ts';
import { NodeError } from '../../../src/chain/errors.ts';
import { startToncenterDouble, type TonDouble } from './double/toncenter.ts';

const TON = Registry.load().network('TON')!;
const storage = openStorage({ sqlitePath: ':memory:' });
const dir = mkdtempSync(join(tmpdir(), 'satchel-ton-key-'));
let double: TonDouble;
beforeAll(async () => {
  await migrateToLatest(storage);
  double = await startToncenterDouble({ apiKey: 'secret-key-1' });
});
afterAll(async () => {
  await double?.close();
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
});
const make = (cfg: Record<string, unknown>) => createTonDriver(TON, { driver: 'ton', api_url: 'https://toncenter.example', ...cfg }, { seed: new Uint8Array(), storage });
function keyFile(name: string, content: string, mode = 0o600): string {
  const f = join(dir, name);
  writeFileSync(f, content, { mode });
  chmodSync(f, mode);
  return f;
}

describe('createTonDriver', () => {
  it('builds a driver from the documented settings, USDT defaulting to the registry master', () => {
    const d = make({});
    expect(d.kind).toBe('ton');
    expect(d.confirmations).toBe(1);
    expect(make({ confirmations: 3, network: 'testnet', tokens: { USDT: '0:' + '11'.repeat(32) } }).confirmations).toBe(3);
  });

  it.each([
    [{ api_url: 'ftp://x' }, /networks\.TON\.api_url/],
    [{ api_url: undefined }, /networks\.TON\.api_url/],
    [{ network: 'devnet' }, /networks\.TON\.network: "mainnet" or "testnet"/],
    [{ custody: 'hot' }, /networks\.TON\.custody: TON receives watch-only only/],
    [{ api_key: 'abc' }, /networks\.TON\.api_key: not a setting/],
    [{ tokens: { USDT: 'not-an-address' } }, /networks\.TON\.tokens\.USDT: not a TON jetton master/],
    [{ tokens: { USDT: '-1:' + '11'.repeat(32) } }, /networks\.TON\.tokens\.USDT/],
    [{ tokens: { DOGE: '0:' + '11'.repeat(32) } }, /networks\.TON\.tokens: DOGE/],
    [{ confirmations: 0 }, /networks\.TON\.confirmations/],
    [{ max_response_bytes: 10 }, /max_response_bytes/],
  ])('refuses %j', (cfg, message) => {
    expect(() => make(cfg)).toThrow(message);
  });

  it('reads api_key_file: refuses a file others can read or that holds more than a key, never echoing it', () => {
    expect(() => make({ api_key_file: join(dir, 'missing') })).toThrow(/api_key_file: .* cannot be read \(ENOENT\)/);
    const open = keyFile('open.key', 'leaky-key', 0o644);
    expect(() => make({ api_key_file: open })).toThrow(/chmod 600/);
    const two = keyFile('two.key', 'line one\nline two');
    const err = (() => {
      try {
        make({ api_key_file: two });
      } catch (e) {
        return (e as Error).message;
      }
      return '';
    })();
    expect(err).toMatch(/must hold the API key alone/);
    expect(err).not.toContain('line one');
  });

  it('sends the key in X-API-Key; without it the API refuses', async () => {
    const good = createTonDriver(TON, { driver: 'ton', api_url: double.url, api_key_file: keyFile('good.key', 'secret-key-1\n') }, { seed: new Uint8Array(), storage });
    expect((await good.status()).head).toBe(double.seqno);
    const last = double.requests.at(-1)!;
    expect(last.apiKey).toBe('secret-key-1');
    expect(last.path).toBe('/api/v2/getMasterchainInfo');
    expect(Object.values(last.query)).not.toContain('secret-key-1');
    const none = createTonDriver(TON, { driver: 'ton', api_url: double.url }, { seed: new Uint8Array(), storage });
    const refused = await none.status().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(NodeError);
    expect((refused as NodeError).code).toBe(401);
  });
});
