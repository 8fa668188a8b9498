// Sweeping against a real node (anvil): token balances get gas from the hot wallet first, native
// balances move less the fee, thresholds are honoured, and every movement is recorded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEther, parseUnits } from 'viem';
import type { Storage } from '../../../src/db/dialect.ts';
import type { EvmDriver } from '../../../src/chain/evm/evm-driver.ts';
import { evmDb } from '../../../src/chain/evm/schema.ts';
import { CONFIRMATIONS, RecordingSink, depositAddress, makeDriver, newStorage, startFixture, type Fixture, watched } from './setup.ts';

let f: Fixture;
let storage: Storage;
let driver: EvmDriver;
const sink = new RecordingSink();

beforeAll(async () => {
  f = await startFixture();
  storage = await newStorage();
  driver = makeDriver(f, storage, {
    startBlock: (await f.anvil.head()) + 1,
    sweep: { enabled: true, minNative: '0.01', minToken: { USDT: '5', DAI: '5' } },
  });
  await f.anvil.wallet(0).sendTransaction({ to: driver.hotWallet, value: parseEther('1') });
  await f.usdt.mint(f.anvil.account(1).address, parseUnits('1000', 6));
  await f.dai.mint(f.anvil.account(1).address, parseUnits('1000', 18));
  await f.anvil.mine();
});

afterAll(async () => {
  await driver?.close();
  await storage?.close();
  await f?.anvil.stop();
});

/** Mines a block, then lets the driver scan and sweep (what the gateway's worker does). */
async function tick(): Promise<void> {
  await f.anvil.mine();
  await driver.poll(sink);
  await driver.sweep();
}

const movements = () => evmDb(storage.db).selectFrom('evm_movements').selectAll().orderBy('created_at').orderBy('kind').execute();

