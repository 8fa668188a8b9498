// Payouts against a real node (anvil): native and token payouts reaching `confirmed`, idempotency,
// fees by priority, nonces, an on-chain failure, and a crash between storing and broadcasting.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEther, parseUnits, type Hex } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import type { Storage } from '../../../src/db/dialect.ts';
import { EvmDriver } from '../../../src/chain/evm/evm-driver.ts';
import { HotWalletShortError, NodeError, SendRejectedError } from '../../../src/chain/errors.ts';
import { evmDb } from '../../../src/chain/evm/schema.ts';
import type { ScanOutgoingTable } from '../../../src/db/schema.ts';
import { compileTestToken } from './anvil.ts';
import { CONFIRMATIONS, MNEMONIC, RecordingSink, driverOptions, makeDriver, newStorage, startFixture, type Fixture } from './setup.ts';

let f: Fixture;
let storage: Storage;
let driver: EvmDriver;
const sink = new RecordingSink();

beforeAll(async () => {
  f = await startFixture();
  storage = await newStorage();
  driver = makeDriver(f, storage, { startBlock: (await f.anvil.head()) + 1 });
  // Fund the hot wallet: gas money and tokens to pay out.
  await f.anvil.wallet(0).sendTransaction({ to: driver.hotWallet, value: parseEther('10') });
  await f.usdt.mint(driver.hotWallet, parseUnits('1000', 6));
  await f.dai.mint(driver.hotWallet, parseUnits('1000', 18));
  await f.anvil.mine();
});

afterAll(async () => {
  await driver?.close();
  await storage?.close();
  await f?.anvil.stop();
});

const recipient = (i: number) => f.anvil.account(i).address;

async function confirm(txid: string): Promise<void> {
  for (let i = 0; i < CONFIRMATIONS; i++) {
    await f.anvil.mine();
    await driver.poll(sink);
  }
  expect(sink.outgoings(txid).at(-1)).toEqual({ txid, status: 'confirmed', confirmations: CONFIRMATIONS });
}

async function outgoing(txid: string): Promise<ScanOutgoingTable> {
  return evmDb(storage.db).selectFrom('scan_outgoing').selectAll().where('txid', '=', txid).executeTakeFirstOrThrow();
}

