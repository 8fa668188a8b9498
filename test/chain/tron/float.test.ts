// The TRON driver on a watch-only network (the node double): it never reads the gateway's seed, and
// pays from the payout float's key (a hex key or m/44'/195'/0'/0/0 of a mnemonic), or from nothing
// when no float is configured.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { TronWeb } from 'tronweb';
import { openStorage, type Storage } from '../../../src/db/dialect.ts';
import { migrateToLatest } from '../../../src/db/migrate.ts';
import { Registry } from '../../../src/registry/index.ts';
import { createTronDriver } from '../../../src/chain/tron/index.ts';
import { HotWalletShortError } from '../../../src/chain/errors.ts';
import { TronNodeDouble } from './node-double.ts';
import fixture from './fixtures/forwarder-vectors.json' with { type: 'json' };
import { tronDb } from '../../../src/chain/tron/schema.ts';
import { TRON_PAYER, TRON_USDT, TRX } from '../gateway-setup.ts';

const PHRASE = 'legal winner thank year wave sausage worth useful legal winner thank yellow';

describe('a watch-only TRON network pays from its float', () => {
  let node: TronNodeDouble;
  let storage: Storage;
  let dir: string;
  const TRON = Registry.load().network('TRON')!;
  const seedless = () => ({
    get seed(): Uint8Array {
      throw new Error('the seed was read');
    },
    storage,
  });

  beforeAll(async () => {
    node = await new TronNodeDouble({ solidDepth: 2 }).start();
    node.token(TRON_USDT, TRON_PAYER, TRX('1000'));
    node.mine();
    dir = mkdtempSync(join(tmpdir(), 'satchel-tron-float-'));
    storage = openStorage({ sqlitePath: join(dir, 'db.sqlite') });
    await migrateToLatest(storage);
  });
  afterAll(async () => {
    await storage?.close();
    await node?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a TRX payout is signed by the float (a mnemonic\'s m/44\'/195\'/0\'/0/0) and mined; the seed is never read', async () => {
    const keyFile = join(dir, 'tron-float.key');
    writeFileSync(keyFile, `${PHRASE}\n`, { mode: 0o600 });
    const d = createTronDriver(TRON, { driver: 'tron', api_url: node.url, factory_address: fixture.factory, implementation_address: fixture.implementation, confirmations: 2, tokens: { USDT: TRON_USDT }, payout_float: { key_file: keyFile } }, seedless());
    const float = TronWeb.fromMnemonic(PHRASE).address;
    expect(d.hotWallet).toBe(float);
    node.fund(float, TRX('100'));
    node.token(TRON_USDT, float, TRX('50'));
    expect(await d.payoutWallet()).toEqual({ address: float, balances: { TRX: '100', USDT: '50' } });

    const to = TRON_PAYER;
    const before = node.trx(to);
    const req = { id: randomUUID(), network: 'TRON', currency: 'TRX', to, amount: '3', priority: 'recommended' as const };
    expect(await d.canCover(req)).toEqual({ covered: true });
    const { txid } = await d.send(req);
    node.mine();
    expect(node.trx(to) - before).toBe(TRX('3'));
    // The float paid it: its TRX went down by the amount (and the payee's activation), and the
    // transaction the driver stored is the float's.
    expect(TRX('100') - node.trx(float)).toBeGreaterThanOrEqual(TRX('3'));
    const [row] = await tronDb(storage.db).selectFrom('scan_outgoing').selectAll().where('txid', '=', txid).execute();
    expect(row).toMatchObject({ kind: 'payout', from_address: float, to_address: to, amount: '3' });
    await d.close();
  });

  it('without a float nothing can be paid: coverage says so, a send waits as a shortfall', async () => {
    const d = createTronDriver(TRON, { driver: 'tron', api_url: node.url, factory_address: fixture.factory, implementation_address: fixture.implementation, tokens: { USDT: TRON_USDT } }, seedless());
    const req = { id: randomUUID(), network: 'TRON', currency: 'USDT', to: TRON_PAYER, amount: '1', priority: 'recommended' as const };
    expect(await d.canCover(req)).toEqual({ covered: false, currency: 'USDT', message: 'TRON has no payout float configured' });
    await expect(d.send(req)).rejects.toBeInstanceOf(HotWalletShortError);
    expect(await d.payoutWallet()).toBeNull();
    expect(() => d.hotWallet).toThrow(/no payout float configured/);
    await d.close();
  });
});
