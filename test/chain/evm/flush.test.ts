// Watch-only EVM networks on a real node (anvil), driven through the operator's configuration
// (createEvmDriver with `flush` and `relayer_key_file`): payments to forwarders of two merchants'
// cold addresses are credited as always, then flushed, one relayer transaction per forwarder, each
// to its own cold address only; the factory is deployed by the relayer on first flush; a second
// payment to a deployed forwarder is flushed again; the relayer recovers when its key was used
// elsewhere; a token the registry does not know is reported and moved by `satchel flush --token`;
// no deposit address ever gets gas and the hot wallet never signs. Both databases.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAddress, keccak256, parseEther, parseUnits, stringToHex, type Address, type Hex } from 'viem';
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { backends } from '../../helpers/backends.ts';
import type { Storage } from '../../../src/db/dialect.ts';
import type { ChainLog } from '../../../src/chain/contract.ts';
import { createEvmDriver } from '../../../src/chain/evm/index.ts';
import { EvmDriver } from '../../../src/chain/evm/evm-driver.ts';
import { evmDeposit } from '../../../src/chain/evm/custody.ts';
import { evmDb } from '../../../src/chain/evm/schema.ts';
import { DEPLOYMENT_PROXY, factoryAddress } from '../../../src/chain/evm/forwarder/create2.ts';
import { flushCli } from '../../../src/cli/flush.ts';
import { CHAIN_ID, deployToken, startAnvil, type TestToken } from './anvil.ts';
import { CONFIRMATIONS, MNEMONIC, RecordingSink, SEED, driverOptions, newStorage, startFixture, testNetwork, type Fixture } from './setup.ts';

