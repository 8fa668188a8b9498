import { merchantVerifies } from '../helpers/merchant.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { isValidAddress } from '../helpers/addresses.ts';
import { processNetwork } from '../../src/chain/ingest.ts';
import { nextRev } from '../../src/chain/simulated/driver.ts';
import { simulateConfirmOutgoing, simulateFailOutgoing } from '../../src/simulator/payouts.ts';
import { createMerchant, setMerchantBlocked, type Merchant } from '../../src/merchants/store.ts';
import { setWalletStatus, walletUuid } from '../../src/ledger/merchant-wallets.ts';
import { findWalletForTest, walletTestWebhookFields } from '../../src/wallets/payer.ts';
import { PayerWalletEnvelope } from '../../src/contracts/payer.ts';
import {ADDR, balance, ledgerAgrees, startMoneyGateway, tick } from '../payouts/harness.ts';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const WALLET_WEBHOOK_KEYS = [
  'type', 'uuid', 'order_id', 'amount', 'payment_amount', 'payment_amount_usd', 'merchant_amount', 'commission',
  'is_final', 'status', 'from', 'wallet_address_uuid', 'network', 'currency', 'payer_currency', 'payer_amount',
  'payer_amount_exchange_rate', 'additional_data', 'txid', 'sign',
];

