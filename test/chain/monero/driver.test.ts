// The `monero` driver against a real regtest monerod (test/helpers/monero-rig.ts), on both
// databases: the driver makes and keeps its own view-only wallet RPC and wallet file from a
// merchant's address and view key (nothing set up by hand), and reports payments to the merchant's
// subaddresses: in the pool with no confirmations, then with the block holding them as the first;
// a popped block sends a payment back to the pool, and one that then leaves the pool is withdrawn
// once; the daemon stopped and started again, and the wallet RPC killed, lose and double nothing.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../helpers/backends.ts';
import { startMoneroRig, type MoneroRig, type WalletRpc } from '../../helpers/monero-rig.ts';
import { openStorage, type Storage } from '../../../src/db/dialect.ts';
import { migrateToLatest } from '../../../src/db/migrate.ts';
import { Registry } from '../../../src/registry/index.ts';
import type { ChainSink, IncomingTransfer } from '../../../src/chain/contract.ts';
import { NodeUnreachableError, WrongChainError } from '../../../src/chain/errors.ts';
import { watchPath } from '../../../src/chain/watch-paths.ts';
import { createMoneroDriver } from '../../../src/chain/monero/config.ts';
import type { MoneroDriver } from '../../../src/chain/monero/monero-driver.ts';

const XMR = Registry.load().network('XMR')!;

class Sink implements ChainSink {
  readonly last = new Map<string, IncomingTransfer>();
  readonly calls: IncomingTransfer[] = [];
  readonly dropped_: string[] = [];
  async transfer(t: IncomingTransfer) {
    this.calls.push(t);
    this.last.set(`${t.txid}:${t.index}`, t);
  }
  async dropped(_n: string, txid: string, index: number) {
    this.dropped_.push(`${txid}:${index}`);
  }
  async outgoing() {}
}

let rig: MoneroRig;
let merchant: WalletRpc;
let address: string;
let viewKey: string;
const subaddresses: string[] = [''];

beforeAll(async () => {
  rig = await startMoneroRig();
  merchant = await rig.startWalletRpc();
  await merchant.rpc('create_wallet', { filename: 'merchant', password: '', language: 'English' });
  address = (await merchant.rpc<{ address: string }>('get_address', { account_index: 0 })).address;
  viewKey = (await merchant.rpc<{ key: string }>('query_key', { key_type: 'view_key' })).key;
  for (let i = 1; i <= 8; i++) subaddresses.push((await merchant.rpc<{ address: string }>('create_address', { account_index: 0 })).address);
}, 300_000);

afterAll(async () => {
  await rig?.close();
}, 120_000);

