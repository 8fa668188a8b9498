// Detection against a real node (anvil): native and token payments, confirmations, reorganisations,
// catch-up after downtime, and a per-block RPC cost that does not depend on the watched set.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEther, parseUnits, type Hex } from 'viem';
import type { Storage } from '../../../src/db/dialect.ts';
import { evmDb } from '../../../src/chain/evm/schema.ts';
import { deriveAddress } from '../../helpers/addresses.ts';
import { Chains } from '../../../src/chain/networks.ts';
import { Registry } from '../../../src/registry/index.ts';
import { simulatedDriverFactory } from '../../../src/chain/simulated/driver.ts';
import type { Config } from '../../../src/config.ts';
import { compileTestToken } from './anvil.ts';
import { CONFIRMATIONS, RecordingSink, SEED, depositAddress, makeDriver, newStorage, startFixture, type Fixture, watched } from './setup.ts';

let f: Fixture;
const storages: Storage[] = [];

beforeAll(async () => {
  f = await startFixture();
  // account 1 pays in tokens
  await f.usdt.mint(f.anvil.account(1).address, parseUnits('1000000', 6));
  await f.dai.mint(f.anvil.account(1).address, parseUnits('1000000', 18));
  await f.anvil.mine();
});

afterAll(async () => {
  for (const s of storages) await s.close();
  await f?.anvil.stop();
});

let nextIndex = 100;
/** A fresh deposit address of the test seed. */
function addr(): `0x${string}` {
  return deriveAddress('evm', SEED, 60, nextIndex++).address as `0x${string}`;
}

async function fresh(extra: Parameters<typeof makeDriver>[2] = {}) {
  const storage = await newStorage();
  storages.push(storage);
  const driver = makeDriver(f, storage, { startBlock: (await f.anvil.head()) + 1, ...extra });
  return { storage, driver, sink: new RecordingSink() };
}

async function payNative(to: string, ether: string, from = 1): Promise<Hex> {
  return f.anvil.wallet(from).sendTransaction({ to: to as `0x${string}`, value: parseEther(ether) });
}