describe.each(await backends())('static wallets on $name', (backend) => {
  let gw: TestGateway;
  let rx: Receiver;
  let m: Merchant;
  let n = 0;
  beforeAll(async () => {
    gw = await startMoneyGateway(backend);
    rx = await startReceiver();
  });
  afterAll(async () => {
    await gw?.close();
    await rx?.close();
  });
  beforeEach(async () => {
    rx.deliveries.length = 0;
    m = await createMerchant(gw.ctx.storage.db, `wallets ${++n}`);
  });

  const api = (path: string, body: Record<string, unknown>, merchant = m) => gw.api(path, body, { merchant });
  const create = async (body: Record<string, unknown> = {}) => {
    const r = await api('/v1/wallet', { currency: 'USDT', network: 'TRON', order_id: `w-${++n}`, url_callback: rx.url, ...body });
    expect(r.status).toBe(200);
    return r.body.result as Record<string, any>;
  };
  const pay = async (wallet: string, amount: string, extra: Record<string, unknown> = {}) => {
    const r = await gw.app.inject({ method: 'POST', url: '/simulator/pay', payload: { wallet, amount, ...extra } });
    expect(r.statusCode).toBe(200);
    return r.json().result as { txid: string; amount: string };
  };
  const hooks = (wallet: string) => rx.deliveries.filter((d) => d.json.wallet_address_uuid === wallet).map((d) => d.json);

  describe('POST /v1/wallet', () => {
    it('creates a static wallet: the spec result, a fresh address of the network, the payment page url', async () => {
      const r = await api('/v1/wallet', { currency: 'usdt', network: 'tron', order_id: 'wallet-1', url_callback: 'https://shop.example/cb' });
      expect(r.status).toBe(200);
      expect(Object.keys(r.body.result)).toEqual(['wallet_uuid', 'uuid', 'order_id', 'address', 'payment_comment', 'network', 'currency', 'url']);
      const w = r.body.result;
      expect(w).toEqual({
        wallet_uuid: walletUuid(m.id, 'business', 'USDT'),
        uuid: expect.stringMatching(UUID_RE),
        order_id: 'wallet-1',
        address: expect.any(String),
        payment_comment: null,
        network: 'TRON',
        currency: 'USDT',
        url: `https://pay.example.test/pay/wallet/${w.uuid}`,
      });
      expect(isValidAddress('tron', w.address)).toBe(true);
      const evm = await create({ network: 'BSC' });
      expect(isValidAddress('evm', evm.address)).toBe(true);
      expect(evm.wallet_uuid).toBe(w.wallet_uuid); // one business wallet per currency
      const bal = (await api('/v1/balance', {})).body.result[0].balance.merchant.find((b: any) => b.currency_code === 'USDT');
      expect(bal.uuid).toBe(w.wallet_uuid);
    });

    it('returns the existing wallet for a repeated order_id, also under concurrent requests', async () => {
      const a = await create({ order_id: 'same-w' });
      const b = await api('/v1/wallet', { currency: 'BTC', network: 'BTC', order_id: 'same-w' });
      expect(b.body).toEqual({ state: 0, result: a });
      const rs = await Promise.all(Array.from({ length: 20 }, () => api('/v1/wallet', { currency: 'USDT', network: 'TRON', order_id: 'race-w' })));
      expect(rs.every((r) => r.status === 200)).toBe(true);
      expect(new Set(rs.map((r) => r.body.result.uuid)).size).toBe(1);
      const owned = await gw.ctx.storage.db.selectFrom('addresses').select('address').where('owner_id', '=', rs[0]!.body.result.uuid).execute();
      expect(owned.map((o) => o.address)).toEqual([rs[0]!.body.result.address]);
    });

    it('an order_id already used by an invoice of the merchant cannot make a wallet', async () => {
      await gw.api('/v1/payment', { amount: '10', currency: 'USDT', network: 'TRON', order_id: 'taken-by-invoice' }, { merchant: m });
      expect((await api('/v1/wallet', { currency: 'USDT', network: 'TRON', order_id: 'taken-by-invoice' })).body).toEqual({
        state: 1,
        errors: { order_id: ['validation.unique'] },
      });
      const other = await createMerchant(gw.ctx.storage.db, 'other');
      expect((await api('/v1/wallet', { currency: 'USDT', network: 'TRON', order_id: 'taken-by-invoice' }, other)).status).toBe(200);
    });

    it('validates and answers the spec errors', async () => {
      expect((await api('/v1/wallet', {})).body).toEqual({
        state: 1,
        errors: { currency: ['validation.required'], network: ['validation.required'], order_id: ['validation.required'] },
      });
      const base = { currency: 'USDT', network: 'TRON', order_id: 'v-1' };
      const cases: Array<[Record<string, unknown>, Record<string, string[]>]> = [
        [{ order_id: 'x'.repeat(101) }, { order_id: ['validation.max.string'] }],
        [{ order_id: 'a b' }, { order_id: ['validation.alpha_dash'] }],
        [{ currency: 1 }, { currency: ['validation.string'] }],
        [{ url_callback: 'nope://x' }, { url_callback: ['validation.url'] }],
        [{ url_callback: 'http:' }, { url_callback: ['validation.min.string'] }],
        [{ from_referral_code: 5 }, { from_referral_code: ['validation.string'] }],
      ];
      for (const [body, errors] of cases) expect((await api('/v1/wallet', { ...base, ...body })).body).toEqual({ state: 1, errors });
      for (const body of [{ network: 'NOPE' }, { currency: 'XYZ' }, { network: 'BTC' }, { currency: 'USD' }]) {
        expect((await api('/v1/wallet', { ...base, ...body })).body).toEqual({ state: 1, message: 'The service was not found' });
      }
      await setWalletStatus(gw.ctx, m.id, 'business', 'USDT', 'in_active');
      expect((await api('/v1/wallet', base)).body).toEqual({ state: 1, message: 'Wallet not found' });
      const blocked = await createMerchant(gw.ctx.storage.db, 'blocked');
      await setMerchantBlocked(gw.ctx.storage.db, blocked.id, true);
      expect((await api('/v1/wallet', base, blocked)).body).toEqual({ state: 1, message: 'You are forbidden' });
    });
  });

  describe('POST /v1/wallet/qr', () => {
    it('answers the QR of the address by wallet_address_uuid (or merchant_payment_uuid)', async () => {
      const w = await create();
      const a = await api('/v1/wallet/qr', { wallet_address_uuid: w.uuid });
      expect(a.body).toEqual({ state: 0, result: { image: expect.stringMatching(/^data:image\/png;base64,[A-Za-z0-9+/]+=*$/) } });
      expect((await api('/v1/wallet/qr', { merchant_payment_uuid: w.uuid })).body).toEqual(a.body);
      expect((await api('/v1/wallet/qr', { wallet_address_uuid: '00000000-0000-4000-8000-000000000000' })).body).toEqual({ state: 1, message: 'Not found' });
      expect((await api('/v1/wallet/qr', {})).body).toEqual({ state: 1, errors: { wallet_address_uuid: ['validation.required'] } });
      expect((await api('/v1/wallet/qr', { wallet_address_uuid: 'x' })).body).toEqual({ state: 1, errors: { wallet_address_uuid: ['validation.uuid'] } });
    });
  });

  describe('top-ups', () => {
    it('credits each confirmed top-up less the commission, the 2 TRX creation fee once, and sends signed wallet webhooks', async () => {
      const w = await create();
      const first = await pay(w.uuid, '100');
      // 2 % commission = 2; the creation fee 2 TRX at 0.12 USDT = 0.24 USDT.
      expect(await balance(gw, 'USDT', 'business', m)).toBe('97.76');
      await pay(w.uuid, '50');
      expect(await balance(gw, 'USDT', 'business', m)).toBe('146.76');
      await processNetwork(gw.ctx, 'TRON'); // seen again: credited once
      expect(await balance(gw, 'USDT', 'business', m)).toBe('146.76');
      expect(await ledgerAgrees(gw, 'USDT', 'business', m)).toBe(true);
      await tick(gw);
      const got = rx.deliveries.filter((d) => d.json.wallet_address_uuid === w.uuid);
      expect(got).toHaveLength(2);
      const d = got.find((x) => x.json.txid === first.txid)!;
      expect(Object.keys(d.json)).toEqual(WALLET_WEBHOOK_KEYS);
      expect(d.json).toEqual({
        type: 'wallet', uuid: expect.stringMatching(UUID_RE), order_id: w.order_id, amount: '100.00', payment_amount: '100.00',
        payment_amount_usd: '100.00', merchant_amount: '97.76', commission: '2.24', is_final: true, status: 'paid',
        from: expect.stringMatching(/^T/), wallet_address_uuid: w.uuid, network: 'TRON', currency: 'USDT', payer_currency: 'USDT',
        payer_amount: '100.00', payer_amount_exchange_rate: null, additional_data: null, txid: first.txid, sign: expect.any(String),
      });
      expect(merchantVerifies(d, m.payment_key)).toBe(true);
      expect(got.find((x) => x.json.amount === '50.00')!.json).toMatchObject({ merchant_amount: '49.00', commission: '1.00' });
    });

    it('acts only once the transfer is confirmed', async () => {
      const w = await create();
      const t = await pay(w.uuid, '20', { unconfirmed: true });
      expect(await balance(gw, 'USDT', 'business', m)).toBe('0');
      await gw.ctx.storage.db.transaction().execute(async (trx) => {
        await trx.updateTable('sim_transactions').set({ status: 'mined', confirmations: 19, block_height: 1, rev: await nextRev(trx) }).where('txid', '=', t.txid).execute();
      });
      await processNetwork(gw.ctx, 'TRON');
      expect(await balance(gw, 'USDT', 'business', m)).toBe('19.36'); // 20 - 0.4 - 0.24
    });

    it('caps the creation fee at what the first top-up leaves, and charges it once', async () => {
      const w = await create({ currency: 'TRX' });
      await pay(w.uuid, '1'); // commission 0.02, the fee takes the other 0.98
      expect(await balance(gw, 'TRX', 'business', m)).toBe('0');
      await pay(w.uuid, '10');
      expect(await balance(gw, 'TRX', 'business', m)).toBe('9.8');
      await tick(gw);
      expect(hooks(w.uuid).map((h) => [h.amount, h.merchant_amount, h.commission])).toEqual([
        ['1.00', '0.00', '1.00'],
        ['10.00', '9.80', '0.20'],
      ]);
    });
  });

  describe('POST /v1/wallet/block-address', () => {
    it('blocks by uuid or order_id (order_id wins); later top-ups are not credited', async () => {
      const a = await create();
      const b = await create();
      expect((await api('/v1/wallet/block-address', { uuid: a.uuid, order_id: b.order_id })).body).toEqual({ state: 0, result: { uuid: b.uuid, status: 'blocked' } });
      expect((await api('/v1/wallet/block-address', { uuid: a.uuid })).body).toEqual({ state: 0, result: { uuid: a.uuid, status: 'blocked' } });
      expect((await api('/v1/wallet/block-address', { uuid: a.uuid, is_force_refund: 'false' })).body.result.status).toBe('blocked');
      await pay(a.uuid, '30');
      expect(await balance(gw, 'USDT', 'business', m)).toBe('0');
      await tick(gw);
      expect(hooks(a.uuid)).toEqual([expect.objectContaining({ status: 'locked', amount: '30.00', merchant_amount: '0.00', commission: '0.00', is_final: true })]);
      const view = await gw.app.inject({ method: 'GET', url: `/api/pay/wallet/${a.uuid}` });
      expect(view.json().result.status).toBe('blocked');
    });

    it('answers Not found and validation errors', async () => {
      expect((await api('/v1/wallet/block-address', { uuid: '00000000-0000-4000-8000-000000000000' })).body).toEqual({ state: 1, message: 'Not found' });
      expect((await api('/v1/wallet/block-address', {})).body).toEqual({ state: 1, errors: { uuid: ['validation.required_without'], order_id: ['validation.required_without'] } });
      expect((await api('/v1/wallet/block-address', { order_id: 'x'.repeat(33) })).body).toEqual({ state: 1, errors: { order_id: ['validation.max.string'] } });
      expect((await api('/v1/wallet/block-address', { order_id: 'a', is_force_refund: 'maybe' })).body).toEqual({ state: 1, errors: { is_force_refund: ['validation.boolean'] } });
      const other = await createMerchant(gw.ctx.storage.db, 'other');
      const w = await create();
      expect((await api('/v1/wallet/block-address', { uuid: w.uuid }, other)).body).toEqual({ state: 1, message: 'Not found' });
    });
  });

  describe('POST /v1/wallet/blocked-address-refund', () => {
    const refund = (body: Record<string, unknown>) => api('/v1/wallet/blocked-address-refund', { address: ADDR.TRON, ...body });
    const outgoingOf = async (walletId: string) =>
      gw.ctx.storage.db.selectFrom('payouts').selectAll().where('kind', '=', 'wallet_refund').where('ref_id', '=', walletId).orderBy('created_at').execute();

    it('refunds the blocked funds once, less the network fee; every error of the spec', async () => {
      const w = await create();
      expect((await refund({ uuid: '00000000-0000-4000-8000-000000000000' })).body).toEqual({ state: 1, message: 'Not found' });
      expect((await refund({ uuid: w.uuid })).body).toEqual({ state: 1, message: 'Nothing to withdraw' }); // active
      await pay(w.uuid, '40'); // credited: not blocked funds
      await api('/v1/wallet/block-address', { uuid: w.uuid });
      expect((await refund({ uuid: w.uuid })).body).toEqual({ state: 1, message: 'Nothing to withdraw' });
      await pay(w.uuid, '25');
      await pay(w.uuid, '5');
      const credited = await balance(gw, 'USDT', 'business', m);
      // uuid wins over order_id here.
      const other = await create();
      const r = await refund({ uuid: w.uuid, order_id: other.order_id });
      expect(r.body).toEqual({ state: 0, result: { commission: '1.00', amount: '29.00' } });
      expect(await balance(gw, 'USDT', 'business', m)).toBe(credited); // never the merchant's money
      expect((await refund({ uuid: w.uuid })).body).toEqual({ state: 1, message: 'Refund is in process' });
      const [out] = await outgoingOf(w.uuid);
      expect(out).toMatchObject({ address: ADDR.TRON, payer_currency: 'USDT', payer_amount: '29', amount: '30', status: 'process', merchant_amount: '0' });
      await simulateConfirmOutgoing(gw.ctx, out!.id);
      expect((await refund({ uuid: w.uuid })).body).toEqual({ state: 1, message: 'You can withdraw only once' });
      expect((await refund({ order_id: w.order_id })).body).toEqual({ state: 1, message: 'You can withdraw only once' });
    });

    it('refuses a refund the hot wallet cannot cover: the payouts message, nothing recorded, asked again once it can', async () => {
      const w = await create();
      await api('/v1/wallet/block-address', { uuid: w.uuid });
      await pay(w.uuid, '12');
      const driver = gw.ctx.chains.driver('TRON');
      const asked: unknown[] = [];
      const canCover = driver.canCover;
      driver.canCover = async (req) => {
        asked.push(req);
        return { covered: false, currency: 'TRX', message: 'The hot wallet cannot cover this payment: not enough TRX' };
      };
      try {
        const r = await refund({ uuid: w.uuid });
        expect([r.status, r.body]).toEqual([422, { state: 1, message: 'The gateway cannot send this payout now: not enough TRX in its hot wallet' }]);
      } finally {
        driver.canCover = canCover;
      }
      expect(asked).toEqual([{ network: 'TRON', currency: 'USDT', to: ADDR.TRON, amount: '11', priority: 'recommended' }]);
      expect(await outgoingOf(w.uuid)).toEqual([]);
      expect((await refund({ uuid: w.uuid })).body).toEqual({ state: 0, result: { commission: '1.00', amount: '11.00' } });
    });

    it('a refund that fails on chain can be asked again', async () => {
      const w = await create();
      await api('/v1/wallet/block-address', { order_id: w.order_id });
      await pay(w.uuid, '12');
      expect((await refund({ order_id: w.order_id })).body.result).toEqual({ commission: '1.00', amount: '11.00' });
      const [out] = await outgoingOf(w.uuid);
      await simulateFailOutgoing(gw.ctx, out!.id);
      expect((await refund({ order_id: w.order_id })).body.result).toEqual({ commission: '1.00', amount: '11.00' });
      expect(await outgoingOf(w.uuid)).toHaveLength(2);
    });

    it('The amount is too small, and address validation', async () => {
      const w = await create();
      await api('/v1/wallet/block-address', { uuid: w.uuid });
      await pay(w.uuid, '1.5');
      expect((await refund({ uuid: w.uuid })).body).toEqual({ state: 1, message: 'The amount is too small' });
      expect((await refund({ uuid: w.uuid, address: 'short' })).body).toEqual({ state: 1, errors: { address: ['validation.min.string'] } });
      expect((await refund({ uuid: w.uuid, address: 'T'.repeat(129) })).body).toEqual({ state: 1, errors: { address: ['validation.max.string'] } });
      expect((await refund({ uuid: w.uuid, address: 'not an address' })).body).toEqual({ state: 1, errors: { address: ['validation.alpha_dash'] } });
      await pay(w.uuid, '10');
      expect((await refund({ uuid: w.uuid, address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv9' })).body).toEqual({ state: 1, errors: { address: ['validation.regex'] } });
      expect((await refund({})).body).toEqual({ state: 1, errors: { uuid: ['validation.required_without'], order_id: ['validation.required_without'] } });
      const blocked = await createMerchant(gw.ctx.storage.db, 'blocked');
      await setMerchantBlocked(gw.ctx.storage.db, blocked.id, true);
      expect((await api('/v1/wallet/blocked-address-refund', { uuid: w.uuid, address: ADDR.TRON }, blocked)).body).toEqual({ state: 1, message: 'You are forbidden' });
    });

    it('with is_force_refund every top-up goes back to its sender less the fee; then "You can withdraw only once"', async () => {
      const w = await create();
      await api('/v1/wallet/block-address', { uuid: w.uuid, is_force_refund: true });
      const t = await pay(w.uuid, '10');
      const out = await gw.ctx.storage.db.selectFrom('payouts').selectAll().where('kind', '=', 'force_refund').orderBy('created_at', 'desc').executeTakeFirstOrThrow();
      const sender = (await gw.ctx.storage.db.selectFrom('chain_transfers').select('from_address').where('txid', '=', t.txid).executeTakeFirstOrThrow()).from_address;
      expect(out).toMatchObject({ address: sender, payer_amount: '9', amount: '10', commission: '1', status: 'process', merchant_id: m.id });
      expect(await balance(gw, 'USDT', 'business', m)).toBe('0');
      await tick(gw);
      await simulateConfirmOutgoing(gw.ctx, out.id);
      await tick(gw);
      expect(hooks(w.uuid).map((h) => h.status)).toEqual(['refund_process', 'refund_paid']);
      expect(hooks(w.uuid)[0]).toMatchObject({ amount: '10.00', merchant_amount: '0.00', commission: '1.00', txid: t.txid });
      expect(merchantVerifies(rx.deliveries.find((d) => d.json.status === 'refund_paid')!, m.payment_key)).toBe(true);
      expect((await refund({ uuid: w.uuid })).body).toEqual({ state: 1, message: 'You can withdraw only once' });
    });
  });

  describe('payer page and test webhooks', () => {
    it('the payer API shows an active wallet without merchant data', async () => {
      const w = await create();
      const r = await gw.app.inject({ method: 'GET', url: `/api/pay/wallet/${w.uuid}` });
      expect(r.statusCode).toBe(200);
      expect(r.json()).toEqual({
        state: 0,
        result: {
          kind: 'wallet', uuid: w.uuid, status: 'active', currency: 'USDT', network: 'TRON', network_name: 'TRON (TRC-20)',
          address: w.address, payment_comment: null, link_required: false, qr_content: w.address, wallet_uri: `tron:${w.address}?token=TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t`,
          test_mode: true, server_time: gw.clock.now, unavailable: null,
          merchant: { display_name: null, logo_url: null, accent: null, theme: null, language: null },
        },
      });
      expect(PayerWalletEnvelope.safeParse(r.json()).success).toBe(true); // what the page parses
      expect((await gw.app.inject({ method: 'GET', url: '/api/pay/wallet/00000000-0000-4000-8000-000000000000' })).statusCode).toBe(404);
    });

    it('finds a wallet for the test webhooks by uuid or order_id, with top-up fields', async () => {
      const w = await create();
      expect((await findWalletForTest(gw.ctx, m.id, { uuid: w.uuid }))?.id).toBe(w.uuid);
      expect((await findWalletForTest(gw.ctx, m.id, { order_id: w.order_id }))?.id).toBe(w.uuid);
      expect(await findWalletForTest(gw.ctx, m.id, { order_id: 'nope' })).toBeNull();
      const other = await createMerchant(gw.ctx.storage.db, 'x');
      expect(await findWalletForTest(gw.ctx, other.id, { uuid: w.uuid })).toBeNull();
      const made = await walletTestWebhookFields(gw.ctx, m.id, { uuid: w.uuid });
      expect(made).toMatchObject({ type: 'wallet', order_id: w.order_id, wallet_address_uuid: w.uuid, amount: '5.00', status: 'paid', network: 'TRON', currency: 'USDT' });
      const t = await pay(w.uuid, '33');
      expect(await walletTestWebhookFields(gw.ctx, m.id, { order_id: w.order_id })).toMatchObject({ amount: '33.00', txid: t.txid });
    });
  });
});