describe.each(await backends())('monero driver on a regtest monerod ($name)', (backend) => {
  let storage: Storage;
  let drop: () => Promise<void>;
  let dataDir: string;
  const drivers: MoneroDriver[] = [];
  const custodyId = randomUUID();

  // One driver at a time holds the wallet files (as one scanning process does).
  const makeDriver = async (cfg: Record<string, unknown> = {}) => {
    for (const old of drivers) await old.close();
    const d = createMoneroDriver(XMR, { driver: 'monero', daemon_url: rig.daemonUrl, network: 'mainnet', confirmations: 10, ...cfg }, { seed: new Uint8Array(), storage }, dataDir);
    drivers.push(d);
    return d;
  };
  const watch = (d: MoneroDriver, indices: number[]) => d.watch(indices.map((i) => ({ address: subaddresses[i]!, path: watchPath(custodyId, i) })));

  beforeAll(async () => {
    const db = await backend.create();
    drop = db.drop;
    storage = openStorage({ databaseUrl: db.databaseUrl, sqlitePath: ':memory:' });
    await migrateToLatest(storage);
    dataDir = mkdtempSync(join(tmpdir(), 'satchel-xmr-gw-'));
    await storage.db
      .insertInto('merchant_custody')
      .values({ id: custodyId, merchant_id: 'm1', network: 'XMR', kind: 'address', material: JSON.stringify({ address, viewKey, startHeight: await rig.height() }), summary: address, actor: 'cli', created_at: Date.now(), replaced_at: null })
      .execute();
  }, 60_000);

  afterAll(async () => {
    for (const d of drivers) await d.close();
    await storage?.close();
    await drop?.();
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('reports a pool payment at 0, then 1 confirmation in its block, then settles at 10; pop and flush withdraw one', async () => {
    const d = await makeDriver();
    watch(d, [1, 2, 3]);
    const sink = new Sink();
    const status = await d.status();
    expect(status.chain).toBe('fakechain');

    const tx1 = await rig.pay(subaddresses[1]!, 1_500_000_000_000n); // 1.5 XMR
    await d.poll(sink);
    expect(sink.last.get(`${tx1}:1`)).toMatchObject({ network: 'XMR', currency: 'XMR', to: subaddresses[1], amount: '1.5', blockHeight: null, confirmations: 0 });

    const before = await rig.height();
    await rig.mine(1);
    await d.poll(sink);
    expect(sink.last.get(`${tx1}:1`)).toMatchObject({ blockHeight: before, confirmations: 1 });

    // A second payment, mined, then its block popped: back to the pool, then flushed: withdrawn.
    const tx2 = await rig.pay(subaddresses[2]!, 250_000_000n);
    await rig.mine(1);
    await d.poll(sink);
    expect(sink.last.get(`${tx2}:2`)).toMatchObject({ amount: '0.00025', confirmations: 1 });
    await rig.popBlocks(1);
    await d.poll(sink);
    expect(sink.last.get(`${tx2}:2`)).toMatchObject({ blockHeight: null, confirmations: 0 });
    expect(sink.last.get(`${tx1}:1`)).toMatchObject({ blockHeight: before, confirmations: 1 });
    await rig.flushPool([tx2]);
    await d.poll(sink);
    expect(sink.dropped_).toEqual([`${tx2}:2`]);
    await d.poll(sink);
    expect(sink.dropped_).toEqual([`${tx2}:2`]);

    await rig.mine(8); // the popped block made the chain one block shorter: 9 deep now
    await d.poll(sink);
    expect(sink.last.get(`${tx1}:1`)).toMatchObject({ confirmations: 9 });
    await rig.mine(1);
    await d.poll(sink);
    expect(sink.last.get(`${tx1}:1`)).toMatchObject({ confirmations: 10 });
    const settled = sink.calls.length;
    await rig.mine(1);
    await d.poll(sink);
    // Final: not reported again, and not withdrawn.
    expect(sink.calls.length).toBe(settled);
    expect(sink.dropped_).toEqual([`${tx2}:2`]);
    await d.close();
  }, 300_000);

  it('survives the daemon stopped and started, and its wallet RPC killed, without losing or doubling', async () => {
    const d = await makeDriver();
    watch(d, [1, 2, 3, 4, 5, 6, 7, 8]);
    const sink = new Sink();
    await d.poll(sink);
    const tx = await rig.pay(subaddresses[8]!, 2_000_000_000_000n);
    await rig.mine(1);
    await rig.stopDaemon();
    await expect(d.poll(sink)).rejects.toBeInstanceOf(NodeUnreachableError);
    await rig.startDaemon();
    await d.poll(sink);
    expect(sink.last.get(`${tx}:8`)).toMatchObject({ amount: '2', confirmations: 1 });

    d.wallets['child']?.kill('SIGKILL');
    await rig.mine(9);
    const starts = d.wallets.starts;
    await d.poll(sink).catch(() => d.poll(sink));
    expect(d.wallets.starts).toBe(starts + 1);
    expect(sink.last.get(`${tx}:8`)).toMatchObject({ confirmations: 10 });
    expect([...sink.last.keys()]).toEqual([`${tx}:8`]);
    await d.close();
  }, 300_000);

  it('refuses a daemon of another network type', async () => {
    const d = await makeDriver({ network: 'stagenet' });
    await expect(d.poll(new Sink())).rejects.toBeInstanceOf(WrongChainError);
  });
});
