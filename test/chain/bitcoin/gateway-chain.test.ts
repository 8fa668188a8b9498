// Issue 12, what a UTXO chain does to a payment after it is first seen, through the whole gateway
// on litecoind (regtest, -mempoolreplacement=1): a fee bump (replace-by-fee) paying the same
// address, a double-spend to someone else, reorganisations made with invalidateblock, and the node
// going away mid-way.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { backends } from '../../helpers/backends.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';
import { balanceOf } from '../../../src/ledger/index.ts';
import { startLtcGateway, type LtcGateway } from '../gateway-setup.ts';
import { Payer } from './litecoind.ts';

describe.each(await backends())('Litecoin payments the chain takes back, on $name', (backend) => {
  let g: LtcGateway;
  let rx: Receiver;
  let n = 0;
  beforeAll(async () => {
    g = await startLtcGateway(backend, { confirmations: 2 });
    rx = await startReceiver();
  }, 60_000);
  afterAll(async () => {
    await g?.stopAll();
    await rx?.close();
  });
  beforeEach(() => {
    rx.deliveries.length = 0;
  });

  const newInvoice = async (body: Record<string, unknown> = {}) => {
    const r = await g.api('/v1/payment', { amount: '1', currency: 'LTC', network: 'LTC', order_id: `ltc-chain-${++n}`, url_callback: rx.url, ...body });
    expect(r.status, r.raw).toBe(200);
    return r.body.result as Record<string, any>;
  };
  const info = async (uuid: string) => (await g.api('/v1/payment/info', { uuid })).body.result as Record<string, any>;
  const balance = () => balanceOf(g.ctx.storage.db, g.merchant.id, 'business', 'LTC');
  const statuses = (uuid: string) => rx.deliveries.filter((d) => d.json.uuid === uuid).map((d) => d.json.status);
  const transfer = (txid: string) => g.ctx.storage.db.selectFrom('chain_transfers').select(['status', 'confirmations']).where('txid', '=', txid).executeTakeFirst();
  const credits = async (uuid: string) => (await g.ctx.storage.db.selectFrom('ledger_entries').selectAll().where('ref_id', '=', uuid).execute()).length;

  it('a fee-bumped payment is followed under its new txid and credited once', async () => {
    const inv = await newInvoice();
    const before = await balance();
    const first = await g.payer.pay([{ address: inv.address, amount: '1' }], { feeRate: 2 });
    await g.tick();
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'check', txid: first.txid });

    const bumped = await g.payer.respend(first, [{ address: inv.address, amount: '1' }], 20);
    const mempool = await g.node.rpc<string[]>('getrawmempool');
    expect(mempool).toContain(bumped.txid);
    expect(mempool).not.toContain(first.txid);
    await g.tick();
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'check', txid: bumped.txid });
    expect(await transfer(first.txid)).toMatchObject({ status: 'dropped' });

    await g.mineAndTick(2);
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'paid', payment_amount: '1.00', merchant_amount: '0.98', txid: bumped.txid });
    expect(Number(await balance()) - Number(before)).toBeCloseTo(0.98, 8);
    expect(statuses(inv.uuid)).toEqual(['check', 'paid']);
    expect(await credits(inv.uuid)).toBe(1);
  });

  it('a mempool payment double-spent to another address is withdrawn: check -> process, nothing credited', async () => {
    const inv = await newInvoice();
    const before = await balance();
    const pay = await g.payer.pay([{ address: inv.address, amount: '1' }], { feeRate: 2 });
    await g.tick();
    expect((await info(inv.uuid)).payment_status).toBe('check');

    await g.payer.respend(pay, [{ address: Payer.elsewhere(), amount: '1' }], 25);
    await g.tick();
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'process', payment_amount: null });
    expect(await transfer(pay.txid)).toMatchObject({ status: 'dropped' });
    await g.mineAndTick(2);
    expect((await info(inv.uuid)).payment_status).toBe('process');
    expect(await balance()).toBe(before);
    expect(statuses(inv.uuid)).toEqual(['check', 'process']);
    expect(await credits(inv.uuid)).toBe(0);
  });

  it('a reorganisation that puts the payment back in the mempool, then in another block: followed there, credited once', async () => {
    const inv = await newInvoice();
    const before = await balance();
    const pay = await g.payer.pay([{ address: inv.address, amount: '1' }]);
    const [block] = await g.node.mine(1);
    await g.tick();
    expect(await transfer(pay.txid)).toMatchObject({ status: 'seen', confirmations: 1 });

    await g.node.rpc('invalidateblock', block);
    expect(await g.node.rpc<string[]>('getrawmempool')).toContain(pay.txid);
    await g.tick();
    expect(await transfer(pay.txid)).toMatchObject({ status: 'seen', confirmations: 0 });
    expect((await info(inv.uuid)).payment_status).toBe('check');

    await g.mineAndTick(2); // the new chain holds it
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'paid', txid: pay.txid });
    expect(Number(await balance()) - Number(before)).toBeCloseTo(0.98, 8);
    expect(statuses(inv.uuid)).toEqual(['check', 'paid']);
    expect(await credits(inv.uuid)).toBe(1);
  });

  it('a reorganisation onto a chain that double-spends the payment: withdrawn, then a new payment credited once', async () => {
    const inv = await newInvoice();
    const before = await balance();
    const pay = await g.payer.pay([{ address: inv.address, amount: '1' }]);
    const [block] = await g.node.mine(1);
    await g.tick();
    expect((await info(inv.uuid)).payment_status).toBe('check');

    // The other chain: its first block spends the payer's coin to someone else.
    await g.node.rpc('invalidateblock', block);
    const conflict = await g.payer.respend(pay, [{ address: Payer.elsewhere(), amount: '1' }], 30, false);
    await g.node.mineWith([conflict.hex]);
    await g.node.mine(1);
    expect(await g.node.rpc<string[]>('getrawmempool')).not.toContain(pay.txid);
    await g.tick();
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'process', payment_amount: null });
    expect(await transfer(pay.txid)).toMatchObject({ status: 'dropped' });
    expect(await balance()).toBe(before);

    const again = await g.payer.pay([{ address: inv.address, amount: '1' }]);
    await g.mineAndTick(2);
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'paid', txid: again.txid });
    expect(Number(await balance()) - Number(before)).toBeCloseTo(0.98, 8);
    expect(statuses(inv.uuid)).toEqual(['check', 'process', 'check', 'paid']);
    expect(await credits(inv.uuid)).toBe(1);
  });

  it('the node stops mid-way: nothing changes while it is away, the scan resumes from its cursor', async () => {
    const inv = await newInvoice();
    const before = await balance();
    const pay = await g.payer.pay([{ address: inv.address, amount: '1' }]);
    await g.node.mine(1);
    await g.tick();
    expect((await info(inv.uuid)).payment_status).toBe('check');

    await g.node.stop();
    await expect(g.tick()).rejects.toThrow(/getrawmempool|request failed|ECONNREFUSED|fetch failed/);
    expect((await info(inv.uuid)).payment_status).toBe('check');

    await g.node.restart();
    await g.node.mine(3);
    await g.tick();
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'paid', txid: pay.txid });
    expect(Number(await balance()) - Number(before)).toBeCloseTo(0.98, 8);
    expect(statuses(inv.uuid)).toEqual(['check', 'paid']);
    const head = await g.node.head();
    expect((await g.app.inject('/readyz')).json()).toMatchObject({ status: 'ready', networks: { LTC: { height: head, node_height: head, lag: 0 } } });
  });

  it("the driver's status: the node's chain, head and the head's time; /readyz lists LTC offered with it", async () => {
    const head = await g.node.head();
    const best = await g.node.rpc<{ time: number }>('getblockheader', await g.node.rpc<string>('getbestblockhash'));
    expect(await g.driver().status()).toEqual({ chain: 'regtest', head, headTime: best.time * 1000 });
    await g.ctx.chains.checkNodes();
    expect((await g.app.inject('/readyz')).json().chains).toContainEqual(
      expect.objectContaining({ network: 'LTC', driver: 'bitcoin-core', mode: 'live', custody: 'hot', node_reachable: true, chain: 'regtest', head_height: head, offered: true, reason: null }),
    );
  });

  it('/readyz and /metrics show the scanned height and the lag behind the node', async () => {
    // 30 blocks arrive while the gateway is not looking; one poll reads at most 20 batches of 1.
    g.driver().scanner.limitBatches(1, 20);
    await g.node.mine(30);
    const head = await g.node.head();
    await g.tick();
    expect((await g.app.inject('/readyz')).json()).toMatchObject({ networks: { LTC: { height: head - 10, node_height: head, lag: 10 } } });
    const metrics = (await g.app.inject('/metrics')).body;
    expect(metrics).toContain(`satchel_chain_scan_height{network="LTC"} ${head - 10}`);
    expect(metrics).toContain(`satchel_chain_node_height{network="LTC"} ${head}`);
    expect(metrics).toContain('satchel_chain_scan_lag_blocks{network="LTC"} 10');
    await g.tick();
    expect((await g.app.inject('/readyz')).json()).toMatchObject({ networks: { LTC: { height: head, lag: 0 } } });
    expect((await g.app.inject('/metrics')).body).toContain('satchel_chain_scan_lag_blocks{network="LTC"} 0');
    g.driver().scanner.limitBatches(10, 20);
  });
});