describe('EvmDriver sweeping', () => {
  it('moves a token balance (after sending it gas) and a native balance to the hot wallet', async () => {
    const tokenAddr = (await depositAddress(storage, 1)) as `0x${string}`;
    const nativeAddr = (await depositAddress(storage, 2)) as `0x${string}`;
    driver.watch(watched(tokenAddr));
    driver.watch(watched(nativeAddr));
    await f.usdt.transfer(1, tokenAddr, parseUnits('25.5', 6));
    await f.anvil.wallet(1).sendTransaction({ to: nativeAddr, value: parseEther('0.3') });
    await f.anvil.mine();
    await driver.poll(sink);
    await driver.sweep(); // not confirmed yet: nothing moves
    expect(await movements()).toEqual([]);
    for (let i = 1; i < CONFIRMATIONS; i++) await tick();
    const hotNativeBefore = await f.anvil.pub.getBalance({ address: driver.hotWallet });

    // Confirmed now: the native balance moves at once; the token address first gets gas.
    let m = await movements();
    expect(m.map((x) => [x.kind, x.currency, x.from_address, x.to_address, x.status])).toEqual(
      expect.arrayContaining([
        ['sweep', 'ETH', nativeAddr.toLowerCase(), driver.hotWallet.toLowerCase(), 'sent'],
        ['gas', 'ETH', driver.hotWallet.toLowerCase(), tokenAddr.toLowerCase(), 'sent'],
        ['sweep', 'USDT', tokenAddr.toLowerCase(), driver.hotWallet.toLowerCase(), 'waiting'],
      ]),
    );
    expect(m).toHaveLength(3);

    await tick(); // gas and native sweep mined; the token sweep is signed with the deposit key
    m = await movements();
    expect(m.find((x) => x.kind === 'sweep' && x.currency === 'USDT')).toMatchObject({ status: 'sent', amount: '25.5' });
    await tick();
    await tick(); // nothing left above the thresholds: the addresses are done
    m = await movements();
    expect(m.map((x) => x.status)).toEqual(['done', 'done', 'done']);
    expect(m.every((x) => x.txid && /^0x[0-9a-f]{64}$/.test(x.txid))).toBe(true);

    expect(await f.usdt.balanceOf(tokenAddr)).toBe(0n);
    expect(await f.usdt.balanceOf(driver.hotWallet)).toBe(25_500_000n);
    const nativeSweep = m.find((x) => x.kind === 'sweep' && x.currency === 'ETH')!;
    const gas = m.find((x) => x.kind === 'gas')!;
    const hotNativeAfter = await f.anvil.pub.getBalance({ address: driver.hotWallet });
    // The hot wallet gained the native sweep and paid the gas top-up (plus its own fee).
    const delta = hotNativeAfter - hotNativeBefore;
    expect(delta).toBeLessThan(parseEther(nativeSweep.amount) - parseEther(gas.amount));
    expect(delta).toBeGreaterThan(parseEther(nativeSweep.amount) - parseEther(gas.amount) - parseEther('0.001'));
    expect(parseEther(nativeSweep.amount)).toBeGreaterThan(parseEther('0.299'));
    const left = await f.anvil.pub.getBalance({ address: nativeAddr });
    expect(left).toBeLessThan(parseEther('0.0001')); // only the unspent fee reserve

    // The gas top-up to a watched address was never reported as a payment.
    expect(sink.transfers({ to: tokenAddr }).every((t) => t.currency === 'USDT')).toBe(true);
    const swept = await evmDb(storage.db).selectFrom('scan_transfers').select(['to_address', 'swept']).execute();
    expect(swept.every((r) => r.swept === 1)).toBe(true);

    // Every movement's transaction is on record with its nonce and raw bytes.
    const out = await evmDb(storage.db).selectFrom('scan_outgoing').selectAll().where('kind', 'in', ['gas', 'sweep']).execute();
    expect(out).toHaveLength(3);
    expect(out.every((o) => o.raw.startsWith('0x02'))).toBe(true);
  });

  it('leaves balances below the thresholds where they are', async () => {
    const small = (await depositAddress(storage, 3)) as `0x${string}`;
    driver.watch(watched(small));
    await f.dai.transfer(1, small, parseUnits('4.99', 18));
    await f.anvil.wallet(1).sendTransaction({ to: small, value: parseEther('0.005') });
    for (let i = 0; i < CONFIRMATIONS; i++) await tick();
    await driver.sweep();
    const m = await movements();
    expect(m.filter((x) => x.from_address === small.toLowerCase() || x.to_address === small.toLowerCase())).toEqual([]);
    expect(await f.dai.balanceOf(small)).toBe(parseUnits('4.99', 18));
    const rows = await evmDb(storage.db).selectFrom('scan_transfers').select('swept').where('to_address', '=', small.toLowerCase()).execute();
    expect(rows.map((r) => r.swept)).toEqual([1, 1]);
  });

  it('sweeps only what is confirmed', async () => {
    const addr = (await depositAddress(storage, 4)) as `0x${string}`;
    driver.watch(watched(addr));
    await f.anvil.wallet(1).sendTransaction({ to: addr, value: parseEther('0.02') }); // gas of its own
    await f.dai.transfer(1, addr, parseUnits('10', 18));
    for (let i = 0; i < CONFIRMATIONS; i++) await tick();
    await f.dai.transfer(1, addr, parseUnits('6', 18)); // arrives as the 10 are being swept
    await f.anvil.mine();
    await driver.poll(sink);
    await driver.sweep();
    const dai = async () =>
      (await movements()).filter((x) => x.from_address === addr.toLowerCase() && x.currency === 'DAI').map((x) => [x.amount, x.status]);
    expect(await dai()).toEqual([['10', 'done']]); // the 6 are not confirmed yet
    expect(await f.dai.balanceOf(addr)).toBe(parseUnits('6', 18));
    for (let i = 1; i < CONFIRMATIONS; i++) await tick();
    // Now they are (its ETH has been swept meanwhile, so this one waits for gas first).
    expect(await dai()).toEqual([['10', 'done'], ['6', 'waiting']]);
    await tick();
    await tick();
    expect(await dai()).toEqual([['10', 'done'], ['6', 'done']]);
    expect(await f.dai.balanceOf(addr)).toBe(0n);
  });

  it('sweeps from the scanner\'s poll at most once per interval when configured so', async () => {
    const own = await newStorage();
    let clock = 1_000_000;
    const auto = makeDriver(f, own, {
      startBlock: (await f.anvil.head()) + 1,
      now: () => clock,
      sweep: { enabled: true, minNative: '0', minToken: {}, everyMs: 60_000 },
    });
    const addr = (await depositAddress(own, 5)) as `0x${string}`;
    auto.watch(watched(addr));
    await f.anvil.wallet(1).sendTransaction({ to: addr, value: parseEther('0.05') });
    await f.anvil.mine();
    await auto.poll(sink); // sweeps now (first round): nothing confirmed yet
    await f.anvil.mine(CONFIRMATIONS);
    await auto.poll(sink); // confirmed, but the next round is not due
    const count = async () => (await evmDb(own.db).selectFrom('evm_movements').select('id').execute()).length;
    expect(await count()).toBe(0);
    clock += 60_000;
    await auto.poll(sink);
    expect(await count()).toBe(1);
    await auto.close();
    await own.close();
  });

  it('does nothing when sweeping is not enabled', async () => {
    const own = await newStorage();
    const other = makeDriver(f, own, { startBlock: (await f.anvil.head()) + 1 });
    const addr = (await depositAddress(own, 6)) as `0x${string}`;
    other.watch(watched(addr));
    await f.anvil.wallet(1).sendTransaction({ to: addr, value: parseEther('0.2') });
    await f.anvil.mine();
    await other.poll(sink);
    await f.anvil.mine(CONFIRMATIONS);
    await other.poll(sink);
    // A confirmed, unswept deposit is there: an enabled sweeper would move it now.
    const db = evmDb(own.db);
    const deposits = await db.selectFrom('scan_transfers').select(['status', 'swept']).where('to_address', '=', addr.toLowerCase()).execute();
    expect(deposits).toEqual([{ status: 'confirmed', swept: 0 }]);
    await other.sweep();
    await f.anvil.mine();
    await other.poll(sink);
    expect(await db.selectFrom('evm_movements').select('id').execute()).toEqual([]);
    expect(await f.anvil.pub.getBalance({ address: addr })).toBe(parseEther('0.2'));
    await other.close();
    await own.close();
  });
});