const list = await backends();
const dir = mkdtempSync(join(tmpdir(), 'satchel-flush-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A merchant's cold address: a key nobody here holds. */
function cold(label: string): Address {
  return getAddress(`0x${keccak256(stringToHex(label)).slice(26)}`);
}

function secretFile(name: string, content: string, mode = 0o600): string {
  const file = join(dir, name);
  writeFileSync(file, content);
  chmodSync(file, mode);
  return file;
}

interface Line {
  level: string;
  msg: string;
  data?: Record<string, unknown>;
}

function logger(): { lines: Line[]; log: ChainLog } {
  const lines: Line[] = [];
  return { lines, log: (level, msg, data) => void lines.push({ level, msg, data }) };
}

describe('flush settings', () => {
  const network = testNetwork();
  const base = { driver: 'evm', rpc_url: 'http://127.0.0.1:1', chain_id: CHAIN_ID };
  let storage: Storage;
  beforeAll(async () => {
    storage = await newStorage();
  });
  afterAll(async () => {
    await storage?.close();
  });
  const make = (cfg: Record<string, unknown>, log?: ChainLog) => createEvmDriver(network, { ...base, ...cfg }, { seed: SEED, storage, log });

  it('reads the relayer key from a 0600 file: a hex key (0x optional) or a mnemonic (m/44\'/60\'/0\'/0/0)', () => {
    const key = generatePrivateKey();
    expect(make({ relayer_key_file: secretFile('hex-0x', `${key}\n`) }).relayer).toBe(privateKeyToAccount(key).address);
    expect(make({ relayer_key_file: secretFile('hex-bare', key.slice(2).toUpperCase()) }).relayer).toBe(privateKeyToAccount(key).address);
    const phrase = secretFile('phrase', `  ${MNEMONIC.split(' ').join('\n')}\n`);
    expect(make({ relayer_key_file: phrase }).relayer).toBe(mnemonicToAccount(MNEMONIC, { accountIndex: 0, addressIndex: 0 }).address);
  });

  it('refuses a relayer key file others can read, or that holds no key, naming the setting and never the content', () => {
    const key = generatePrivateKey();
    const open = secretFile('open', key, 0o644);
    expect(() => make({ relayer_key_file: open })).toThrow(`networks.ETH.relayer_key_file: ${open} has mode 0644: other accounts on this host can read the relayer key; chmod 600 ${open}`);
    expect(() => make({ relayer_key_file: secretFile('group', key, 0o640) })).toThrow(/mode 0640/);
    let message = '';
    try {
      make({ relayer_key_file: secretFile('junk', 'legal winner thank year wave sausage worth useful legal winner thank thank') });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/^networks\.ETH\.relayer_key_file: .* holds neither a hex private key \(64 hex digits, 0x optional\) nor a valid BIP-39 mnemonic$/);
    expect(message).not.toContain('sausage');
    expect(() => make({ relayer_key_file: join(dir, 'absent') })).toThrow(/networks\.ETH\.relayer_key_file: .*absent cannot be read \(ENOENT\)/);
    expect(() => make({ relayer_key_file: 5 })).toThrow(/relayer_key_file: the path of a file/);
  });

  it('checks the flush object, naming each setting', () => {
    expect(() => make({ flush: 60 })).toThrow(/networks\.ETH\.flush: an object is required/);
    expect(() => make({ flush: { every_seconds: -1 } })).toThrow('networks.ETH.flush.every_seconds: a non-negative integer is required');
    expect(() => make({ flush: { min_native: 0.5 } })).toThrow('networks.ETH.flush.min_native: a decimal string is required');
    expect(() => make({ flush: { min_token: { USDT: 10 } } })).toThrow('networks.ETH.flush.min_token.USDT: a decimal string is required');
    expect(() => make({ flush: { enabled: true } })).toThrow(/networks\.ETH\.flush: unknown setting enabled/);
    expect(() => make({ custody: 'hot', flush: {} })).toThrow(/networks\.ETH\.flush: only a watch-only network flushes/);
    expect(() => make({ custody: 'hot', relayer_key_file: 'x' })).toThrow(/networks\.ETH\.relayer_key_file: only a watch-only network flushes/);
  });

  it('keeps the sweep in hot custody; a watch-only network never sweeps, and without a relayer says once that it cannot flush', async () => {
    const hot = make({ custody: 'hot', sweep: { enabled: true, min_native: '0.5' } });
    expect(hot.custody).toBe('hot');
    expect(hot.sweepPolicy).toMatchObject({ enabled: true, minNative: '0.5' });
    await expect(hot.flush()).rejects.toThrow(/ETH is in hot custody: its deposit addresses are swept, not flushed/);

    const { lines, log } = logger();
    const d = make({ sweep: { enabled: true } }, log);
    expect(d.custody).toBe('watch-only');
    expect(d.relayer).toBeNull();
    const warnings = lines.filter((l) => l.level === 'warn');
    expect(warnings.map((l) => l.msg)).toEqual([
      'networks.ETH.sweep is ignored: the network is watch-only, its deposit addresses are forwarders flushed to the merchant\'s cold address (see "flush")',
      'evm flush is off: ETH is watch-only and has no relayer_key_file; payments are credited but stay on their forwarder addresses until one is set',
    ]);
    expect(await d.flush()).toEqual({ sent: [], notes: ['ETH has no relayer_key_file: nothing can pay a flush\'s gas'] });
  });
});

describe.each(list)('watch-only EVM flushing on $name', (backend) => {
  let f: Fixture;
  let db: Awaited<ReturnType<typeof backend.create>>;
  let storage: Storage;
  let driver: EvmDriver;
  let xyz: TestToken;
  let clock = Date.now();
  let relayerFile = '';
  const logs = logger();
  const sink = new RecordingSink();
  const relayerKey = generatePrivateKey();
  const relayer = privateKeyToAccount(relayerKey);
  const coldA = cold(`merchant A ${backend.name}`);
  const coldB = cold(`merchant B ${backend.name}`);
  let fA: Address;
  let fB: Address;
  const PAYER = 1;

  /** A forwarder handed out like the allocator does: recorded with its path, then watched. */
  async function forwarder(coldAddress: Address, custodyId: string, owner: string): Promise<Address> {
    const { address, path } = evmDeposit(f.network, coldAddress, custodyId, 0);
    await storage.db.insertInto('addresses').values({ address, network: 'ETH', path, owner_kind: 'invoice', owner_id: owner, created_at: Date.now() }).execute();
    driver.watch([{ address, path }]);
    return address as Address;
  }

  /** What the gateway's worker does: a block, then a poll. */
  async function tick(n = 1): Promise<void> {
    for (let i = 0; i < n; i++) {
      await f.anvil.mine();
      await driver.poll(sink);
    }
  }

  const eth = (a: Address) => f.anvil.pub.getBalance({ address: a });
  const code = async (a: Address) => (await f.anvil.pub.getCode({ address: a })) ?? '0x';
  const outgoing = () => evmDb(storage.db).selectFrom('scan_outgoing').selectAll().orderBy('nonce').execute();
  const movements = () => evmDb(storage.db).selectFrom('evm_movements').selectAll().orderBy('created_at').execute();
  const swept = async (a: Address) =>
    (await evmDb(storage.db).selectFrom('scan_transfers').select('swept').where('to_address', '=', a.toLowerCase()).execute()).map((r) => r.swept);

  beforeAll(async () => {
    f = await startFixture();
    db = await backend.create();
    storage = await newStorage(db.databaseUrl);
    driver = createEvmDriver(
      f.network,
      {
        driver: 'evm',
        rpc_url: f.anvil.url,
        chain_id: CHAIN_ID,
        confirmations: CONFIRMATIONS,
        tokens: { USDT: f.usdt.address, DAI: f.dai.address },
        start_block: (await f.anvil.head()) + 1,
        relayer_key_file: (relayerFile = secretFile(`relayer-${backend.name}`, relayerKey)),
        flush: { every_seconds: 0 },
      },
      { seed: SEED, storage, log: logs.log, now: () => clock },
    );
    await f.anvil.wallet(0).sendTransaction({ to: relayer.address, value: parseEther('1') });
    await f.usdt.mint(f.anvil.account(PAYER).address, parseUnits('1000', 6));
    await f.dai.mint(f.anvil.account(PAYER).address, parseUnits('1000', 18));
    await f.anvil.mine();
    fA = await forwarder(coldA, 'custody-a', 'inv-a');
    fB = await forwarder(coldB, 'custody-b', 'inv-b');
  });

  afterAll(async () => {
    await driver?.close();
    await storage?.close();
    await db?.drop();
    await f?.anvil.stop();
  });

  it('deploys the factory on first flush, then moves each merchant\'s ETH and tokens to that merchant\'s cold address only', async () => {
    expect(await code(factoryAddress())).toBe('0x');
    expect(await code(DEPLOYMENT_PROXY)).not.toBe('0x');
    await f.anvil.wallet(PAYER).sendTransaction({ to: fA, value: parseEther('0.5') });
    await f.usdt.transfer(PAYER, fA, parseUnits('25', 6));
    await f.anvil.wallet(PAYER).sendTransaction({ to: fB, value: parseEther('0.2') });
    await f.dai.transfer(PAYER, fB, parseUnits('7', 18));
    await tick();
    // Credited exactly as today: the forwarders are deposit addresses like any other.
    expect(sink.transfers({ to: fA }).map((t) => [t.currency, t.amount])).toEqual(expect.arrayContaining([['ETH', '0.5'], ['USDT', '25']]));
    expect(sink.transfers({ to: fB }).map((t) => [t.currency, t.amount])).toEqual(expect.arrayContaining([['ETH', '0.2'], ['DAI', '7']]));

    // Not confirmed yet: nothing is sent, not even the factory.
    expect(await driver.flush()).toEqual({ sent: [], notes: [] });
    expect(await outgoing()).toEqual([]);
    await tick(CONFIRMATIONS - 1);

    // Confirmed: the factory is absent, so the relayer deploys it first, once.
    let report = await driver.flush();
    expect(report.sent).toEqual([]);
    expect(report.notes).toEqual([expect.stringContaining(`The forwarder factory ${factoryAddress()} was absent: its deployment was sent`)]);
    expect((await driver.flush()).notes).toEqual([expect.stringContaining('is being deployed')]);
    let out = await outgoing();
    expect(out.map((o) => [o.kind, o.from_address, o.to_address])).toEqual([['deploy', relayer.address.toLowerCase(), factoryAddress()]]);
    await tick(CONFIRMATIONS);
    expect(await code(factoryAddress())).not.toBe('0x');

    report = await driver.flush();
    expect(report.notes).toEqual([]);
    const byForwarder = Object.fromEntries(report.sent.map((s) => [s.forwarder, s]));
    expect(Object.keys(byForwarder).sort()).toEqual([fA, fB].sort());
    expect(byForwarder[fA]).toMatchObject({ cold: coldA, moved: expect.arrayContaining([{ currency: 'USDT', contract: getAddress(f.usdt.address), amount: '25' }, { currency: 'ETH', contract: null, amount: '0.5' }]) });
    expect(byForwarder[fA]!.moved).toHaveLength(2);
    expect(byForwarder[fB]).toMatchObject({ cold: coldB, moved: expect.arrayContaining([{ currency: 'DAI', contract: getAddress(f.dai.address), amount: '7' }, { currency: 'ETH', contract: null, amount: '0.2' }]) });
    expect(await swept(fA)).toEqual([2, 2]); // on their way, not flushed until confirmed
    await tick();
    expect(await eth(coldA)).toBe(parseEther('0.5'));
    expect(await driver.flush()).toEqual({ sent: [], notes: [] }); // mined, not confirmed: nothing sent twice
    expect(await swept(fA)).toEqual([2, 2]);
    await tick(CONFIRMATIONS - 1);
    await driver.flush();

    expect(await eth(coldA)).toBe(parseEther('0.5'));
    expect(await f.usdt.balanceOf(coldA)).toBe(parseUnits('25', 6));
    expect(await f.dai.balanceOf(coldA)).toBe(0n);
    expect(await eth(coldB)).toBe(parseEther('0.2'));
    expect(await f.dai.balanceOf(coldB)).toBe(parseUnits('7', 18));
    expect(await f.usdt.balanceOf(coldB)).toBe(0n);
    for (const a of [fA, fB]) {
      expect(await eth(a)).toBe(0n);
      expect(await swept(a)).toEqual([1, 1]);
    }
    const m = await movements();
    expect(m.map((x) => [x.kind, x.currency, x.from_address, x.to_address, x.amount, x.status]).sort()).toEqual(
      [
        ['flush', 'ETH', fA.toLowerCase(), coldA.toLowerCase(), '0.5', 'done'],
        ['flush', 'USDT', fA.toLowerCase(), coldA.toLowerCase(), '25', 'done'],
        ['flush', 'ETH', fB.toLowerCase(), coldB.toLowerCase(), '0.2', 'done'],
        ['flush', 'DAI', fB.toLowerCase(), coldB.toLowerCase(), '7', 'done'],
      ].sort(),
    );
    out = await outgoing();
    expect(out.map((o) => [o.kind, o.status])).toEqual([['deploy', 'confirmed'], ['flush', 'confirmed'], ['flush', 'confirmed']]);
    expect(new Set(m.map((x) => x.txid))).toEqual(new Set(out.filter((o) => o.kind === 'flush').map((o) => o.txid)));
  });

  it('flushes a second payment to an already deployed forwarder, once it and what came after it are confirmed', async () => {
    expect(await code(fA)).not.toBe('0x');
    await f.anvil.wallet(PAYER).sendTransaction({ to: fA, value: parseEther('0.1') });
    await tick();
    expect(sink.transfers({ to: fA }).map((t) => t.amount)).toContain('0.1');
    expect((await driver.flush()).sent).toEqual([]);
    await tick(CONFIRMATIONS - 1);
    // Confirmed, but a newer payment is not: a flush would move it too (a forwarder moves its whole
    // balance), so the forwarder waits until that one is confirmed as well.
    await f.anvil.wallet(PAYER).sendTransaction({ to: fA, value: parseEther('0.03') });
    await tick();
    expect(await driver.flush()).toEqual({ sent: [], notes: [] });
    await tick(CONFIRMATIONS - 1);
    const report = await driver.flush();
    expect(report.sent).toEqual([{ txid: expect.stringMatching(/^0x[0-9a-f]{64}$/), forwarder: fA, cold: coldA, moved: [{ currency: 'ETH', contract: null, amount: '0.13' }] }]);
    await tick(CONFIRMATIONS);
    await driver.flush();
    expect(await eth(coldA)).toBe(parseEther('0.63'));
    expect(await swept(fA)).toEqual([1, 1, 1, 1]);
  });

  it('carries on when the relayer key was used elsewhere, before a flush and under a stored one', async () => {
    // Someone spends from the relayer key with a wallet app: the next flush takes the next free nonce.
    const fees = await f.anvil.pub.estimateFeesPerGas();
    const sendOutside = async (nonce: number) => {
      const raw = await relayer.signTransaction({ type: 'eip1559', chainId: CHAIN_ID, nonce, to: relayer.address, value: 1n, gas: 21_000n, ...fees });
      await f.anvil.rpc('eth_sendRawTransaction', [raw]);
    };
    await sendOutside(await f.anvil.pub.getTransactionCount({ address: relayer.address, blockTag: 'pending' }));
    await f.anvil.wallet(PAYER).sendTransaction({ to: fB, value: parseEther('0.05') });
    await tick(CONFIRMATIONS);
    let report = await driver.flush();
    expect(report.sent.map((s) => s.forwarder)).toEqual([fB]);
    await tick(CONFIRMATIONS);
    await driver.flush();
    expect(await eth(coldB)).toBe(parseEther('0.25'));

    // A gateway process stores a flush and dies before broadcasting it; meanwhile the key is used
    // elsewhere with that very nonce.
    class CrashingDriver extends EvmDriver {
      protected override async broadcast(): Promise<void> {
        throw new Error('process killed');
      }
    }
    const crashing = new CrashingDriver(driverOptions(f, storage, { custody: 'watch-only', relayer, flush: { everyMs: 0, minNative: '0', minToken: {} }, now: () => clock }));
    crashing.watch([{ address: fA, path: evmDeposit(f.network, coldA, 'custody-a', 0).path }]);
    await f.usdt.transfer(PAYER, fA, parseUnits('5', 6));
    await tick(CONFIRMATIONS);
    await expect(crashing.flush()).rejects.toThrow('process killed');
    await crashing.close();
    const stored = (await outgoing()).at(-1)!;
    expect(stored).toMatchObject({ kind: 'flush', status: 'signed' });
    await sendOutside(Number(stored.nonce));
    await tick(); // the stored flush can never be mined now: seen once
    clock += 61_000;
    await tick(); // seen again a rebroadcast interval later: failed, its transfers free again
    expect((await outgoing()).find((o) => o.id === stored.id)).toMatchObject({ status: 'failed', error: 'replaced' });
    report = await driver.flush();
    expect(report.sent).toEqual([{ txid: expect.any(String), forwarder: fA, cold: coldA, moved: [{ currency: 'USDT', contract: getAddress(f.usdt.address), amount: '5' }] }]);
    const retry = await f.anvil.pub.getTransaction({ hash: report.sent[0]!.txid });
    expect(retry.nonce).toBe(Number(stored.nonce) + 1);
    await tick(CONFIRMATIONS);
    await driver.flush();
    expect(await f.usdt.balanceOf(coldA)).toBe(parseUnits('30', 6));
    expect(await swept(fA)).toEqual([1, 1, 1, 1, 1]);
    expect((await movements()).filter((x) => x.outgoing_id === stored.id).map((x) => x.status)).toEqual(['failed']);
  });

  it('reports a token the registry does not know, and `satchel flush --token` moves it to the cold address', async () => {
    xyz = await deployToken(f.anvil, 'XYZ', 8);
    await xyz.mint(f.anvil.account(PAYER).address, parseUnits('100', 8));
    await f.anvil.mine();
    await xyz.transfer(PAYER, fB, parseUnits('3', 8));
    await tick(CONFIRMATIONS);
    expect(sink.transfers({ to: fB }).some((t) => t.amount === '3')).toBe(false); // credits nothing
    await driver.flush();
    const reported = logs.lines.filter((l) => l.level === 'warn' && l.data?.token === getAddress(xyz.address));
    expect(reported).toHaveLength(1);
    expect(reported[0]!.msg).toContain(`satchel flush --network ETH --token ${getAddress(xyz.address)}`);
    expect(reported[0]!.data).toMatchObject({ forwarder: fB, cold: coldB });
    await driver.flush();
    expect(logs.lines.filter((l) => l.data?.token === getAddress(xyz.address))).toHaveLength(1); // once

    const printed: string[] = [];
    const errors: string[] = [];
    const ctx = {
      chains: { driver: () => driver, custodyMode: () => 'watch-only' as const, close: async () => {} },
      storage: { withLock: storage.withLock.bind(storage), close: async () => {} },
    };
    const cli = (...args: string[]) => flushCli(args, { log: (s) => printed.push(s), error: (s) => errors.push(s) }, async () => ctx);
    expect(await cli('--network', 'ETH', '--token', 'USDT')).toBe(2);
    expect(errors).toEqual(['--token takes a token contract address (0x and 40 hex digits): USDT']);
    expect(await cli('--network', 'eth', '--token', xyz.address)).toBe(0);
    expect(printed).toHaveLength(1);
    expect(printed[0]).toMatch(new RegExp(`^0x[0-9a-f]{64}  ${fB} -> ${coldB}  3 ${getAddress(xyz.address)}$`));
    await tick(CONFIRMATIONS);
    expect(await xyz.balanceOf(coldB)).toBe(parseUnits('3', 8));
    expect(await xyz.balanceOf(fB)).toBe(0n);
    printed.length = 0;
    expect(await cli('--network', 'ETH')).toBe(0);
    expect(printed).toEqual(['No forwarder of ETH holds anything confirmed to flush.']);
  });

  it('still moves the tokens when the cold address refuses the native coin', async () => {
    // A contract without a way to receive ETH as the cold address (here: a token contract).
    const refusing = getAddress(f.usdt.address);
    const { address, path } = evmDeposit(f.network, refusing, 'custody-r', 0);
    await storage.db.insertInto('addresses').values({ address, network: 'ETH', path, owner_kind: 'invoice', owner_id: 'inv-r', created_at: Date.now() }).execute();
    driver.watch([{ address, path }]);
    await f.anvil.wallet(PAYER).sendTransaction({ to: address as Address, value: parseEther('0.1') });
    await f.dai.transfer(PAYER, address, parseUnits('3', 18));
    await tick(CONFIRMATIONS);
    const report = await driver.flush();
    expect(report.sent).toEqual([{ txid: expect.any(String), forwarder: address, cold: refusing, moved: [{ currency: 'DAI', contract: getAddress(f.dai.address), amount: '3' }] }]);
    expect(logs.lines.filter((l) => l.msg.includes('refuses the native coin')).map((l) => l.data?.forwarder)).toEqual([address]);
    await tick(CONFIRMATIONS);
    await driver.flush();
    expect(await f.dai.balanceOf(refusing)).toBe(parseUnits('3', 18));
    expect(await eth(address as Address)).toBe(parseEther('0.1')); // stays: it has nowhere to go
  });

  it('never gave a deposit address gas nor signed with the hot wallet', async () => {
    await f.anvil.wallet(PAYER).sendTransaction({ to: fB, value: parseEther('0.01') });
    await tick(CONFIRMATIONS);
    await driver.sweep(); // watch-only: a no-op
    const out = await outgoing();
    expect(new Set(out.map((o) => o.kind))).toEqual(new Set(['deploy', 'flush']));
    expect(new Set(out.map((o) => o.from_address))).toEqual(new Set([relayer.address.toLowerCase()]));
    expect(new Set((await movements()).map((x) => x.kind))).toEqual(new Set(['flush']));
    // Watch-only without a payout float has no hot wallet at all; the seed's would-be one is untouched.
    expect(() => driver.hotWallet).toThrow();
    const seedHot = mnemonicToAccount(MNEMONIC, { accountIndex: 1, addressIndex: 0 }).address;
    expect(await f.anvil.pub.getTransactionCount({ address: seedHot })).toBe(0);
  });

  it('flushes from the scanner\'s poll when due, and only what reaches the thresholds', async () => {
    const polled = createEvmDriver(
      f.network,
      {
        driver: 'evm', rpc_url: f.anvil.url, chain_id: CHAIN_ID, confirmations: CONFIRMATIONS,
        tokens: { USDT: f.usdt.address, DAI: f.dai.address }, relayer_key_file: relayerFile,
        flush: { every_seconds: 60, min_native: '0.05', min_token: { dai: '10' } },
      },
      { seed: SEED, storage, now: () => clock },
    );
    for (const [a, c, id] of [[fA, coldA, 'custody-a'], [fB, coldB, 'custody-b']] as const) polled.watch([{ address: a, path: evmDeposit(f.network, c, id, 0).path }]);
    // fB still holds the 0.01 ETH of the test before; now 2 DAI more: both below the thresholds.
    await f.dai.transfer(PAYER, fB, parseUnits('2', 18));
    await f.anvil.wallet(PAYER).sendTransaction({ to: fA, value: parseEther('0.2') });
    await f.dai.transfer(PAYER, fA, parseUnits('20', 18));
    await tick(CONFIRMATIONS); // the first driver flushes only on demand
    const before = (await outgoing()).length;
    await polled.poll(sink); // the first round is due at once
    const sent = (await outgoing()).slice(before);
    expect(sent.map((o) => [o.kind, o.to_address])).toEqual([['flush', coldA]]);
    expect((await swept(fB)).every((x) => x === 1)).toBe(true); // below the thresholds: left, and done until more arrives
    await f.anvil.mine(CONFIRMATIONS);
    clock += 30_000;
    await polled.poll(sink); // not due: the confirmed flush is not looked at yet
    expect((await swept(fA)).filter((x) => x === 2)).toHaveLength(2);
    clock += 31_000;
    await polled.poll(sink);
    expect((await swept(fA)).every((x) => x === 1)).toBe(true);
    expect(await eth(coldA)).toBe(parseEther('0.83'));
    expect(await f.dai.balanceOf(coldA)).toBe(parseUnits('20', 18));
    expect(await f.dai.balanceOf(fB)).toBe(parseUnits('2', 18));
    expect(await eth(fB)).toBe(parseEther('0.01'));
    await polled.close();
  });
});

describe('a chain without the deterministic deployment proxy', () => {
  it('logs an error naming the proxy and flushes nothing', async () => {
    const anvil = await startAnvil();
    const storage = await newStorage();
    try {
      await anvil.rpc('anvil_setCode', [DEPLOYMENT_PROXY, '0x']);
      const { lines, log } = logger();
      const relayer = generatePrivateKey();
      const network = testNetwork();
      const d = createEvmDriver(network, {
        driver: 'evm', rpc_url: anvil.url, chain_id: CHAIN_ID, confirmations: 1, start_block: (await anvil.head()) + 1,
        relayer_key_file: secretFile('relayer-noproxy', relayer), flush: { every_seconds: 0 },
      }, { seed: SEED, storage, log });
      await anvil.wallet(0).sendTransaction({ to: privateKeyToAccount(relayer).address, value: parseEther('1') });
      const { address, path } = evmDeposit(network, cold('merchant C'), 'custody-c', 0);
      d.watch([{ address, path }]);
      await anvil.wallet(0).sendTransaction({ to: address as Hex, value: parseEther('0.3') });
      await anvil.mine();
      await d.poll(new RecordingSink());
      const report = await d.flush();
      expect(report.sent).toEqual([]);
      const msg = `The deterministic deployment proxy ${DEPLOYMENT_PROXY} is absent on ETH: the forwarder factory cannot be deployed, so nothing is flushed`;
      expect(report.notes).toEqual([msg]);
      expect(lines.filter((l) => l.level === 'error').map((l) => l.msg)).toEqual([msg]);
      expect(await anvil.pub.getBalance({ address: address as Hex })).toBe(parseEther('0.3'));
      await d.close();
    } finally {
      await storage.close();
      await anvil.stop();
    }
  });
});
