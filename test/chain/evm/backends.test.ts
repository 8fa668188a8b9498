// The driver's own tables on both databases (D7), and one scanner per network on PostgreSQL (D8):
// another process takes over when the one holding the advisory lock dies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEther, parseUnits } from 'viem';
import { backends } from '../../helpers/backends.ts';
import type { Storage } from '../../../src/db/dialect.ts';
import { EvmDriver } from '../../../src/chain/evm/evm-driver.ts';
import * as m004 from '../../../src/db/migrations/004_evm.ts';
import * as m021 from '../../../src/db/migrations/021_scan_tables.ts';
import { evmDb } from '../../../src/chain/evm/schema.ts';
import { CONFIRMATIONS, RecordingSink, depositAddress, driverOptions, makeDriver, newStorage, startFixture, type Fixture, watched } from './setup.ts';

const list = await backends();
let f: Fixture;

beforeAll(async () => {
  f = await startFixture();
  await f.usdt.mint(f.anvil.account(1).address, parseUnits('1000', 6));
  await f.anvil.mine();
});
afterAll(async () => {
  await f?.anvil.stop();
});

describe.each(list)('EvmDriver on $name', (backend) => {
  let db: Awaited<ReturnType<typeof backend.create>>;
  const opened: Storage[] = [];
  const open = async () => {
    const s = await newStorage(db.databaseUrl);
    opened.push(s);
    return s;
  };
  beforeAll(async () => {
    db = await backend.create();
  });
  afterAll(async () => {
    for (const s of opened) await s.close().catch(() => {});
    await db?.drop();
  });

  it('detects, withdraws on a reorg, pays out, sweeps and resumes after a crash', async () => {
    const storage = await open();
    const sink = new RecordingSink();
    const driver = makeDriver(f, storage, {
      startBlock: (await f.anvil.head()) + 1,
      sweep: { enabled: true, minNative: '0', minToken: {} },
    });
    await f.anvil.wallet(0).sendTransaction({ to: driver.hotWallet, value: parseEther('2') });
    const a = await depositAddress(storage, 7);
    const b = await depositAddress(storage, 8);
    driver.watch(watched(a));
    driver.watch(watched(b));
    const native = await f.anvil.wallet(1).sendTransaction({ to: a as `0x${string}`, value: parseEther('0.4') });
    const token = await f.usdt.transfer(1, a, 9_990_000n);
    await f.anvil.mine();
    await driver.poll(sink);
    expect(sink.transfers().map((t) => [t.txid, t.amount, t.confirmations])).toEqual([
      [native, '0.4', 1],
      [token, '9.99', 1],
    ]);

    const snap = await f.anvil.rpc<string>('evm_snapshot');
    const gone = await f.anvil.wallet(1).sendTransaction({ to: b as `0x${string}`, value: parseEther('0.1') });
    await f.anvil.mine();
    await driver.poll(sink);
    await f.anvil.rpc('evm_revert', [snap]);
    await f.anvil.mine(2);
    await driver.poll(sink);
    expect(sink.drops()).toEqual([{ txid: gone, index: 0 }]);

    const { txid } = await driver.send({ id: `p-${backend.name}`, network: 'ETH', currency: 'ETH', to: f.anvil.account(3).address, amount: '0.5', priority: 'high' });
    await f.anvil.mine(CONFIRMATIONS);
    await driver.poll(sink);
    expect(sink.outgoings(txid)).toEqual([{ txid, status: 'confirmed', confirmations: CONFIRMATIONS }]);
    expect(sink.transfers({ txid: native }).at(-1)?.confirmations).toBe(CONFIRMATIONS);

    const hotUsdt = await f.usdt.balanceOf(driver.hotWallet);
    for (let i = 0; i < 4; i++) {
      await driver.sweep();
      await f.anvil.mine();
      await driver.poll(sink);
    }
    await driver.sweep();
    const moved = await evmDb(storage.db).selectFrom('evm_movements').select(['kind', 'currency', 'status']).orderBy('kind').orderBy('currency').execute();
    // The address holds ETH too, so the token sweep pays its own gas: no top-up needed.
    expect(moved).toEqual([
      { kind: 'sweep', currency: 'ETH', status: 'done' },
      { kind: 'sweep', currency: 'USDT', status: 'done' },
    ]);
    expect((await f.usdt.balanceOf(driver.hotWallet)) - hotUsdt).toBe(9_990_000n);

    class CrashingDriver extends EvmDriver {
      protected override async broadcast(): Promise<void> {
        throw new Error('process killed');
      }
    }
    const req = { id: `crash-${backend.name}`, network: 'ETH', currency: 'USDT', to: f.anvil.account(3).address, amount: '1', priority: 'recommended' } as const;
    await expect(new CrashingDriver(driverOptions(f, storage)).send(req)).rejects.toThrow('process killed');
    const again = await driver.send(req);
    await f.anvil.mine();
    const receipt = await f.anvil.pub.getTransactionReceipt({ hash: again.txid as `0x${string}` });
    expect(receipt.status).toBe('success');
    await driver.close();
    await storage.close(); // (PostgreSQL: ends the session holding the scanner lock)
  });

  it.runIf(backend.name === 'postgres')('runs one scanner per network; another takes over when it dies', async () => {
    for (const s of opened.splice(0)) await s.close().catch(() => {}); // no other scanner around
    const first = await open();
    const second = await open();
    const to = await depositAddress(first, 9);
    const start = (await f.anvil.head()) + 1;
    const d1 = makeDriver(f, first, { startBlock: start });
    const d2 = makeDriver(f, second, { startBlock: start });
    const s1 = new RecordingSink();
    const s2 = new RecordingSink();
    d1.watch(watched(to));
    d2.watch(watched(to));
    // Each process scans as Chains.poll does: only while holding the network's scanner lock.
    const lock = `scan:${d1.network.code}`;
    const txid = await f.anvil.wallet(1).sendTransaction({ to: to as `0x${string}`, value: parseEther('0.05') });
    await f.anvil.mine();
    let release!: () => void;
    const holding = new Promise<void>((r) => (release = r));
    let polled!: () => void;
    const firstPolled = new Promise<void>((r) => (polled = r));
    const round = first.withLock(lock, 0, async () => {
      await d1.poll(s1);
      polled();
      await holding; // the first process is still in its round
    });
    await firstPolled;
    expect(await second.withLock(lock, 0, () => d2.poll(s2))).toBeNull();
    expect(s1.transfers({ txid })).toHaveLength(1);
    expect(s2.events).toEqual([]); // the lock is held by the first
    await first.close(); // the first process dies: its session, and the lock, go away
    release();
    await round.catch(() => {});
    await f.anvil.mine();
    expect(await second.withLock(lock, 0, () => d2.poll(s2))).not.toBeNull();
    expect(s2.transfers({ txid }).map((t) => t.confirmations)).toEqual([2]); // continues from the shared cursor
  });

  it('migrates down and up again', async () => {
    const storage = await open();
    // The shared scan tables go back to per-family ones only when empty (their rows do not say the family).
    for (const t of ['scan_outgoing', 'scan_transfers', 'scan_blocks', 'scan_cursors'] as const) await storage.db.deleteFrom(t).execute();
    await m021.down(storage.db);
    await m004.down(storage.db);
    await m004.up(storage.db);
    await m021.up(storage.db);
    expect(await storage.db.selectFrom('scan_cursors').selectAll().execute()).toEqual([]);
  });
});
