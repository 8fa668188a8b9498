// The `tron` driver through the whole gateway: invoices created over the signed API, paid on the
// TRON node double (TRX transfers and USDT TRC-20 transfers, signed by an outside payer with
// tronweb), found by the driver the worker polls, settled once their block is solidified.
import { merchantVerifies } from '../../helpers/merchant.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { backends } from '../../helpers/backends.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';
import { balanceOf } from '../../../src/ledger/index.ts';
import { TRON_PAYER as PAYER, TRON_PAYER_KEY as PAYER_KEY, TRON_USDT as USDT, TRX as UNITS, startTronGateway, type TronGateway } from '../gateway-setup.ts';

/** Today's custody: deposit addresses from the gateway's seed, swept to the hot wallet. */
const HOT = { custody: 'hot' } as const;

describe.each(await backends())('TRON payments through the gateway on $name', (backend) => {
  let g: TronGateway;
  let rx: Receiver;
  let n = 0;
  beforeAll(async () => {
    g = await startTronGateway(backend, { confirmations: 3, network: HOT });
    rx = await startReceiver();
  });
  afterAll(async () => {
    await g?.stopAll();
    await rx?.close();
  });
  beforeEach(() => {
    rx.deliveries.length = 0;
  });

  const newInvoice = async (body: Record<string, unknown> = {}) => {
    const r = await g.api('/v1/payment', { amount: '100', currency: 'USDT', network: 'TRON', order_id: `tron-${++n}`, url_callback: rx.url, ...body });
    expect(r.status, r.raw).toBe(200);
    return r.body.result as Record<string, any>;
  };
  const info = async (uuid: string) => (await g.api('/v1/payment/info', { uuid })).body.result as Record<string, any>;
  const balance = (currency = 'USDT') => balanceOf(g.ctx.storage.db, g.merchant.id, 'business', currency);
  const statuses = (uuid: string) => rx.deliveries.filter((d) => d.json.uuid === uuid).map((d) => d.json.status);

  it("the driver's status: the chain named by its genesis block id, the head and its time", async () => {
    const s = await g.driver().status();
    expect(s.chain).toMatch(/^[0-9a-f]{64}$/);
    expect(s).toEqual({ chain: s.chain, head: g.node.head.number, headTime: g.node.head.timestamp });
    g.node.mine(1);
    expect(await g.driver().status()).toEqual({ chain: s.chain, head: s.head + 1, headTime: g.node.head.timestamp });
  });

  it('TRX: process -> check -> paid once the block is solidified; credited; signed webhooks', async () => {
    const inv = await newInvoice({ amount: '150', currency: 'TRX' });
    expect(inv).toMatchObject({ network: 'TRON', payer_currency: 'TRX', payer_amount: '150.00', payment_status: 'process' });
    expect(inv.address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    const before = await balance('TRX');
    const txid = g.payTrx(inv.address, '150');
    await g.tick(); // in the node's pool only: not seen
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'process', txid: null });
    await g.mineAndTick(); // in a block, not solid
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'check', is_final: false, txid, from: PAYER });
    await g.mineAndTick();
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'check' });
    await g.mineAndTick(); // solidified (2 blocks behind the head)
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'paid', is_final: true, payment_amount: '150.00', merchant_amount: '147.00', txid, from: PAYER });
    expect(Number(await balance('TRX')) - Number(before)).toBeCloseTo(147, 6);
    await g.mineAndTick(2);
    expect(statuses(inv.uuid)).toEqual(['check', 'paid']);
    const paid = rx.deliveries.find((d) => d.json.uuid === inv.uuid && d.json.status === 'paid')!;
    expect(merchantVerifies(paid, g.merchant.payment_key)).toBe(true);
    expect(paid.json).toMatchObject({ network: 'TRON', currency: 'TRX', payer_currency: 'TRX', txid, from: PAYER });
    expect(g.node.trx(inv.address)).toBe(UNITS('150'));
  });

  it('USDT: a TRC-20 Transfer log of the known contract, exact amount -> paid', async () => {
    const inv = await newInvoice();
    const before = await balance();
    const txid = g.payUsdt(inv.address, '100');
    await g.mineAndTick();
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'check', is_final: false, payment_amount: null, txid, from: PAYER });
    await g.mineAndTick(2);
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'paid', is_final: true, payment_amount: '100.00', merchant_amount: '98.00', txid });
    expect(Number(await balance()) - Number(before)).toBeCloseTo(98, 6);
    expect(statuses(inv.uuid)).toEqual(['check', 'paid']);
    expect(g.node.tokenBalance(USDT, inv.address)).toBe(UNITS('100'));
  });

  it('a partial payment, then the rest: process -> paid; an overpayment is paid_over', async () => {
    const inv = await newInvoice();
    g.payUsdt(inv.address, '30');
    await g.mineAndTick(3);
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'process', payment_amount: '30.00', is_final: false });
    const rest = g.payUsdt(inv.address, '70');
    await g.mineAndTick(3);
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'paid', payment_amount: '100.00', txid: rest });
    expect(statuses(inv.uuid)).toEqual(['check', 'process', 'check', 'paid']);

    const over = await newInvoice();
    const before = await balance();
    g.payUsdt(over.address, '110');
    await g.mineAndTick(3);
    expect(await info(over.uuid)).toMatchObject({ payment_status: 'paid_over', is_final: true, payment_amount: '110.00', merchant_amount: '107.80' });
    expect(Number(await balance()) - Number(before)).toBeCloseTo(107.8, 6);
  });

  it('a REVERTed TRC-20 transfer is never credited, even from a node that shows its logs', async () => {
    const inv = await newInvoice();
    const poor = '3333333333333333333333333333333333333333333333333333333333333333';
    g.node.fund((await import('tronweb')).TronWeb.address.fromPrivateKey(poor) as string, UNITS('1000'));
    g.node.leakRevertedLogs = true;
    try {
      const txid = g.node.payToken(poor, USDT, inv.address, UNITS('100')); // holds no USDT: REVERT
      await g.mineAndTick(4);
      const onChain = await g.driver().api.txInfo(txid);
      expect(onChain).toMatchObject({ receipt: { result: 'REVERT' }, result: 'FAILED' });
      expect(onChain!.log).toHaveLength(1); // the faulty node shows a Transfer log anyway
    } finally {
      g.node.leakRevertedLogs = false;
    }
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'process', payment_amount: null, txid: null });
    expect(g.node.tokenBalance(USDT, inv.address)).toBe(0n);
    // Zero-value transfers (address poisoning) are ignored too.
    g.node.payToken(PAYER_KEY, USDT, inv.address, 0n);
    await g.mineAndTick(3);
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'process', payment_amount: null });
    expect(statuses(inv.uuid)).toEqual([]);
  });

  it('a static wallet on TRON: the first USDT top-up pays the creation fee (2 TRX, the activation cost), the next does not', async () => {
    const r = await g.api('/v1/wallet', { currency: 'USDT', network: 'TRON', order_id: `tron-wallet-${++n}`, url_callback: rx.url });
    expect(r.status, r.raw).toBe(200);
    const w = r.body.result as Record<string, any>;
    expect(w.address).toMatch(/^T/);
    const before = await balance();
    const first = g.payUsdt(w.address, '50');
    await g.mineAndTick(3);
    const topups = () => rx.deliveries.filter((d) => d.json.wallet_address_uuid === w.uuid);
    expect(topups()).toHaveLength(1);
    const h1 = topups()[0]!.json;
    expect(h1).toMatchObject({ type: 'wallet', status: 'paid', amount: '50.00', txid: first, network: 'TRON', currency: 'USDT' });
    expect(Number(h1.commission)).toBeGreaterThan(1); // 2% and the creation fee
    expect(Number(h1.merchant_amount) + Number(h1.commission)).toBeCloseTo(50, 6);
    g.payUsdt(w.address, '20');
    await g.mineAndTick(3);
    expect(topups()[1]!.json).toMatchObject({ status: 'paid', amount: '20.00', merchant_amount: '19.60', commission: '0.40' });
    expect(Number(await balance()) - Number(before)).toBeCloseTo(Number(h1.merchant_amount) + 19.6, 6);
  });

  it('a payment a reorganisation removes: check -> process, nothing credited; then paid in the new chain', async () => {
    const inv = await newInvoice();
    const before = await balance();
    const txid = g.payUsdt(inv.address, '100');
    await g.mineAndTick();
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'check', txid });
    g.node.reorg(1, [txid]); // the new chain leaves it out
    await g.tick();
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'process', payment_amount: null });
    await g.mineAndTick(3);
    expect(await balance()).toBe(before);
    expect(statuses(inv.uuid)).toEqual(['check', 'process']);

    // A payment the reorganisation moves to another block is followed there, credited once.
    const moved = g.payUsdt(inv.address, '100');
    await g.mineAndTick();
    const firstBlock = (await g.driver().api.txInfo(moved))!.blockNumber;
    g.node.reorg(1);
    await g.tick();
    expect((await g.driver().api.txInfo(moved))!.blockNumber).toBe(firstBlock); // same height, another block
    await g.mineAndTick(3);
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'paid', payment_amount: '100.00', txid: moved });
    expect(Number(await balance()) - Number(before)).toBeCloseTo(98, 6);
    const entries = await g.ctx.storage.db.selectFrom('ledger_entries').selectAll().where('ref_id', '=', inv.uuid).execute();
    expect(entries).toHaveLength(1);
  });
});

describe.each(await backends())('TRON on a node without the solidity API, behind an API key, on $name', (backend) => {
  let g: TronGateway;
  beforeAll(async () => {
    g = await startTronGateway(backend, { confirmations: 4, node: { solidity: false, apiKey: 'k-123' }, network: { ...HOT, api_key: 'k-123' } });
  });
  afterAll(async () => g?.stopAll());

  it('a payment is final at `confirmations` blocks, and every request carried the key', async () => {
    const r = await g.api('/v1/payment', { amount: '20', currency: 'USDT', network: 'TRON', order_id: 'nosolid-1' });
    const inv = r.body.result as Record<string, any>;
    g.payUsdt(inv.address, '20');
    const status = async () => ((await g.api('/v1/payment/info', { uuid: inv.uuid })).body.result as Record<string, any>).payment_status;
    await g.mineAndTick(3);
    expect(await status()).toBe('check');
    await g.mineAndTick();
    expect(await status()).toBe('paid');
    expect(g.node.calls.get('/walletsolidity/getnowblock')).toBeGreaterThan(0); // asked, answered 404
  });
});
