// Monero through the whole gateway when the chain misbehaves, on both databases: XMR on the real
// `monero` driver against a regtest monerod (test/helpers/monero-rig.ts, one per file), invoices
// made with the signed public API and paid by the rig's payer. A block popped (`pop_blocks`) before
// the payment settled sends it back to the pool: mined again it is credited once; dropped from the
// pool too, the invoice goes back to `process` with nothing credited, and a new payment is credited
// once. The daemon stopped and started again mid-invoice loses nothing and doubles nothing: the
// invoices get paid after the restart, including one paid while the gateway had not looked yet.
// Settling takes 3 confirmations here (the network's `confirmations` setting; Monero's default is 10).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { backends } from '../../helpers/backends.ts';
import { startMoneroRig, type MoneroRig } from '../../helpers/monero-rig.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';
import { balanceOf } from '../../../src/ledger/index.ts';
import { Decimal } from '../../../src/money/decimal.ts';
import { mineIn, shopWallet, startXmrGateway, type XmrGateway } from './gateway-setup.ts';

const CONF = 3;
/** A loaded machine makes every wallet refresh slow: minutes, not the default 30 s. */
const TIMEOUT = 300_000;

let rig: MoneroRig;
beforeAll(async () => {
  rig = await startMoneroRig();
}, 300_000);
afterAll(async () => {
  await rig?.close();
}, 120_000);