describe('EvmDriver detection', () => {
  it('reports a native payment with confirmations rising to the target, then stops', async () => {
    const { driver, sink } = await fresh();
    const to = addr();
    driver.watch(watched(to));
    await driver.poll(sink);
    expect(sink.events).toEqual([]);

    const txid = await payNative(to, '0.5');
    await driver.poll(sink); // still in the mempool: nothing
    expect(sink.events).toEqual([]);
    await f.anvil.mine();
    await driver.poll(sink);
    const block = await f.anvil.pub.getTransactionReceipt({ hash: txid });
    expect(sink.transfers()).toEqual([
      {
        network: 'ETH',
        currency: 'ETH',
        txid,
        index: 0,
        from: f.anvil.account(1).address,
        to,
        amount: '0.5',
        blockHeight: Number(block.blockNumber),
        blockHash: block.blockHash,
        confirmations: 1,
      },
    ]);
    await driver.poll(sink); // no new block: nothing new
    expect(sink.transfers()).toHaveLength(1);
    for (let i = 2; i <= CONFIRMATIONS + 2; i++) {
      await f.anvil.mine();
      await driver.poll(sink);
    }
    expect(sink.transfers().map((t) => t.confirmations)).toEqual([1, 2, 3]);
    await driver.close();
  });

  it('reports token payments of 6 and 18 decimals exactly, one eth_getLogs per batch', async () => {
    const methods: string[] = [];
    const { driver, sink } = await fresh({ onRpcRequest: (m) => methods.push(m) });
    const a = addr();
    const b = addr();
    driver.watch(watched(a));
    driver.watch(watched(b.toLowerCase()));
    await driver.poll(sink);
    const t1 = await f.usdt.transfer(1, a, parseUnits('12.345678', 6));
    const t2 = await f.dai.transfer(1, b, 1_000_000_000_000_000_001n);
    await f.usdt.transfer(1, f.anvil.account(4).address, 5n); // not ours
    await f.anvil.mine();
    methods.length = 0;
    await driver.poll(sink);
    const seen = sink.transfers();
    expect(seen.map((t) => [t.currency, t.txid, t.to, t.amount, t.confirmations])).toEqual([
      ['USDT', t1, a, '12.345678', 1],
      ['DAI', t2, b, '1.000000000000000001', 1],
    ]);
    const receipt = await f.anvil.pub.getTransactionReceipt({ hash: t1 });
    expect(seen[0]!.index).toBe(receipt.logs[0]!.logIndex);
    expect(seen[0]!.from).toBe(f.anvil.account(1).address);
    expect(methods.filter((m) => m === 'eth_getLogs')).toHaveLength(1);
    await driver.close();
  });

  it('reports several transfers in one transaction apart and ignores zero-value spam', async () => {
    const { driver, sink } = await fresh();
    const a = addr();
    const b = addr();
    driver.watch(watched(a));
    driver.watch(watched(b));
    await driver.poll(sink);
    const { abi } = compileTestToken();
    const tx = await f.anvil.wallet(1).writeContract({
      address: f.usdt.address,
      abi,
      functionName: 'batchTransfer',
      args: [[a, b, a, f.anvil.account(3).address], [1_000_000n, 2_000_000n, 0n, 7n]],
      gas: 300_000n,
    });
    await f.anvil.mine();
    await driver.poll(sink);
    const seen = sink.transfers();
    expect(seen.map((t) => [t.txid, t.to, t.amount])).toEqual([
      [tx, a, '1'],
      [tx, b, '2'],
    ]);
    expect(new Set(seen.map((t) => t.index)).size).toBe(2);
    await driver.close();
  });

  it('reports a partial then a completing payment, and an overpayment, as separate transfers', async () => {
    const { driver, sink } = await fresh();
    const partial = addr();
    const over = addr();
    driver.watch(watched(partial));
    driver.watch(watched(over));
    await driver.poll(sink);
    const p1 = await f.usdt.transfer(1, partial, parseUnits('40', 6));
    await f.anvil.mine();
    await driver.poll(sink);
    const p2 = await f.usdt.transfer(1, partial, parseUnits('60.5', 6));
    const o1 = await payNative(over, '1.000000000000000001');
    await f.anvil.mine(CONFIRMATIONS);
    await driver.poll(sink);
    const final = (txid: string) => sink.transfers({ txid }).at(-1)!;
    expect([final(p1).amount, final(p1).confirmations]).toEqual(['40', CONFIRMATIONS + 1]);
    expect([final(p2).amount, final(p2).confirmations]).toEqual(['60.5', CONFIRMATIONS]);
    expect([final(o1).amount, final(o1).to]).toEqual(['1.000000000000000001', over]);
    await driver.close();
  });

  it('withdraws a payment that a reorganisation removes, and counts it again only if it reappears', async () => {
    const { driver, sink } = await fresh();
    const to = addr();
    driver.watch(watched(to));
    await driver.poll(sink);
    const snap = await f.anvil.rpc<string>('evm_snapshot');
    // Sign it ourselves so the very same transaction can come back later.
    const w = f.anvil.wallet(2);
    const request = await w.prepareTransactionRequest({ to, value: parseEther('0.25') });
    const raw = await w.signTransaction(request);
    const txid = await f.anvil.rpc<Hex>('eth_sendRawTransaction', [raw]);
    await f.anvil.mine();
    await driver.poll(sink);
    expect(sink.transfers({ txid }).map((t) => t.confirmations)).toEqual([1]);

    // The block with the payment is replaced by two empty ones.
    await f.anvil.rpc('evm_revert', [snap]);
    await f.anvil.mine(2);
    await driver.poll(sink);
    expect(sink.drops()).toEqual([{ txid, index: 0 }]);
    await f.anvil.mine(2);
    await driver.poll(sink);
    expect(sink.transfers({ txid })).toHaveLength(1); // not re-counted
    expect(sink.drops()).toHaveLength(1);

    // The same transaction is mined again later: counted again, in its new block.
    await f.anvil.rpc('eth_sendRawTransaction', [raw]);
    await f.anvil.mine();
    await driver.poll(sink);
    const again = sink.transfers({ txid });
    expect(again).toHaveLength(2);
    const receipt = await f.anvil.pub.getTransactionReceipt({ hash: txid });
    expect(again[1]).toMatchObject({ confirmations: 1, blockHash: receipt.blockHash, amount: '0.25' });
    await driver.close();
  });

  it('does not withdraw a payment that the new chain includes again; it follows its new block', async () => {
    const { driver, sink } = await fresh();
    const to = addr();
    driver.watch(watched(to));
    await driver.poll(sink);
    const snap = await f.anvil.rpc<string>('evm_snapshot');
    const txid = await f.usdt.transfer(1, to, 3_000_000n);
    await f.anvil.mine();
    await driver.poll(sink);
    const before = sink.transfers({ txid })[0]!;
    const raw = await f.anvil.rpc<Hex>('eth_getRawTransactionByHash', [txid]);
    await f.anvil.rpc('evm_revert', [snap]);
    await f.anvil.mine(); // an empty block at the old height
    await f.anvil.rpc('eth_sendRawTransaction', [raw]);
    await f.anvil.mine(); // the payment, one block later
    await driver.poll(sink);
    expect(sink.drops()).toEqual([]);
    const after = sink.transfers({ txid }).at(-1)!;
    expect(after.blockHeight).toBe(before.blockHeight! + 1);
    expect(after.blockHash).not.toBe(before.blockHash);
    expect(after).toMatchObject({ amount: '3', confirmations: 1 });
    await driver.close();
  });

  it('sees a late payment hundreds of blocks later, and every top-up of a static wallet', async () => {
    const { driver, sink } = await fresh({ pollBatch: 64 });
    const wallet = addr();
    driver.watch(watched(wallet));
    await driver.poll(sink);
    const first = await payNative(wallet, '0.1');
    await f.anvil.mine();
    await f.anvil.rpc('evm_increaseTime', [7 * 24 * 3600]);
    await f.anvil.mine(500);
    const second = await f.usdt.transfer(1, wallet, 10_000_000n);
    await f.anvil.mine();
    const third = await payNative(wallet, '0.2');
    await f.anvil.mine();
    await driver.poll(sink);
    const last = (txid: string) => sink.transfers({ txid }).at(-1)!;
    // Confirmed within the first batch of 64 blocks: reported at that depth, then no more.
    expect(sink.transfers({ txid: first }).map((t) => t.confirmations)).toEqual([64]);
    expect(last(first)).toMatchObject({ amount: '0.1' });
    expect(last(second)).toMatchObject({ currency: 'USDT', amount: '10', confirmations: 2 });
    expect(last(third)).toMatchObject({ amount: '0.2', confirmations: 1 });
    await driver.close();
  });

  it('catches up after downtime from the last processed block', async () => {
    const { storage, driver, sink } = await fresh();
    const to = addr();
    driver.watch(watched(to));
    const early = await payNative(to, '0.01');
    await f.anvil.mine();
    await driver.poll(sink);
    await driver.close();

    const missed = await payNative(to, '0.02');
    await f.anvil.mine(10);
    const missedToken = await f.dai.transfer(1, to, parseUnits('7.5', 18));
    await f.anvil.mine();

    const restarted = makeDriver(f, storage, { startBlock: 0 }); // the stored cursor wins
    restarted.watch(watched(to));
    const sink2 = new RecordingSink();
    await restarted.poll(sink2);
    // Reported once at 1 confirmation before the downtime; now at its depth (it is confirmed).
    expect(sink2.transfers({ txid: early })).toEqual([expect.objectContaining({ confirmations: 12 })]);
    expect(sink2.transfers({ txid: missed })).toEqual([expect.objectContaining({ amount: '0.02', confirmations: 11 })]);
    expect(sink2.transfers({ txid: missedToken })).toEqual([expect.objectContaining({ amount: '7.5', confirmations: 1 })]);
    const cursor = await evmDb(storage.db).selectFrom('scan_cursors').selectAll().executeTakeFirstOrThrow();
    expect(Number(cursor.block_number)).toBe(await f.anvil.head());
    await restarted.close();
  });

  it('keeps the cursor when the sink fails, and replays on the next poll', async () => {
    const { storage, driver, sink } = await fresh();
    const to = addr();
    driver.watch(watched(to));
    await driver.poll(sink);
    const before = await evmDb(storage.db).selectFrom('scan_cursors').selectAll().executeTakeFirstOrThrow();
    const txid = await payNative(to, '0.3');
    await f.anvil.mine();
    sink.failNext = 1;
    await expect(driver.poll(sink)).rejects.toThrow('sink down');
    const kept = await evmDb(storage.db).selectFrom('scan_cursors').selectAll().executeTakeFirstOrThrow();
    expect(kept.block_number).toBe(before.block_number);
    await driver.poll(sink);
    expect(sink.transfers({ txid })).toEqual([expect.objectContaining({ amount: '0.3', confirmations: 1 })]);
    await driver.close();
  });

  it('costs the same RPC calls per block with 100,000 watched addresses as with 10', async () => {
    const small = await fresh();
    const large = await fresh();
    const count = (into: Map<string, number>) => (m: string) => into.set(m, (into.get(m) ?? 0) + 1);
    const smallCalls = new Map<string, number>();
    const largeCalls = new Map<string, number>();
    const smallDriver = makeDriver(f, small.storage, { startBlock: (await f.anvil.head()) + 1, onRpcRequest: count(smallCalls) });
    const largeDriver = makeDriver(f, large.storage, { startBlock: (await f.anvil.head()) + 1, onRpcRequest: count(largeCalls) });
    const targets = Array.from({ length: 10 }, () => addr());
    for (const t of targets) {
      smallDriver.watch(watched(t));
      largeDriver.watch(watched(t));
    }
    for (let i = 0; i < 100_000; i++) largeDriver.watch(watched(`0x${(i + 1).toString(16).padStart(40, '0')}`));
    expect(largeDriver.watchedCount).toBe(100_010);
    await smallDriver.poll(small.sink);
    await largeDriver.poll(large.sink);
    smallCalls.clear();
    largeCalls.clear();

    for (let i = 0; i < 10; i++) {
      await payNative(targets[i]!, '0.001');
      await f.usdt.transfer(1, targets[(i + 3) % 10]!, 1_000_000n);
      await f.anvil.mine();
    }
    let t0 = performance.now();
    await smallDriver.poll(small.sink);
    const smallMs = performance.now() - t0;
    t0 = performance.now();
    await largeDriver.poll(large.sink);
    const largeMs = performance.now() - t0;

    expect(Object.fromEntries(largeCalls)).toEqual(Object.fromEntries(smallCalls));
    expect(smallCalls.get('eth_getBlockByNumber')).toBe(10 + 1); // one per block + the cursor check
    expect(smallCalls.get('eth_getLogs')).toBe(1);
    expect(large.sink.transfers()).toEqual(small.sink.transfers());
    expect(small.sink.transfers()).toHaveLength(20);
    console.info(`10 blocks, 20 payments: 10 watched ${smallMs.toFixed(1)} ms, 100,010 watched ${largeMs.toFixed(1)} ms`);
    await smallDriver.close();
    await largeDriver.close();
  });

  it('follows every address the gateway handed out on the network, without being told', async () => {
    const { storage, driver, sink } = await fresh();
    const config = { networks: { ETH: { driver: 'evm', custody: 'hot' } } } as unknown as Config;
    const chains = new Chains({ config, registry: Registry.load(), storage, now: Date.now, seed: () => SEED, factories: { simulated: simulatedDriverFactory, evm: () => driver } });
    const to = await depositAddress(storage, 4242);
    const txid = await payNative(to, '0.07');
    await f.anvil.mine();
    await chains.poll('ETH', sink, { wait: true });
    expect(sink.transfers({ txid })).toEqual([expect.objectContaining({ to, amount: '0.07' })]);
    await driver.close();
  });

  it('refuses a node of another chain', async () => {
    const { driver, sink } = await fresh({ chainId: 1 });
    await expect(driver.poll(sink)).rejects.toThrow(/chain 31337, configured chain_id is 1/);
  });
});