describe('EvmDriver payouts', () => {
  it('derives the hot wallet at m/44\'/60\'/1\'/0/0', () => {
    expect(driver.hotWallet).toBe(mnemonicToAccount(MNEMONIC, { accountIndex: 1, addressIndex: 0 }).address);
  });

  it('pays out the native coin, idempotently, and reports it confirmed', async () => {
    const to = recipient(3);
    const before = await f.anvil.pub.getBalance({ address: to });
    const { txid } = await driver.send({ id: 'payout-1', network: 'ETH', currency: 'ETH', to, amount: '1.234567890123456789', priority: 'recommended' });
    expect(txid).toMatch(/^0x[0-9a-f]{64}$/);
    // The same id again: the same transaction, nothing new signed.
    expect(await driver.send({ id: 'payout-1', network: 'eth', currency: 'eth', to, amount: '1.234567890123456789', priority: 'recommended' })).toEqual({ txid });
    expect(await f.anvil.rpc('txpool_status')).toEqual({ pending: '0x1', queued: '0x0' });
    // The same id for a different payment is a caller's bug: refused, never "already paid".
    await expect(
      driver.send({ id: 'payout-1', network: 'ETH', currency: 'ETH', to, amount: '2', priority: 'recommended' }),
    ).rejects.toMatchObject({ code: 'invalid' });
    const tx = await f.anvil.pub.getTransaction({ hash: txid as Hex });
    expect(tx.type).toBe('eip1559');
    expect(tx.from.toLowerCase()).toBe(driver.hotWallet.toLowerCase());

    await driver.poll(sink); // in the mempool: nothing to report yet
    expect(sink.outgoings(txid)).toEqual([]);
    await f.anvil.mine();
    await driver.poll(sink);
    expect(sink.outgoings(txid)).toEqual([{ txid, status: 'confirmed', confirmations: 1 }]);
    await confirm(txid);
    expect(sink.outgoings(txid).map((o) => o.confirmations)).toEqual([1, 2, 3]);
    expect((await f.anvil.pub.getBalance({ address: to })) - before).toBe(1_234_567_890_123_456_789n);
    expect((await outgoing(txid)).status).toBe('confirmed');
    await f.anvil.mine();
    await driver.poll(sink);
    expect(sink.outgoings(txid)).toHaveLength(3); // final: no more reports
  });

  it('pays out tokens of 6 and 18 decimals exactly', async () => {
    const to = recipient(4);
    const a = await driver.send({ id: 'payout-usdt', network: 'ETH', currency: 'USDT', to, amount: '12.5', priority: 'high' });
    const b = await driver.send({ id: 'payout-dai', network: 'ETH', currency: 'DAI', to: to.toLowerCase(), amount: '0.000000000000000007', priority: 'economy' });
    await f.anvil.mine();
    await driver.poll(sink);
    await confirm(a.txid);
    expect(sink.outgoings(b.txid).at(-1)?.status).toBe('confirmed');
    expect(await f.usdt.balanceOf(to)).toBe(12_500_000n);
    expect(await f.dai.balanceOf(to)).toBe(7n);
    const [ra, rb] = [await outgoing(a.txid), await outgoing(b.txid)];
    expect([ra.currency, ra.amount, rb.currency, rb.amount]).toEqual(['USDT', '12.5', 'DAI', '0.000000000000000007']);
  });

  it('sets the priority fee by priority, and numbers nonces without gaps', async () => {
    const sent = [];
    for (const priority of ['economy', 'recommended', 'high', 'highest'] as const) {
      sent.push(await driver.send({ id: `prio-${priority}`, network: 'ETH', currency: 'ETH', to: recipient(3), amount: '0.001', priority }));
    }
    const txs = await Promise.all(sent.map((s) => f.anvil.pub.getTransaction({ hash: s.txid as Hex })));
    const tips = txs.map((t) => t.maxPriorityFeePerGas!);
    const suggested = BigInt(await f.anvil.rpc<Hex>('eth_maxPriorityFeePerGas'));
    expect(tips).toEqual([(suggested * 80n) / 100n, suggested, (suggested * 150n) / 100n, suggested * 2n]);
    const nonces = txs.map((t) => t.nonce);
    expect(nonces).toEqual([nonces[0], nonces[0]! + 1, nonces[0]! + 2, nonces[0]! + 3]);
    await f.anvil.mine();
    await driver.poll(sink);
    for (const s of sent) expect(sink.outgoings(s.txid)).toEqual([{ txid: s.txid, status: 'confirmed', confirmations: 1 }]);
  });

  it('rejects what cannot succeed before signing anything', async () => {
    const count = async () => (await evmDb(storage.db).selectFrom('scan_outgoing').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;
    const n = Number(await count());
    const bad = (over: Partial<Parameters<EvmDriver['send']>[0]>) =>
      driver.send({ id: `bad-${Math.random()}`, network: 'ETH', currency: 'USDT', to: recipient(3), amount: '1', priority: 'recommended', ...over });
    // More tokens than the hot wallet holds is its shortfall (retried, then failed after a wait), not a revert.
    await expect(bad({ amount: '5000' })).rejects.toMatchObject({ name: 'HotWalletShortError', code: 'insufficient_funds', currency: 'USDT' });
    await expect(bad({ currency: 'ETH', amount: '1000000' })).rejects.toBeInstanceOf(HotWalletShortError);
    await expect(bad({ amount: '0.0000001' })).rejects.toMatchObject({ code: 'invalid' });
    await expect(bad({ amount: '-1' })).rejects.toBeInstanceOf(SendRejectedError);
    await expect(bad({ to: 'T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb' })).rejects.toMatchObject({ code: 'invalid' });
    await expect(bad({ currency: 'BTC' })).rejects.toMatchObject({ code: 'invalid' });
    await expect(bad({ network: 'BSC' })).rejects.toMatchObject({ code: 'invalid' });
    expect(Number(await count())).toBe(n);
  });

  it('forgets a transaction the node refuses outright and frees its nonce', async () => {
    class RefusingDriver extends EvmDriver {
      protected override async broadcast(): Promise<void> {
        throw new NodeError('eth_sendRawTransaction', -32000, 'insufficient funds for gas * price + value');
      }
    }
    const refusing = new RefusingDriver(driverOptions(f, storage));
    const nonce = await f.anvil.pub.getTransactionCount({ address: driver.hotWallet, blockTag: 'pending' });
    await expect(
      refusing.send({ id: 'payout-refused', network: 'ETH', currency: 'ETH', to: recipient(3), amount: '0.1', priority: 'recommended' }),
    ).rejects.toMatchObject({ name: 'HotWalletShortError', code: 'insufficient_funds' });
    await refusing.close();
    expect(await evmDb(storage.db).selectFrom('scan_outgoing').select('id').where('request_id', '=', 'payout-refused').execute()).toEqual([]);
    // The same id can be tried again later, and takes the nonce that was freed.
    const { txid } = await driver.send({ id: 'payout-refused', network: 'ETH', currency: 'ETH', to: recipient(3), amount: '0.1', priority: 'recommended' });
    expect((await f.anvil.pub.getTransaction({ hash: txid as Hex })).nonce).toBe(nonce);
    await f.anvil.mine();
    await driver.poll(sink);
  });

  it('reports a payout that reverts on chain as failed once final', async () => {
    const { abi } = compileTestToken();
    const { txid } = await driver.send({ id: 'payout-frozen', network: 'ETH', currency: 'USDT', to: recipient(3), amount: '1', priority: 'economy' });
    // The issuer freezes the hot wallet in the same block, ahead of the payout (higher tip).
    await f.anvil.wallet(0).writeContract({
      address: f.usdt.address,
      abi,
      functionName: 'freeze',
      args: [driver.hotWallet, true],
      maxPriorityFeePerGas: parseUnits('100', 9),
      maxFeePerGas: parseUnits('200', 9),
    });
    await f.anvil.mine();
    const receipt = await f.anvil.pub.getTransactionReceipt({ hash: txid as Hex });
    expect(receipt.status).toBe('reverted');
    await driver.poll(sink);
    expect(sink.outgoings(txid)).toEqual([]); // not final yet: a reorg could still change it
    await f.anvil.mine(CONFIRMATIONS - 1);
    await driver.poll(sink);
    expect(sink.outgoings(txid)).toEqual([{ txid, status: 'failed', confirmations: CONFIRMATIONS }]);
    expect(await outgoing(txid)).toMatchObject({ status: 'failed', error: 'reverted' });
    await f.anvil.wallet(0).writeContract({ address: f.usdt.address, abi, functionName: 'freeze', args: [driver.hotWallet, false] });
    await f.anvil.mine();
  });

  it('survives a crash between storing and broadcasting: one transaction, the same txid, no skipped nonce', async () => {
    class CrashingDriver extends EvmDriver {
      protected override async broadcast(): Promise<void> {
        throw new Error('process killed');
      }
    }
    const crashing = new CrashingDriver(driverOptions(f, storage));
    const req = { id: 'payout-crash', network: 'ETH', currency: 'ETH', to: recipient(2), amount: '0.5', priority: 'recommended' } as const;
    await expect(crashing.send(req)).rejects.toThrow('process killed');
    await crashing.close();
    const stored = await evmDb(storage.db).selectFrom('scan_outgoing').selectAll().where('request_id', '=', req.id).executeTakeFirstOrThrow();
    expect(stored.status).toBe('signed');
    expect(await f.anvil.rpc('txpool_status')).toEqual({ pending: '0x0', queued: '0x0' }); // never reached the node

    // A new process: the same id gives the same transaction, broadcast now.
    const restarted = makeDriver(f, storage);
    expect(await restarted.send(req)).toEqual({ txid: stored.txid });
    expect(await restarted.send(req)).toEqual({ txid: stored.txid });
    const next = await restarted.send({ ...req, id: 'payout-after-crash', amount: '0.25' });
    await f.anvil.mine();
    const block = await f.anvil.pub.getBlock({ blockTag: 'latest' });
    expect(block.transactions).toEqual([stored.txid, next.txid]);
    const [t1, t2] = await Promise.all([stored.txid, next.txid].map((h) => f.anvil.pub.getTransaction({ hash: h as Hex })));
    expect(t1!.nonce).toBe(Number(stored.nonce));
    expect(t2!.nonce).toBe(Number(stored.nonce) + 1);
    expect(await f.anvil.pub.getTransactionCount({ address: driver.hotWallet })).toBe(Number(stored.nonce) + 2);
    await restarted.close();
  });

  it('heals a crash on the next poll even if nobody sends again', async () => {
    class CrashingDriver extends EvmDriver {
      protected override async broadcast(): Promise<void> {
        throw new Error('process killed');
      }
    }
    const crashing = new CrashingDriver(driverOptions(f, storage));
    await expect(
      crashing.send({ id: 'payout-crash-2', network: 'ETH', currency: 'USDT', to: recipient(2), amount: '2', priority: 'recommended' }),
    ).rejects.toThrow('process killed');
    const stored = await evmDb(storage.db).selectFrom('scan_outgoing').selectAll().where('request_id', '=', 'payout-crash-2').executeTakeFirstOrThrow();
    await driver.poll(sink); // the scanner's process rebroadcasts what was stored
    expect(await f.anvil.rpc('txpool_status')).toEqual({ pending: '0x1', queued: '0x0' });
    await f.anvil.mine();
    await driver.poll(sink);
    expect(sink.outgoings(stored.txid)).toEqual([{ txid: stored.txid, status: 'confirmed', confirmations: 1 }]);
    expect(await f.usdt.balanceOf(recipient(2))).toBe(2_000_000n);
  });

  it('fails a payout whose nonce another transaction of the hot key took (checked twice, a minute apart)', async () => {
    class CrashingDriver extends EvmDriver {
      protected override async broadcast(): Promise<void> {
        throw new Error('process killed');
      }
    }
    const req = { id: 'payout-taken', network: 'ETH', currency: 'ETH', to: recipient(2), amount: '0.02', priority: 'recommended' } as const;
    await expect(new CrashingDriver(driverOptions(f, storage)).send(req)).rejects.toThrow('process killed');
    const stored = await evmDb(storage.db).selectFrom('scan_outgoing').selectAll().where('request_id', '=', req.id).executeTakeFirstOrThrow();
    // Meanwhile the operator spends from the hot wallet with another wallet app, same nonce.
    const hot = mnemonicToAccount(MNEMONIC, { accountIndex: 1, addressIndex: 0 });
    const fees = await f.anvil.pub.estimateFeesPerGas();
    const other = await hot.signTransaction({
      type: 'eip1559', chainId: f.anvil.chain.id, nonce: Number(stored.nonce), to: recipient(4), value: 1n, gas: 21_000n, ...fees,
    });
    await f.anvil.rpc('eth_sendRawTransaction', [other]);
    await f.anvil.mine();

    let clock = Date.now();
    const d = makeDriver(f, storage, { now: () => clock });
    const s = new RecordingSink();
    await d.poll(s);
    expect(s.outgoings(stored.txid)).toEqual([]); // once is not proof
    clock += 30_000;
    await d.poll(s);
    expect(s.outgoings(stored.txid)).toEqual([]);
    clock += 31_000;
    await d.poll(s);
    expect(s.outgoings(stored.txid)).toEqual([{ txid: stored.txid, status: 'failed', confirmations: 0 }]);
    expect(await outgoing(stored.txid)).toMatchObject({ status: 'failed', error: 'replaced' });
    // The next payout carries on with the next free nonce.
    const next = await d.send({ ...req, id: 'payout-after-taken' });
    expect((await f.anvil.pub.getTransaction({ hash: next.txid as Hex })).nonce).toBe(Number(stored.nonce) + 1);
    await f.anvil.mine();
    await d.close();
    await driver.poll(sink);
  });

  it('rebroadcasts a payout the node lost (a reorganisation) and follows it to its new block', async () => {
    const snap = await f.anvil.rpc<string>('evm_snapshot');
    await f.anvil.mine();
    const { txid } = await driver.send({ id: 'payout-reorg', network: 'ETH', currency: 'ETH', to: recipient(3), amount: '0.01', priority: 'recommended' });
    await f.anvil.mine();
    await driver.poll(sink);
    expect(sink.outgoings(txid)).toEqual([{ txid, status: 'confirmed', confirmations: 1 }]);
    await f.anvil.rpc('evm_revert', [snap]); // block and mempool gone
    await f.anvil.mine(3);
    await driver.poll(sink); // no receipt: rebroadcast the stored bytes
    expect((await outgoing(txid)).status).toBe('sent');
    await f.anvil.mine();
    await driver.poll(sink);
    await confirm(txid);
  });
});
