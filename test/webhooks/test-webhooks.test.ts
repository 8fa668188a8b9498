import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { STATIC_RATES, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { createMerchant } from '../../src/merchants/store.ts';
import { insertInvoice } from './invoices.ts';
import { merchantVerifies } from '../helpers/merchant.ts';
import { freePort, startReceiver, type Receiver } from '../helpers/receiver.ts';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PAYMENT_KEYS = [
  'type', 'uuid', 'order_id', 'amount', 'payment_amount', 'payment_amount_usd', 'merchant_amount', 'commission',
  'is_final', 'status', 'from', 'wallet_address_uuid', 'network', 'currency', 'payer_currency', 'payer_amount',
  'payer_amount_exchange_rate', 'additional_data', 'txid', 'recurrence_uuid', 'sign',
];
const PAYOUT_KEYS = ['type', 'uuid', 'order_id', 'amount', 'merchant_amount', 'commission', 'is_final', 'status', 'txid', 'currency', 'network', 'payer_currency', 'payer_amount', 'sign'];

describe.each(await backends())('POST /v1/test-webhook/* on $name', (backend) => {
  let gw: TestGateway;
  let rec: Receiver;
  beforeAll(async () => {
    gw = await startTestGateway(backend);
    rec = await startReceiver();
  });
  afterAll(async () => {
    await rec?.close();
    await gw?.close();
  });

  /** Sends a test webhook and returns the API answer and what the receiver got. */
  const send = async (kind: 'payment' | 'payout' | 'wallet', body: Record<string, unknown>, o?: Parameters<TestGateway['api']>[2]) => {
    rec.deliveries.length = 0;
    const r = await gw.api(`/v1/test-webhook/${kind}`, { url_callback: rec.url, currency: 'USDT', network: 'TRON', ...body }, o);
    return { ...r, got: [...rec.deliveries] };
  };
  const counts = async () => ({
    webhooks: Number((await gw.ctx.storage.db.selectFrom('webhooks').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n),
    invoices: Number((await gw.ctx.storage.db.selectFrom('invoices').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n),
  });

  describe('payment', () => {
    it('sends a made-up paid invoice, signed with the payment key, saves nothing and answers []', async () => {
      const before = await counts();
      const r = await send('payment', { network: 'tron', currency: 'usdt' });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ state: 0, result: [] });
      expect(r.got).toHaveLength(1);
      const hit = r.got[0]!;
      expect(hit.headers['content-type']).toBe('application/json');
      expect(hit.headers['user-agent']).toBe('Satchel-Webhooks/1');
      expect(hit.headers['x-satchel-delivery']).toMatch(UUID_RE);
      const body = JSON.parse(hit.body);
      expect(Object.keys(body)).toEqual(PAYMENT_KEYS);
      expect(body).toMatchObject({
        type: 'payment', status: 'paid', is_final: true, network: 'TRON', currency: 'USDT', payer_currency: 'USDT',
        amount: '15.00', payment_amount: '15.00', payment_amount_usd: '15.00', commission: '0.30', merchant_amount: '14.70',
        payer_amount: '15.00', payer_amount_exchange_rate: '1', wallet_address_uuid: null,
      });
      expect(body.uuid).toMatch(UUID_RE);
      expect(body.order_id).toMatch(/^test_[0-9a-f]{16}$/);
      expect(body.txid).toMatch(/^[0-9a-f]{64}$/);
      expect(merchantVerifies(hit.body, gw.merchant.payment_key)).toBe(true);
      expect(merchantVerifies(hit.body, gw.merchant.payout_key)).toBe(false);
      expect(await counts()).toEqual(before);
    });

    it('carries the requested status, with is_final to match', async () => {
      const process = JSON.parse((await send('payment', { status: 'process' })).got[0]!.body);
      expect(process).toMatchObject({ status: 'process', is_final: false });
      const cancel = JSON.parse((await send('payment', { status: 'cancel' })).got[0]!.body);
      expect(cancel).toMatchObject({ status: 'cancel', is_final: true });
      const btc = JSON.parse((await send('payment', { currency: 'BTC', network: 'BTC' })).got[0]!.body);
      expect(btc).toMatchObject({ currency: 'BTC', network: 'BTC', payment_amount_usd: '15.00' });
      expect(btc.amount).toMatch(/^0\.000\d+$/);
    });

    it('uses the merchant\'s invoice when uuid or order_id is given, uuid winning', async () => {
      const a = await insertInvoice(gw, { status: 'process', is_final: 0, additional_data: 'x/y' });
      const b = await insertInvoice(gw);
      const byUuid = await send('payment', { uuid: a.id, status: 'paid' });
      expect(byUuid.body).toEqual({ state: 0, result: [] });
      const body = JSON.parse(byUuid.got[0]!.body);
      expect(body).toMatchObject({ uuid: a.id, order_id: a.order_id, status: 'paid', is_final: true, additional_data: 'x/y', amount: '15.00', txid: a.txid });
      expect(merchantVerifies(byUuid.got[0]!.body, gw.merchant.payment_key)).toBe(true);
      const both = JSON.parse((await send('payment', { uuid: a.id, order_id: b.order_id })).got[0]!.body);
      expect(both.uuid).toBe(a.id);
      const byOrder = JSON.parse((await send('payment', { order_id: b.order_id, status: 'wrong_amount' })).got[0]!.body);
      expect(byOrder).toMatchObject({ uuid: b.id, status: 'wrong_amount' });
      // The invoice itself is untouched.
      const row = await gw.ctx.storage.db.selectFrom('invoices').select('status').where('id', '=', a.id).executeTakeFirstOrThrow();
      expect(row.status).toBe('process');
    });

    it('answers Not found payment for an unknown or foreign invoice, and sends nothing', async () => {
      const none = await send('payment', { uuid: '00000000-0000-4000-8000-000000000000' });
      expect(none.status).toBe(422);
      expect(none.body).toEqual({ state: 1, message: 'Not found payment' });
      expect(none.got).toHaveLength(0);
      expect((await send('payment', { order_id: 'missing-order' })).body).toEqual({ state: 1, message: 'Not found payment' });
      const inv = await insertInvoice(gw);
      const other = await createMerchant(gw.ctx.storage.db, 'Other shop');
      expect((await send('payment', { uuid: inv.id }, { merchant: other })).body).toEqual({ state: 1, message: 'Not found payment' });
    });

    it('answers Payment service not found for a pair the registry does not carry', async () => {
      for (const pair of [{ currency: 'USDT', network: 'BTC' }, { currency: 'USD', network: 'TRON' }, { currency: 'USDT', network: 'NOPE' }]) {
        const r = await send('payment', pair);
        expect(r.status).toBe(422);
        expect(r.body).toEqual({ state: 1, message: 'Payment service not found' });
        expect(r.got).toHaveLength(0);
      }
    });
  });

  describe('payout', () => {
    it('sends a made-up payout in payout field order, signed with the payment key', async () => {
      const r = await send('payout', { status: 'fail' });
      expect(r.body).toEqual({ state: 0, result: [] });
      const body = JSON.parse(r.got[0]!.body);
      expect(Object.keys(body)).toEqual(PAYOUT_KEYS);
      expect(body).toMatchObject({ type: 'payout', status: 'fail', is_final: true, currency: 'USDT', network: 'TRON', amount: '15.00', commission: '1.00', merchant_amount: '16.00' });
      expect(merchantVerifies(r.got[0]!.body, gw.merchant.payment_key)).toBe(true);
      const paid = JSON.parse((await send('payout', {})).got[0]!.body);
      expect(paid).toMatchObject({ status: 'paid', is_final: true });
      const check = JSON.parse((await send('payout', { status: 'check' })).got[0]!.body);
      expect(check).toMatchObject({ status: 'check', is_final: false });
    });

    it('accepts a request signed with either of the merchant keys (an SDK signs it with the payout key), and keeps signing with the payment key', async () => {
      const r = await send('payout', { status: 'paid' }, { key: 'payout' });
      expect(r.status).toBe(200);
      expect(merchantVerifies(r.got[0]!.body, gw.merchant.payment_key)).toBe(true);
      // Only this route: the payment test still takes the payment key alone.
      expect((await send('payment', {}, { key: 'payout' })).status).toBe(401);
    });

    it('accepts only payout statuses', async () => {
      expect((await send('payout', { status: 'paid_over' })).body).toEqual({ state: 1, errors: { status: ['validation.in'] } });
    });

    it('answers Not found payout for a named payout, and Payout service not found for a bad pair', async () => {
      expect((await send('payout', { uuid: '00000000-0000-4000-8000-000000000000' })).body).toEqual({ state: 1, message: 'Not found payout' });
      expect((await send('payout', { order_id: 'po-1' })).body).toEqual({ state: 1, message: 'Not found payout' });
      const r = await send('payout', { currency: 'EUR', network: 'ETH' });
      expect(r.body).toEqual({ state: 1, message: 'Payout service not found' });
      expect(r.got).toHaveLength(0);
    });
  });

  describe('wallet', () => {
    it('needs uuid or order_id', async () => {
      expect((await send('wallet', {})).body).toEqual({ state: 1, errors: { uuid: ['validation.required_without'], order_id: ['validation.required_without'] } });
    });

    it('answers Not found wallet for a wallet that does not exist, and Payment service not found for a bad pair', async () => {
      expect((await send('wallet', { uuid: '00000000-0000-4000-8000-000000000000' })).body).toEqual({ state: 1, message: 'Not found wallet' });
      expect((await send('wallet', { order_id: 'w-1' })).body).toEqual({ state: 1, message: 'Not found wallet' });
      expect((await send('wallet', { order_id: 'w-1', currency: 'BTC', network: 'TRON' })).body).toEqual({ state: 1, message: 'Payment service not found' });
    });
  });

  it('validates the parameters on every path', async () => {
    for (const kind of ['payment', 'payout', 'wallet'] as const) {
      const empty = await gw.api(`/v1/test-webhook/${kind}`, {});
      expect(empty.status).toBe(422);
      expect(empty.body.errors).toMatchObject({ url_callback: ['validation.required'], currency: ['validation.required'], network: ['validation.required'] });
      expect((await send(kind, { url_callback: 'ftp://shop.example/x', order_id: 'ok' })).body).toEqual({ state: 1, errors: { url_callback: ['validation.url'] } });
      expect((await send(kind, { url_callback: 'http://' + 'a'.repeat(150) + '.example', order_id: 'ok' })).body).toEqual({ state: 1, errors: { url_callback: ['validation.max.string'] } });
      expect((await send(kind, { url_callback: 'a.b', order_id: 'ok' })).body).toEqual({ state: 1, errors: { url_callback: ['validation.min.string'] } });
      expect((await send(kind, { uuid: 'nope' })).body).toEqual({ state: 1, errors: { uuid: ['validation.uuid'] } });
      expect((await send(kind, { order_id: 'x'.repeat(33) })).body).toEqual({ state: 1, errors: { order_id: ['validation.max.string'] } });
      expect((await send(kind, { order_id: 'a b' })).body).toEqual({ state: 1, errors: { order_id: ['validation.alpha_dash'] } });
      expect((await send(kind, { order_id: 'ok', status: 'nope' })).body).toEqual({ state: 1, errors: { status: ['validation.in'] } });
      expect((await send(kind, { order_id: 'ok', currency: 5 })).body).toEqual({ state: 1, errors: { currency: ['validation.string'] } });
    }
    expect((await send('payment', { status: 'refund_paid' })).body).toEqual({ state: 0, result: [] });
    expect((await send('wallet', { order_id: 'ok', status: 'locked' })).body).toEqual({ state: 1, message: 'Not found wallet' });
  });

  it('answers [] whatever the receiver does', async () => {
    rec.answer = () => ({ status: 500, body: 'boom' });
    try {
      const r = await send('payment', {});
      expect(r.body).toEqual({ state: 0, result: [] });
      expect(r.got).toHaveLength(1);
    } finally {
      rec.answer = () => ({ status: 200 });
    }
    const port = await freePort();
    const down = await gw.api('/v1/test-webhook/payment', { url_callback: `http://127.0.0.1:${port}/hook`, currency: 'USDT', network: 'TRON' });
    expect(down.body).toEqual({ state: 0, result: [] });
    // Sent once, never queued for retries.
    expect((await counts()).webhooks).toBe(0);
  });

  it('takes the payout key on the payout test only', async () => {
    expect((await send('wallet', { uuid: '00000000-0000-4000-8000-000000000000' }, { key: 'payout' })).status).toBe(401);
    expect((await send('payment', {}, { key: 'payout' })).status).toBe(401);
  });

  it('sends to a loopback receiver in test mode, as invoice webhooks do, without the private-callbacks setting', async () => {
    const local = await startTestGateway(backend, { env: { SATCHEL_ALLOW_PRIVATE_CALLBACKS: '0' } });
    try {
      for (const kind of ['payment', 'payout'] as const) {
        rec.deliveries.length = 0;
        const r = await local.api(`/v1/test-webhook/${kind}`, { url_callback: rec.url, currency: 'USDT', network: 'TRON' });
        expect(r.body).toEqual({ state: 0, result: [] });
        expect(rec.deliveries).toHaveLength(1);
        expect(merchantVerifies(rec.deliveries[0]!.body, local.merchant.payment_key)).toBe(true);
      }
      // A named invoice of that gateway goes to the same receiver.
      rec.deliveries.length = 0;
      const inv = (await local.api('/v1/payment', { amount: '10', currency: 'USD', order_id: 'loopback-1', url_callback: rec.url })).body.result;
      await local.api('/v1/test-webhook/payment', { url_callback: rec.url, currency: 'USDT', network: 'TRON', uuid: inv.uuid });
      expect(rec.deliveries.map((d) => (JSON.parse(d.body) as { uuid: string }).uuid)).toEqual([inv.uuid]);
    } finally {
      await local.close();
    }
  });

  it('does not send to private addresses outside test mode when private callbacks are not allowed', async () => {
    const strict = await startTestGateway(backend, {
      env: { SATCHEL_ALLOW_PRIVATE_CALLBACKS: '0', SATCHEL_RATES: STATIC_RATES, SATCHEL_NETWORKS: JSON.stringify({ ETH: { driver: 'evm', custody: 'hot', rpc_url: 'http://127.0.0.1:9', chain_id: 1 } }) },
    });
    try {
      rec.deliveries.length = 0;
      const r = await strict.api('/v1/test-webhook/payment', { url_callback: rec.url, currency: 'USDT', network: 'TRON' });
      expect(r.body).toEqual({ state: 0, result: [] });
      expect(rec.deliveries).toHaveLength(0);
    } finally {
      await strict.close();
    }
  });
});
