// Issue 7 through the whole gateway: invoices created over the signed API, paid with real
// transactions on anvil, found by the `evm` driver the worker polls, settled by the invoice state
// machine (ledger credit, signed webhooks), and swept to the hot wallet. Mirrors the flows of
// test/invoices/lifecycle.test.ts, on a real chain instead of the simulator.
import { merchantVerifies } from '../../helpers/merchant.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseEther, parseUnits } from 'viem';
import { backends } from '../../helpers/backends.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';
import { balanceOf } from '../../../src/ledger/index.ts';
import { evmDb } from '../../../src/chain/evm/schema.ts';
import {PAYER, startEvmGateway, type EvmGateway } from '../gateway-setup.ts';

describe.each(await backends())('EVM payments through the gateway on $name', (backend) => {
  let g: EvmGateway;
  let rx: Receiver;
  let n = 0;
  beforeAll(async () => {
    // Sweeping is on but only runs when asked (every_seconds 0), so the payment tests see the
    // deposit balances as paid; the sweep test then moves everything above the thresholds.
    g = await startEvmGateway(backend, {
      confirmations: 2,
      sweep: { enabled: true, every_seconds: 0, min_native: '0.01', min_token: { USDT: '1', USDC: '1' } },
    });
    rx = await startReceiver();
  });
  afterAll(async () => {
    await g?.stopAll();
    await rx?.close();
  });
  beforeEach(() => {
    rx.deliveries.length = 0;
  });

  const payer = () => g.anvil.account(PAYER).address;
  const newInvoice = async (body: Record<string, unknown> = {}) => {
    const r = await g.api('/v1/payment', { amount: '100', currency: 'USDT', network: 'ETH', order_id: `evm-${++n}`, url_callback: rx.url, ...body });
    expect(r.status, r.raw).toBe(200);
    return r.body.result as Record<string, any>;
  };
  const info = async (uuid: string) => (await g.api('/v1/payment/info', { uuid })).body.result as Record<string, any>;
  const balance = (currency = 'USDT') => balanceOf(g.ctx.storage.db, g.merchant.id, 'business', currency);
  const statuses = (uuid: string) => rx.deliveries.filter((d) => d.json.uuid === uuid).map((d) => d.json.status);
  const delivered = (uuid: string, status: string) => rx.deliveries.find((d) => d.json.uuid === uuid && d.json.status === status)!;

  it('native ETH: process -> check -> paid as confirmations rise; credited; signed webhooks', async () => {
    const inv = await newInvoice({ amount: '0.05', currency: 'ETH' });
    expect(inv).toMatchObject({ network: 'ETH', payer_currency: 'ETH', payer_amount: '0.05', payment_status: 'process' });
    expect(inv.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const before = await balance('ETH');

    const txid = await g.payNative(inv.address, '0.05');
    await g.tick(); // only in the mempool: not seen
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'process', txid: null });

    await g.mineAndTick(); // 1 confirmation of 2
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'check', status: 'check', is_final: false, payment_amount: null, txid, from: payer() });
    expect(await balance('ETH')).toBe(before);

    await g.mineAndTick(); // 2 of 2
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'paid', is_final: true, payment_amount: '0.05', merchant_amount: '0.049', txid, from: payer() });
    expect(Number(await balance('ETH')) - Number(before)).toBeCloseTo(0.049, 12);

    await g.mineAndTick(2); // further blocks change nothing
    expect(statuses(inv.uuid)).toEqual(['check', 'paid']);
    const paid = delivered(inv.uuid, 'paid');
    expect(merchantVerifies(paid, g.merchant.payment_key)).toBe(true);
    expect(paid.json).toMatchObject({ type: 'payment', uuid: inv.uuid, order_id: inv.order_id, payment_amount: '0.05', merchant_amount: '0.049', is_final: true, network: 'ETH', currency: 'ETH', payer_currency: 'ETH', from: payer(), txid });
    expect(merchantVerifies(delivered(inv.uuid, 'check'), g.merchant.payment_key)).toBe(true);
    const entries = await g.ctx.storage.db.selectFrom('ledger_entries').selectAll().where('ref_id', '=', inv.uuid).execute();
    expect(entries).toHaveLength(1);
  });

  it('USDT on ETH: a token transfer is found by its Transfer log, confirmed, credited', async () => {
    const inv = await newInvoice();
    const before = await balance();
    const txid = await g.payToken(inv.address, '100');
    await g.mineAndTick();
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'check', is_final: false, payment_amount: null, txid, from: payer() });
    await g.mineAndTick();
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'paid', is_final: true, payment_amount: '100.00', merchant_amount: '98.00', txid });
    expect(Number(await balance()) - Number(before)).toBeCloseTo(98, 6);
    expect(statuses(inv.uuid)).toEqual(['check', 'paid']);
    const paid = delivered(inv.uuid, 'paid');
    expect(merchantVerifies(paid, g.merchant.payment_key)).toBe(true);
    expect(paid.json).toMatchObject({ amount: '100.00', payment_amount: '100.00', merchant_amount: '98.00', commission: '2.00', network: 'ETH', currency: 'USDT', payer_currency: 'USDT', txid });
    // The chain shows the payment on the deposit address the invoice gave.
    expect(await g.usdt.balanceOf(inv.address)).toBe(parseUnits('100', 6));
  });

  it('a partial payment, then the rest to the same address: process -> paid', async () => {
    const inv = await newInvoice();
    const before = await balance();
    await g.payToken(inv.address, '30');
    await g.mineAndTick(2);
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'process', is_final: false, payment_amount: '30.00', address: inv.address });
    expect(await balance()).toBe(before);
    const rest = await g.payToken(inv.address, '70');
    await g.mineAndTick();
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'check', payment_amount: '30.00', txid: rest });
    await g.mineAndTick();
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'paid', is_final: true, payment_amount: '100.00', merchant_amount: '98.00', txid: rest });
    expect(Number(await balance()) - Number(before)).toBeCloseTo(98, 6);
    expect(statuses(inv.uuid)).toEqual(['check', 'process', 'check', 'paid']);
    expect(rx.deliveries.filter((d) => d.json.uuid === inv.uuid).every((d) => merchantVerifies(d, g.merchant.payment_key))).toBe(true);
  });

  it('an overpayment is paid_over and credits everything received, in proportion', async () => {
    const inv = await newInvoice();
    const before = await balance();
    await g.payToken(inv.address, '110');
    await g.mineAndTick(2);
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'paid_over', is_final: true, payment_amount: '110.00', merchant_amount: '107.80' });
    expect(Number(await balance()) - Number(before)).toBeCloseTo(107.8, 6);
    expect(statuses(inv.uuid)).toEqual(['check', 'paid_over']);
    expect(merchantVerifies(delivered(inv.uuid, 'paid_over'), g.merchant.payment_key)).toBe(true);
  });

  it('a payment a reorganisation removes: check -> process, nothing credited', async () => {
    const inv = await newInvoice();
    const before = await balance();
    const snapshot = await g.anvil.rpc<string>('evm_snapshot');
    const txid = await g.payToken(inv.address, '100');
    await g.mineAndTick();
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'check', txid });

    // Another chain, longer, without that transaction, replaces it.
    await g.anvil.rpc('evm_revert', [snapshot]);
    await g.anvil.mine(3);
    expect(await g.anvil.pub.getTransactionReceipt({ hash: txid }).catch(() => null)).toBeNull();
    await g.tick();
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'process', is_final: false, payment_amount: null });
    expect(await balance()).toBe(before);
    await g.mineAndTick(2);
    expect((await info(inv.uuid)).payment_status).toBe('process');
    expect(await balance()).toBe(before);
    expect(statuses(inv.uuid)).toEqual(['check', 'process']);
    const row = await g.ctx.storage.db.selectFrom('chain_transfers').select(['status']).where('txid', '=', txid).executeTakeFirstOrThrow();
    expect(row.status).toBe('dropped');
    const entries = await g.ctx.storage.db.selectFrom('ledger_entries').selectAll().where('ref_id', '=', inv.uuid).execute();
    expect(entries).toEqual([]);

    // The same invoice can still be paid on the new chain.
    await g.payToken(inv.address, '100');
    await g.mineAndTick(2);
    expect((await info(inv.uuid)).payment_status).toBe('paid');
    expect(Number(await balance()) - Number(before)).toBeCloseTo(98, 6);
  });

  it('a payment a reorganisation moves to another block is followed there and credited once', async () => {
    const inv = await newInvoice();
    const before = await balance();
    const snapshot = await g.anvil.rpc<string>('evm_snapshot');
    const txid = await g.payToken(inv.address, '100');
    const raw = await g.anvil.rpc<string>('eth_getRawTransactionByHash', [txid]);
    await g.mineAndTick();
    const first = await g.anvil.pub.getTransactionReceipt({ hash: txid });
    expect((await info(inv.uuid)).payment_status).toBe('check');

    // The competing chain has an empty block first, then the same transaction.
    await g.anvil.rpc('evm_revert', [snapshot]);
    await g.anvil.mine();
    await g.anvil.rpc('eth_sendRawTransaction', [raw]);
    await g.anvil.mine(2);
    const moved = await g.anvil.pub.getTransactionReceipt({ hash: txid });
    expect(moved.blockNumber).toBe(first.blockNumber + 1n);
    await g.tick();
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'paid', payment_amount: '100.00', txid });
    const row = await g.ctx.storage.db.selectFrom('chain_transfers').selectAll().where('txid', '=', txid).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'confirmed', block_hash: moved.blockHash, block_height: Number(moved.blockNumber) });
    expect(Number(await balance()) - Number(before)).toBeCloseTo(98, 6);
    const entries = await g.ctx.storage.db.selectFrom('ledger_entries').selectAll().where('ref_id', '=', inv.uuid).execute();
    expect(entries).toHaveLength(1);
    expect(statuses(inv.uuid)).toEqual(['check', 'paid']);
  });

  it('watches an address stamped before one the scanner already read but committed after it', async () => {
    // Invoice creation stamps its address when the request starts and commits later (after the
    // rate lookup): a request that started first can commit after a later one was already read.
    const later = await newInvoice();
    await g.tick(); // the scanner reads the newest address
    g.clock.advance(-2_000);
    const earlier = await newInvoice(); // stamped 2 s before `later`, committed after it was read
    g.clock.advance(2_000);
    const [a, b] = await Promise.all(
      [earlier, later].map((i) => g.ctx.storage.db.selectFrom('addresses').select('created_at').where('address', '=', i.address).executeTakeFirstOrThrow()),
    );
    expect(Number(a!.created_at)).toBeLessThan(Number(b!.created_at));
    const txid = await g.payToken(earlier.address, '100');
    await g.mineAndTick(2);
    expect(await info(earlier.uuid)).toMatchObject({ payment_status: 'paid', txid });
  });

  it('a late payment to an expired invoice is seen, credited and announced: cancel -> paid', async () => {
    const inv = await newInvoice({ lifetime: 300 });
    g.clock.advance(301_000);
    await g.tick();
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'cancel', is_final: true, payment_amount: null });
    const before = await balance();
    const txid = await g.payToken(inv.address, '100');
    await g.mineAndTick(2);
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'paid', is_final: true, payment_amount: '100.00', merchant_amount: '98.00', txid });
    expect(Number(await balance()) - Number(before)).toBeCloseTo(98, 6);
    expect(statuses(inv.uuid)).toEqual(['cancel', 'paid']);
    expect(rx.deliveries.filter((d) => d.json.uuid === inv.uuid).every((d) => merchantVerifies(d, g.merchant.payment_key))).toBe(true);
  });

  it('sweeps every confirmed deposit to the hot wallet (gas first for tokens), recording each movement', async () => {
    const driver = g.driver();
    const hot = driver.hotWallet;
    await g.anvil.wallet(0).sendTransaction({ to: hot, value: parseEther('1') });
    await g.anvil.mine();
    const db = evmDb(g.ctx.storage.db);
    const deposits = await db
      .selectFrom('scan_transfers')
      .select(['to_address', 'currency', 'amount'])
      .where('network', '=', 'ETH')
      .where('status', '=', 'confirmed')
      .execute();
    const usdtIn = deposits.filter((d) => d.currency === 'USDT').reduce((s, d) => s + parseUnits(d.amount, 6), 0n);
    const usdtAddrs = [...new Set(deposits.filter((d) => d.currency === 'USDT').map((d) => d.to_address as `0x${string}`))];
    const ethAddrs = [...new Set(deposits.filter((d) => d.currency === 'ETH').map((d) => d.to_address as `0x${string}`))];
    expect(usdtIn).toBe(parseUnits('710', 6)); // 100 + 30 + 70 + 110 + 100 (after the reorg) + 100 (moved) + 100 (stamped earlier) + 100 (late); not the orphaned one
    expect(ethAddrs).toHaveLength(1);
    const hotUsdt = await g.usdt.balanceOf(hot);
    const hotEth = await g.anvil.pub.getBalance({ address: hot });

    for (let round = 0; round < 6; round++) {
      await driver.sweep();
      await g.mineAndTick();
    }
    const moves = await db.selectFrom('evm_movements').selectAll().where('network', '=', 'ETH').execute();
    expect(moves.length).toBeGreaterThan(0);
    expect(moves.every((m) => m.status === 'done')).toBe(true);
    // Token addresses had no coin for gas: each got a top-up from the hot wallet, then swept.
    expect(moves.filter((m) => m.kind === 'gas').map((m) => m.to_address).sort()).toEqual(usdtAddrs.map((a) => a.toLowerCase()).sort());
    expect(moves.filter((m) => m.kind === 'sweep' && m.currency === 'USDT')).toHaveLength(usdtAddrs.length);
    // The ETH address is swept less the fee; what is left of the gas top-ups is under min_native.
    expect(moves.filter((m) => m.kind === 'sweep' && m.currency === 'ETH').map((m) => m.from_address)).toEqual(ethAddrs.map((a) => a.toLowerCase()));

    expect((await g.usdt.balanceOf(hot)) - hotUsdt).toBe(usdtIn);
    for (const a of usdtAddrs) expect(await g.usdt.balanceOf(a)).toBe(0n);
    const ethSwept = parseEther(moves.find((m) => m.kind === 'sweep' && m.currency === 'ETH')!.amount);
    expect(ethSwept).toBeGreaterThan(parseEther('0.0499'));
    expect(await g.anvil.pub.getBalance({ address: ethAddrs[0]! })).toBeLessThan(parseEther('0.0001'));
    // The hot wallet received the ETH sweep and paid the gas top-ups.
    const gasSent = moves.filter((m) => m.kind === 'gas').reduce((s, m) => s + parseEther(m.amount), 0n);
    const delta = (await g.anvil.pub.getBalance({ address: hot })) - hotEth;
    expect(delta).toBeLessThanOrEqual(ethSwept - gasSent);
    expect(delta).toBeGreaterThan(ethSwept - gasSent - parseEther('0.001'));

    // Moving the money is not a payment: no invoice changed, nothing was credited, no webhook.
    expect(rx.deliveries).toEqual([]);
    const rows = await db.selectFrom('scan_transfers').select('swept').where('status', '=', 'confirmed').execute();
    expect(rows.every((r) => r.swept === 1)).toBe(true);
  });
});
