// Issue 7, money in and out through the whole gateway on a real chain (anvil): a static wallet's
// top-ups, payouts from the hot wallet reaching `paid`, payouts that fail (on chain, or refused
// before signing) with their funds returned, and a worker dying in the middle of sending a payout
// while a second worker carries on: the payout goes out exactly once.
import { merchantVerifies } from '../../helpers/merchant.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { parseEther, parseUnits, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { backends } from '../../helpers/backends.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';
import { balanceOf, entriesSum, post } from '../../../src/ledger/index.ts';
import { evmDb } from '../../../src/chain/evm/schema.ts';
import type { EvmDriver } from '../../../src/chain/evm/evm-driver.ts';
import { LEASE_MS } from '../../../src/outgoing/sender.ts';
import { compileTestToken } from './anvil.ts';
import {PAYER, secondInstance, startEvmGateway, type EvmGateway } from '../gateway-setup.ts';

const PAYOUT_WEBHOOK_KEYS = ['type', 'uuid', 'order_id', 'amount', 'merchant_amount', 'commission', 'is_final', 'status', 'txid', 'currency', 'network', 'payer_currency', 'payer_amount', 'sign'];

describe.each(await backends())('EVM money in and out through the gateway on $name', (backend) => {
  let g: EvmGateway;
  let rx: Receiver;
  let n = 0;
  beforeAll(async () => {
    g = await startEvmGateway(backend, { confirmations: 2 });
    rx = await startReceiver();
    // The hot wallet holds coin for gas and native payouts, and USDT to pay out.
    const hot = g.driver().hotWallet;
    await g.anvil.wallet(0).sendTransaction({ to: hot, value: parseEther('10') });
    await g.usdt.mint(hot, parseUnits('10000', 6));
    await g.anvil.mine();
  });
  afterAll(async () => {
    await g?.stopAll();
    await rx?.close();
  });
  beforeEach(() => {
    rx.deliveries.length = 0;
  });

  /** Credits the merchant's business balance directly (as paid invoices would have). */
  const fund = (currency: string, amount: string) =>
    g.ctx.storage.write((trx) =>
      post(trx, {
        merchantId: g.merchant.id, wallet: 'business', currency, amount, reason: 'test_funding',
        ref: { kind: 'test', id: 'funding' }, key: `test:${randomUUID()}`, now: g.ctx.now(),
      }),
    );
  const balance = (currency = 'USDT') => balanceOf(g.ctx.storage.db, g.merchant.id, 'business', currency);
  const ledgerAgrees = async (currency = 'USDT') => (await balance(currency)) === (await entriesSum(g.ctx.storage.db, g.merchant.id, 'business', currency));
  const payee = () => privateKeyToAccount(generatePrivateKey()).address;
  const createPayout = async (body: Record<string, unknown>) => {
    const r = await g.api(
      '/v1/payout',
      { amount: '10', currency: 'USDT', network: 'ETH', is_subtract: true, order_id: `evm-out-${++n}`, url_callback: rx.url, ...body },
      { key: 'payout' },
    );
    expect(r.status, r.raw).toBe(200);
    return r.body.result as Record<string, any>;
  };
  const payoutInfo = async (uuid: string) => (await g.api('/v1/payout/info', { uuid }, { key: 'payout' })).body.result as Record<string, any>;
  const hooks = (uuid: string) => rx.deliveries.filter((d) => d.json.uuid === uuid);
  /** What the payee is to receive, exactly (the API shows it as a JSON number). */
  const payerAmount = async (uuid: string) =>
    (await g.ctx.storage.db.selectFrom('payouts').select('payer_amount').where('id', '=', uuid).executeTakeFirstOrThrow()).payer_amount;
  const outgoingRows = (payoutId: string) => evmDb(g.ctx.storage.db).selectFrom('scan_outgoing').selectAll().where('request_id', '=', payoutId).execute();
  const freezeHotWallet = async (frozen: boolean) => {
    // The token's issuer freezes (or unfreezes) the hot wallet; a high tip puts it first in the block.
    await g.anvil.wallet(0).writeContract({
      address: g.usdt.address, abi: compileTestToken().abi, functionName: 'freeze', args: [g.driver().hotWallet, frozen],
      maxPriorityFeePerGas: parseUnits('100', 9), maxFeePerGas: parseUnits('200', 9),
    });
  };

  it('a static wallet (/v1/wallet): each confirmed top-up is credited once, with a signed wallet webhook', async () => {
    const r = await g.api('/v1/wallet', { currency: 'USDT', network: 'ETH', order_id: `evm-wallet-${++n}`, url_callback: rx.url });
    expect(r.status, r.raw).toBe(200);
    const w = r.body.result as Record<string, any>;
    expect(w).toMatchObject({ network: 'ETH', currency: 'USDT', address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/) });
    const before = await balance();

    const first = await g.payToken(w.address, '50');
    await g.mineAndTick(); // 1 of 2 confirmations: nothing credited yet
    expect(await balance()).toBe(before);
    await g.mineAndTick();
    const topups = () => rx.deliveries.filter((d) => d.json.wallet_address_uuid === w.uuid);
    expect(topups()).toHaveLength(1);
    const h1 = topups()[0]!;
    expect(merchantVerifies(h1, g.merchant.payment_key)).toBe(true);
    expect(h1.json).toMatchObject({
      type: 'wallet', order_id: w.order_id, amount: '50.00', payment_amount: '50.00', is_final: true, status: 'paid',
      from: g.anvil.account(PAYER).address, wallet_address_uuid: w.uuid, network: 'ETH', currency: 'USDT', payer_currency: 'USDT', txid: first,
    });
    // 2% commission, and the wallet's one-time creation fee with the first top-up.
    expect(Number(h1.json.commission)).toBeGreaterThan(1);
    expect(Number(h1.json.merchant_amount) + Number(h1.json.commission)).toBeCloseTo(50, 6);
    expect(Number(await balance()) - Number(before)).toBeCloseTo(Number(h1.json.merchant_amount), 6);

    // A second top-up to the same address: no creation fee this time. Later blocks change nothing.
    const second = await g.payToken(w.address, '20');
    await g.mineAndTick(4);
    expect(topups()).toHaveLength(2);
    expect(topups()[1]!.json).toMatchObject({ status: 'paid', amount: '20.00', merchant_amount: '19.60', commission: '0.40', txid: second });
    expect(merchantVerifies(topups()[1]!, g.merchant.payment_key)).toBe(true);
    expect(Number(await balance()) - Number(before)).toBeCloseTo(Number(h1.json.merchant_amount) + 19.6, 6);
    const rows = await g.ctx.storage.db.selectFrom('wallet_topups').select(['txid', 'outcome']).where('wallet_id', '=', w.uuid).execute();
    expect(rows.map((x) => x.txid).sort()).toEqual([first, second].sort());
    expect(await ledgerAgrees()).toBe(true);
  });

  it('a USDT payout (/v1/payout): signed from the hot wallet, broadcast, confirmed -> paid', async () => {
    await fund('USDT', '100');
    const before = await balance();
    const to = payee();
    const p = await createPayout({ amount: '10', address: to });
    expect(p).toMatchObject({ status: 'process', is_final: false, txid: null, network: 'ETH', currency: 'USDT', payer_currency: 'USDT' });
    const reserved = Number(before) - Number(await balance());
    expect(reserved).toBeCloseTo(Number(p.merchant_amount), 6);

    await g.tick(); // the worker sends it
    const sent = await payoutInfo(p.uuid);
    expect(sent).toMatchObject({ status: 'check', is_final: false, txid: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    const [row] = await outgoingRows(p.uuid);
    expect(row).toMatchObject({ kind: 'payout', txid: sent.txid, currency: 'USDT', amount: await payerAmount(p.uuid) });
    expect(row!.from_address).toBe(g.driver().hotWallet.toLowerCase());

    await g.mineAndTick(); // 1 of 2
    expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'check', is_final: false });
    await g.mineAndTick(); // 2 of 2
    expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'paid', is_final: true, txid: sent.txid });
    expect(await g.usdt.balanceOf(to)).toBe(parseUnits(await payerAmount(p.uuid), 6));
    const receipt = await g.anvil.pub.getTransactionReceipt({ hash: sent.txid as Hex });
    expect(receipt.status).toBe('success');

    expect(hooks(p.uuid).map((d) => d.json.status)).toEqual(['check', 'paid']);
    const paid = hooks(p.uuid)[1]!;
    expect(Object.keys(paid.json)).toEqual(PAYOUT_WEBHOOK_KEYS);
    expect(paid.json).toMatchObject({ type: 'payout', uuid: p.uuid, status: 'paid', is_final: true, txid: sent.txid, network: 'ETH', currency: 'USDT', payer_currency: 'USDT', amount: '10.00', payer_amount: '10.00', merchant_amount: p.merchant_amount });
    expect(merchantVerifies(paid, g.merchant.payout_key)).toBe(true);
    expect(Number(before) - Number(await balance())).toBeCloseTo(Number(p.merchant_amount), 6);
    expect(await ledgerAgrees()).toBe(true);
  });

  it('a native ETH payout reaches paid, and the address receives exactly payer_amount', async () => {
    await fund('ETH', '1');
    const to = payee();
    const p = await createPayout({ amount: '0.05', currency: 'ETH', address: to, priority: 'high' });
    await g.tick();
    const { txid } = await payoutInfo(p.uuid);
    await g.mineAndTick(2);
    expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'paid', is_final: true, txid });
    expect(await g.anvil.pub.getBalance({ address: to })).toBe(parseEther(await payerAmount(p.uuid)));
    expect(hooks(p.uuid).map((d) => d.json.status)).toEqual(['check', 'paid']);
    expect(await ledgerAgrees('ETH')).toBe(true);
  });

  it('a payout whose transaction reverts on chain: check -> fail once final, the funds return', async () => {
    await fund('USDT', '20');
    const before = await balance();
    const to = payee();
    const p = await createPayout({ amount: '10', address: to });
    await g.tick();
    const { txid } = await payoutInfo(p.uuid);
    expect(txid).toMatch(/^0x/);
    await freezeHotWallet(true); // mined ahead of the payout, which then reverts
    try {
      await g.mineAndTick();
      expect((await g.anvil.pub.getTransactionReceipt({ hash: txid as Hex })).status).toBe('reverted');
      // Not final yet: a reorganisation could still change it.
      expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'check', is_final: false });
      await g.mineAndTick();
      expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'fail', is_final: true, txid });
    } finally {
      await freezeHotWallet(false);
      await g.anvil.mine();
    }
    expect(await balance()).toBe(before);
    expect(await g.usdt.balanceOf(to)).toBe(0n);
    expect(hooks(p.uuid).map((d) => d.json.status)).toEqual(['check', 'fail']);
    expect(merchantVerifies(hooks(p.uuid)[1]!, g.merchant.payout_key)).toBe(true);
    await g.mineAndTick(2); // final: nothing more happens, nothing is returned twice
    expect(await balance()).toBe(before);
    expect(await ledgerAgrees()).toBe(true);
  });

  it('a payout that would revert is refused before anything is signed: fail, the funds return', async () => {
    await fund('USDT', '20');
    const before = await balance();
    const p = await createPayout({ amount: '10', address: payee() });
    await freezeHotWallet(true);
    await g.anvil.mine();
    try {
      await g.tick();
    } finally {
      await freezeHotWallet(false);
      await g.anvil.mine();
    }
    expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'fail', is_final: true, txid: null });
    expect(await outgoingRows(p.uuid)).toEqual([]); // nothing signed, no nonce used
    expect(await balance()).toBe(before);
    await g.tick();
    expect(hooks(p.uuid).map((d) => d.json.status)).toEqual(['fail']);
    expect(await ledgerAgrees()).toBe(true);
  });

  it('a worker dies between storing the signed payout and broadcasting it: the other worker sends that one transaction', async () => {
    await fund('USDT', '20');
    const before = await balance();
    const to = payee();
    const p = await createPayout({ amount: '10', address: to });
    const hot = g.driver().hotWallet;
    const nonceBefore = await g.anvil.pub.getTransactionCount({ address: hot, blockTag: 'pending' });

    // Worker A claims the payout, signs and stores its transaction, and its process dies right
    // there: nothing it would write afterwards is written.
    const a = await secondInstance(g);
    const da = a.ctx.chains.driver('ETH') as EvmDriver;
    Object.assign(da, {
      broadcast: async () => {
        await a.ctx.storage.close();
        throw new Error('process killed');
      },
    });
    expect((await a.tick()).length).toBeGreaterThan(0);
    await a.close();
    const [stored] = await outgoingRows(p.uuid);
    expect(stored).toMatchObject({ status: 'signed' });
    expect(await g.anvil.rpc('txpool_status')).toEqual({ pending: '0x0', queued: '0x0' });
    expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'process', txid: null });

    // Worker B (this gateway) carries on: its scanner broadcasts the stored bytes at once; the
    // payout is A's until its lease ends, then B claims it and the driver hands back that same
    // transaction.
    await g.tick();
    expect(await g.anvil.rpc('txpool_status')).toEqual({ pending: '0x1', queued: '0x0' });
    expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'process', txid: null });
    g.clock.advance(LEASE_MS);
    await g.tick();
    expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'check', txid: stored!.txid });
    expect(await g.anvil.rpc('txpool_status')).toEqual({ pending: '0x1', queued: '0x0' });
    await g.mineAndTick(2);
    expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'paid', is_final: true, txid: stored!.txid });

    expect(await outgoingRows(p.uuid)).toHaveLength(1);
    expect(await g.usdt.balanceOf(to)).toBe(parseUnits(await payerAmount(p.uuid), 6));
    expect(await g.anvil.pub.getTransactionCount({ address: hot })).toBe(nonceBefore + 1);
    expect(Number(stored!.nonce)).toBe(nonceBefore);
    expect(hooks(p.uuid).map((d) => d.json.status)).toEqual(['check', 'paid']);
    expect(Number(before) - Number(await balance())).toBeCloseTo(Number(p.merchant_amount), 6);
  });

  it('a worker dies after broadcasting, before recording the txid: after its lease the other worker records the same transaction', async () => {
    await fund('USDT', '20');
    const to = payee();
    const p = await createPayout({ amount: '10', address: to });
    const hot = g.driver().hotWallet;
    const nonceBefore = await g.anvil.pub.getTransactionCount({ address: hot, blockTag: 'pending' });

    // Worker A broadcasts, then its process dies before it can write anything more.
    const a = await secondInstance(g);
    const da = a.ctx.chains.driver('ETH') as EvmDriver;
    const realSend = da.send.bind(da);
    let broadcastTxid = '';
    da.send = async (req) => {
      broadcastTxid = (await realSend(req)).txid;
      await a.ctx.storage.close();
      throw new Error('process killed');
    };
    const errors = await a.tick();
    expect(errors.length).toBeGreaterThan(0);
    await a.close();
    expect(broadcastTxid).toMatch(/^0x/);
    expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'process', txid: null });

    // The transaction is mined and confirmed while no payout knows its txid; B's lease check
    // keeps it from sending again meanwhile.
    await g.mineAndTick(2);
    expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'process', txid: null });
    expect(await outgoingRows(p.uuid)).toHaveLength(1);

    // Once A's lease is over, B claims it: the driver answers with A's transaction, already final.
    g.clock.advance(LEASE_MS);
    await g.tick();
    expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'paid', is_final: true, txid: broadcastTxid });
    expect(await outgoingRows(p.uuid)).toHaveLength(1);
    expect(await g.usdt.balanceOf(to)).toBe(parseUnits(await payerAmount(p.uuid), 6));
    expect(await g.anvil.pub.getTransactionCount({ address: hot })).toBe(nonceBefore + 1);
    await g.tick(); // delivers the webhooks queued by the payout job (it runs after the deliverer)
    expect(hooks(p.uuid).map((d) => d.json.status)).toEqual(['check', 'paid']);
    expect(await ledgerAgrees()).toBe(true);
  });

  it.runIf(backend.name === 'postgres')('two workers at the same moment: one claims the payout, it goes out once', async () => {
    await fund('USDT', '20');
    const to = payee();
    const p = await createPayout({ amount: '10', address: to });
    const a = await secondInstance(g);
    try {
      const [errors] = await Promise.all([a.tick(), g.tick()]);
      expect(errors).toEqual([]);
    } finally {
      await a.close();
    }
    expect(await outgoingRows(p.uuid)).toHaveLength(1);
    expect(await g.anvil.rpc('txpool_status')).toEqual({ pending: '0x1', queued: '0x0' });
    await g.mineAndTick(2);
    expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'paid', is_final: true });
    expect(await g.usdt.balanceOf(to)).toBe(parseUnits(await payerAmount(p.uuid), 6));
    const row = await g.ctx.storage.db.selectFrom('payouts').select('attempts').where('id', '=', p.uuid).executeTakeFirstOrThrow();
    expect(row.attempts).toBe(1);
  });
});
