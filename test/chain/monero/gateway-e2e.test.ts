// Monero through the whole gateway, on both databases: XMR on the real `monero` driver against a
// regtest monerod (test/helpers/monero-rig.ts, one per file), the merchant receiving watch-only into
// their own wallet (its address and view key set as receiving material). Invoices are made with the
// signed public API; each answers a fresh subaddress of the merchant's wallet, the one that wallet
// itself makes at that index, and the payer API's link and QR are `monero:<subaddress>?tx_amount=`.
// The rig's payer pays; what the merchant sees is `/v1/payment/info`, the webhooks its endpoint
// receives and its balance: a payment in the pool turns the invoice `check` at once (0 of N on the
// payer's page), the block holding it counts as the first confirmation, and N settle it; partial
// payments follow the gateway's rules for one or several payments; an overpayment is `paid_over`.
// Settling takes 3 confirmations here (the network's `confirmations` setting; Monero's default is
// 10) to keep the run short: the count is the setting's, the path the same.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { backends } from '../../helpers/backends.ts';
import { startMoneroRig, type MoneroRig } from '../../helpers/monero-rig.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';
import { merchantVerifies } from '../../helpers/merchant.ts';
import { balanceOf } from '../../../src/ledger/index.ts';
import { Decimal } from '../../../src/money/decimal.ts';
import { parseMoneroAddress } from '../../../src/chain/monero/address.ts';
import { pico, shopWallet, startXmrGateway, type XmrGateway } from './gateway-setup.ts';

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