describe.each(await backends())('XMR invoices through the gateway when the chain misbehaves ($name)', (backend) => {
  let g: XmrGateway;
  let rx: Receiver;
  let n = 0;
  beforeAll(async () => {
    g = await startXmrGateway(backend, rig, await shopWallet(rig, `shop-${backend.name}`), { confirmations: CONF });
    rx = await startReceiver();
  }, 120_000);
  afterAll(async () => {
    await g?.stopAll();
    await rx?.close();
  }, 60_000);
  beforeEach(() => {
    rx.deliveries.length = 0;
  });

  const newInvoice = async () => {
    const r = await g.api('/v1/payment', { amount: '1.5', currency: 'XMR', network: 'XMR', order_id: `xmr-chain-${++n}`, url_callback: rx.url });
    expect(r.status, r.raw).toBe(200);
    return r.body.result as { uuid: string; address: string };
  };
  const info = async (uuid: string) => (await g.api('/v1/payment/info', { uuid })).body.result as Record<string, any>;
  const page = async (uuid: string) => (await g.app.inject({ method: 'GET', url: `/api/pay/${uuid}` })).json().result as Record<string, any>;
  const balance = () => balanceOf(g.ctx.storage.db, g.merchant.id, 'business', 'XMR');
  const credits = (uuid: string) => g.ctx.storage.db.selectFrom('ledger_entries').selectAll().where('ref_id', '=', uuid).execute();
  const transfers = (uuid: string) =>
    g.ctx.storage.db.selectFrom('chain_transfers').select(['txid', 'idx', 'amount', 'status']).where('owner_kind', '=', 'invoice').where('owner_id', '=', uuid).orderBy('seen_at').execute();
  const statuses = (uuid: string) => rx.deliveries.filter((d) => d.json.uuid === uuid).map((d) => d.json.status);

  it('a block popped before settling: the payment goes back to the pool, is mined again and credited once', async () => {
    const inv = await newInvoice();
    const before = await balance();
    const txid = await g.pay(inv.address, '1.5');
    await g.mineInAndTick(txid);
    expect(await page(inv.uuid)).toMatchObject({ status: 'check', confirmations: { current: 1, required: CONF } });

    await rig.popBlocks(1);
    await g.tick();
    // Back in the pool: still seen, no confirmation.
    expect(await page(inv.uuid)).toMatchObject({ status: 'check', confirmations: { current: 0, required: CONF } });
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'check', payment_amount: null, txid });

    await g.mineInAndTick(txid);
    await g.mineAndTick(CONF - 1);
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'paid', payment_amount: '1.50', txid });
    await g.mineAndTick();
    expect(Decimal.parse(await balance()).sub(before).toString()).toBe('1.47');
    expect(await credits(inv.uuid)).toHaveLength(1);
    expect(await transfers(inv.uuid)).toEqual([{ txid, idx: expect.any(Number), amount: '1.5', status: 'confirmed' }]);
    expect(statuses(inv.uuid)).toEqual(['check', 'paid']);
  }, TIMEOUT);

  it('a block popped and its payment dropped from the pool: back to process, nothing credited; the next payment is credited once', async () => {
    const inv = await newInvoice();
    const before = await balance();
    const lost = await g.pay(inv.address, '1.5');
    await g.mineInAndTick(lost);
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'check', txid: lost });

    await rig.popBlocks(1);
    await rig.flushPool([lost]);
    await g.tick();
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'process', is_final: false, payment_amount: null });
    expect(await page(inv.uuid)).toMatchObject({ status: 'process', confirmations: null });
    expect(await transfers(inv.uuid)).toEqual([{ txid: lost, idx: expect.any(Number), amount: '1.5', status: 'dropped' }]);
    // Blocks go on without it: withdrawn once, never credited.
    await g.mineAndTick(CONF + 1);
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'process', payment_amount: null });
    expect(await credits(inv.uuid)).toEqual([]);
    expect(await balance()).toBe(before);

    const paid = await g.pay(inv.address, '1.5');
    await g.tick();
    await g.mineInAndTick(paid);
    await g.mineAndTick(CONF - 1);
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'paid', payment_amount: '1.50', txid: paid });
    expect(Decimal.parse(await balance()).sub(before).toString()).toBe('1.47');
    expect(await credits(inv.uuid)).toHaveLength(1);
    expect((await transfers(inv.uuid)).map((t) => [t.txid, t.status])).toEqual([
      [lost, 'dropped'],
      [paid, 'confirmed'],
    ]);
    expect(statuses(inv.uuid)).toEqual(['check', 'process', 'check', 'paid']);
  }, TIMEOUT);

  it('the daemon stopped and started mid-invoice: nothing lost, nothing credited twice, both invoices paid after the restart', async () => {
    const seen = await newInvoice();
    const unseen = await newInvoice();
    const before = await balance();
    const a = await g.pay(seen.address, '1.5');
    await g.mineInAndTick(a);
    expect(await page(seen.uuid)).toMatchObject({ status: 'check', confirmations: { current: 1, required: CONF } });
    // Paid and mined while the gateway does not look.
    const b = await g.pay(unseen.address, '1.5');
    const blocks = await mineIn(rig, [b]);

    await rig.stopDaemon();
    await expect(g.tick()).rejects.toThrow();
    expect(await info(seen.uuid)).toMatchObject({ payment_status: 'check', payment_amount: null, txid: a });
    expect(await info(unseen.uuid)).toMatchObject({ payment_status: 'process', payment_amount: null });

    await rig.startDaemon();
    await tickOnceUp();
    // The seen payment stands `1 + blocks` deep (one block, unless Dandelion++ kept the other out of the first).
    const deep = 1 + blocks;
    expect(await page(seen.uuid)).toMatchObject(deep < CONF ? { status: 'check', confirmations: { current: deep, required: CONF } } : { status: 'paid' });
    expect(await page(unseen.uuid)).toMatchObject({ status: 'check', confirmations: { current: 1, required: CONF } });
    await g.mineAndTick(CONF - 1);
    expect(await info(seen.uuid)).toMatchObject({ payment_status: 'paid', payment_amount: '1.50', txid: a });
    expect(await info(unseen.uuid)).toMatchObject({ payment_status: 'paid', payment_amount: '1.50', txid: b });
    expect(Decimal.parse(await balance()).sub(before).toString()).toBe('2.94');
    for (const inv of [seen, unseen]) {
      expect(await credits(inv.uuid)).toHaveLength(1);
      expect(await transfers(inv.uuid)).toHaveLength(1);
      expect(statuses(inv.uuid)).toEqual(['check', 'paid']);
    }
  }, TIMEOUT);

  /**
   * Ticks until a round runs clean: a wallet RPC that lost its daemon says so until it reconnects
   * (the driver points it at the daemon anew; a round that fails meanwhile is retried by the worker).
   */
  async function tickOnceUp(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await g.tick();
        return;
      } catch (err) {
        if (attempt >= 20) throw err;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }
});