describe.each(await backends())('XMR invoices through the gateway on a regtest monerod ($name)', (backend) => {
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

  const newInvoice = async (body: Record<string, unknown> = {}) => {
    const r = await g.api('/v1/payment', { amount: '1.5', currency: 'XMR', network: 'XMR', order_id: `xmr-${++n}`, url_callback: rx.url, ...body });
    expect(r.status, r.raw).toBe(200);
    return r.body.result as { uuid: string; address: string; payer_amount: string };
  };
  const info = async (uuid: string) => (await g.api('/v1/payment/info', { uuid })).body.result as Record<string, any>;
  const page = async (uuid: string) => (await g.app.inject({ method: 'GET', url: `/api/pay/${uuid}` })).json().result as Record<string, any>;
  const balance = () => balanceOf(g.ctx.storage.db, g.merchant.id, 'business', 'XMR');
  const credits = (uuid: string) => g.ctx.storage.db.selectFrom('ledger_entries').selectAll().where('ref_id', '=', uuid).execute();
  const statuses = (uuid: string) => rx.deliveries.filter((d) => d.json.uuid === uuid).map((d) => d.json.status);
  const delivered = (uuid: string, status: string) => rx.deliveries.find((d) => d.json.uuid === uuid && d.json.status === status)!;

  it('answers a fresh subaddress of the merchant wallet per invoice; the link and QR are monero:<subaddress>?tx_amount=', async () => {
    const a = await newInvoice();
    const b = await newInvoice({ amount: '0.123456789012' });
    // Minor indexes count from 1 per merchant: the primary address is never handed out.
    expect(a.address).toBe(await g.shop.subaddress(1));
    expect(b.address).toBe(await g.shop.subaddress(2));
    expect(a.address).not.toBe(g.shop.address);
    expect(parseMoneroAddress(a.address)).toMatchObject({ network: 'mainnet', kind: 'subaddress' });
    expect(a.payer_amount).toBe('1.50');
    const view = await page(a.uuid);
    expect(view).toMatchObject({ status: 'process', network: 'XMR', payer_currency: 'XMR', address: a.address, payment_comment: null, confirmations: null });
    expect(view.wallet_uri).toBe(`monero:${a.address}?tx_amount=1.5`);
    expect(view.qr_content).toBe(view.wallet_uri);
    // The payer is asked at most 8 decimals, rounded up (docs/money.md), and the link says so.
    expect(b.payer_amount).toBe('0.12345679');
    expect((await page(b.uuid)).wallet_uri).toBe(`monero:${b.address}?tx_amount=0.12345679`);
  }, TIMEOUT);

  it('exact: check from the pool at once (0 of 3 on the page), n of 3 per block, paid at 3; one paid webhook, credited once', async () => {
    const inv = await newInvoice();
    const before = await balance();
    const txid = await g.pay(inv.address, '1.5');
    await g.tick();
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'check', is_final: false, payment_amount: null, txid });
    expect(await page(inv.uuid)).toMatchObject({ status: 'check', confirmations: { current: 0, required: CONF } });

    for (let k = 1; k < CONF; k++) {
      if (k === 1) await g.mineInAndTick(txid);
      else await g.mineAndTick();
      expect(await page(inv.uuid)).toMatchObject({ status: 'check', confirmations: { current: k, required: CONF } });
      expect(await info(inv.uuid)).toMatchObject({ payment_status: 'check', payment_amount: null });
    }
    expect(await balance()).toBe(before);
    await g.mineAndTick();
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'paid', is_final: true, payment_amount: '1.50', merchant_amount: '1.47', txid, network: 'XMR', payer_currency: 'XMR' });
    expect(await page(inv.uuid)).toMatchObject({ status: 'paid', is_final: true, confirmations: null, txid });
    expect(Decimal.parse(await balance()).sub(before).toString()).toBe('1.47');

    // More blocks change nothing: the webhooks were check then paid, each once.
    await g.mineAndTick(2);
    expect(statuses(inv.uuid)).toEqual(['check', 'paid']);
    const paid = delivered(inv.uuid, 'paid');
    expect(merchantVerifies(paid, g.merchant.payment_key)).toBe(true);
    expect(paid.json).toMatchObject({ network: 'XMR', currency: 'XMR', payer_currency: 'XMR', txid, payment_amount: '1.50', is_final: true });
    expect(await credits(inv.uuid)).toHaveLength(1);
    // The money is in the merchant's own wallet, at the invoice's subaddress.
    expect((await g.shop.received()).filter((t) => t.txid === txid)).toEqual([{ minor: await g.shop.minorOf(inv.address), amount: pico('1.5'), txid }]);
  }, TIMEOUT);

  it('what arrives is counted to the piconero: short by less than a nanoXMR is short, the rest completes it', async () => {
    const inv = await newInvoice({ amount: '0.123456789012' }); // asked: 0.12345679
    const part = await g.pay(inv.address, '0.123456789012');
    await g.tick();
    await g.mineInAndTick(part);
    await g.mineAndTick(CONF - 1);
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'process', is_final: false, payment_amount: '0.123456789012' });
    expect(await page(inv.uuid)).toMatchObject({ remaining: '0.000000000988', wallet_uri: `monero:${inv.address}?tx_amount=0.000000000988` });
    const rest = await g.pay(inv.address, '0.000000000988');
    await g.tick();
    await g.mineInAndTick(rest);
    await g.mineAndTick(CONF - 1);
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'paid', payment_amount: '0.12345679', txid: rest });
    expect(statuses(inv.uuid)).toEqual(['check', 'process', 'check', 'paid']);
  }, TIMEOUT);

  it('partial, two payments: several allowed -> process with the part, then paid; one allowed -> wrong_amount, then paid', async () => {
    const multi = await newInvoice();
    const single = await newInvoice({ is_payment_multiple: false });
    const before = await balance();
    const parts = [await g.pay(multi.address, '0.5'), await g.pay(single.address, '0.5')];
    await g.tick();
    await g.mineInAndTick(...parts);
    await g.mineAndTick(CONF - 1);
    expect(await info(multi.uuid)).toMatchObject({ payment_status: 'process', is_final: false, payment_amount: '0.50' });
    expect(await info(single.uuid)).toMatchObject({ payment_status: 'wrong_amount', is_final: true, payment_amount: '0.50' });
    // The page asks the multi-payment invoice's payer for the rest, in the link too.
    const view = await page(multi.uuid);
    expect(view).toMatchObject({ status: 'process', remaining: '1.00', payment_amount: '0.50' });
    expect(view.wallet_uri).toBe(`monero:${multi.address}?tx_amount=1`);
    // Several payments allowed: nothing credited yet. One allowed: the part is credited at once.
    expect(await credits(multi.uuid)).toHaveLength(0);
    expect(await credits(single.uuid)).toHaveLength(1);

    const rest = await g.pay(multi.address, '1');
    const late = await g.pay(single.address, '1');
    await g.tick();
    expect(await info(multi.uuid)).toMatchObject({ payment_status: 'check', payment_amount: '0.50', txid: rest });
    expect(await info(single.uuid)).toMatchObject({ payment_status: 'wrong_amount', payment_amount: '0.50' });
    await g.mineInAndTick(rest, late);
    await g.mineAndTick(CONF - 1);
    expect(await info(multi.uuid)).toMatchObject({ payment_status: 'paid', is_final: true, payment_amount: '1.50', merchant_amount: '1.47', txid: rest });
    // Money is never dropped: the late rest completes the invoice that allowed one payment.
    expect(await info(single.uuid)).toMatchObject({ payment_status: 'paid', is_final: true, payment_amount: '1.50', merchant_amount: '1.47', txid: late });
    expect(Decimal.parse(await balance()).sub(before).toString()).toBe('2.94');
    expect(statuses(multi.uuid)).toEqual(['check', 'process', 'check', 'paid']);
    expect(statuses(single.uuid)).toEqual(['check', 'wrong_amount', 'paid']);
    expect(await credits(multi.uuid)).toHaveLength(1);
    expect(await credits(single.uuid)).toHaveLength(2);
  }, TIMEOUT);

  it('over: paid_over, everything received credited; one webhook per move', async () => {
    const inv = await newInvoice();
    const before = await balance();
    const txid = await g.pay(inv.address, '2');
    await g.tick();
    await g.mineInAndTick(txid);
    await g.mineAndTick(CONF - 1);
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'paid_over', is_final: true, payment_amount: '2.00', merchant_amount: '1.96', txid });
    expect(Decimal.parse(await balance()).sub(before).toString()).toBe('1.96');
    await g.mineAndTick();
    expect(statuses(inv.uuid)).toEqual(['check', 'paid_over']);
    expect(await credits(inv.uuid)).toHaveLength(1);
  }, TIMEOUT);
});
