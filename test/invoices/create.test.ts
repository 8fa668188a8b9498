import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { isValidAddress } from '../helpers/addresses.ts';

let n = 0;
const oid = () => `ord-${++n}`;

describe.each(await backends())('POST /v1/payment on $name', (backend) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(backend);
  });
  afterAll(async () => gw?.close());

  const create = (body: Record<string, unknown>) => gw.api('/v1/payment', { amount: '10', currency: 'USDT', network: 'TRON', order_id: oid(), ...body });
  const errorsOf = async (body: Record<string, unknown>) => {
    const r = await create(body);
    expect(r.status).toBe(422);
    return r.body;
  };

  it('creates a crypto invoice with an address, the full Invoice object and the creation-only fields', async () => {
    const r = await gw.api('/v1/payment', { amount: '15', currency: 'USDT', network: 'tron', order_id: 'full-1', url_callback: 'https://shop.example/cb', additional_data: 'note' });
    expect(r.status).toBe(200);
    const inv = r.body.result;
    expect(Object.keys(inv)).toEqual([
      'uuid', 'order_id', 'amount', 'payment_amount', 'payment_amount_usd', 'payer_amount', 'payer_amount_exchange_rate',
      'discount_percent', 'discount', 'payer_currency', 'currency', 'comments', 'merchant_amount', 'network', 'address',
      'payment_comment', 'from', 'txid', 'payment_status', 'status', 'url', 'expired_at', 'is_final', 'additional_data', 'created_at',
      'updated_at', 'commission', 'address_qr_code', 'recurrence_uuid',
    ]);
    expect(inv).toMatchObject({
      order_id: 'full-1',
      amount: '15.00',
      payment_amount: null,
      payment_amount_usd: '0.00',
      payer_amount: '15.00',
      payer_amount_exchange_rate: '1',
      discount_percent: null,
      discount: '0.00',
      payer_currency: 'USDT',
      currency: 'USDT',
      comments: null,
      merchant_amount: '14.70',
      commission: '0.30',
      network: 'TRON',
      from: null,
      txid: null,
      payment_status: 'process',
      status: 'process',
      is_final: false,
      additional_data: 'note',
      url: `https://pay.example.test/pay/${inv.uuid}`,
      created_at: '2026-01-15T15:00:00+03:00',
      updated_at: '2026-01-15T15:00:00+03:00',
      expired_at: Date.UTC(2026, 0, 15, 12, 0, 0) / 1000 + 3600,
    });
    expect(isValidAddress('tron', inv.address)).toBe(true);
    expect(inv.address_qr_code).toMatch(/^data:image\/png;base64,[A-Za-z0-9+/]+=*$/);
    expect(inv.uuid).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('returns the existing invoice for a repeated order_id and creates none', async () => {
    const a = await gw.api('/v1/payment', { amount: '10', currency: 'USDT', network: 'TRON', order_id: 'same-1' });
    const b = await gw.api('/v1/payment', { amount: '99', currency: 'BTC', order_id: 'same-1' });
    expect(b.status).toBe(200);
    expect(b.body.result.uuid).toBe(a.body.result.uuid);
    expect(b.body.result.amount).toBe('10.00');
    const count = await gw.ctx.storage.db.selectFrom('invoices').select((eb) => eb.fn.countAll().as('c')).where('order_id', '=', 'same-1').executeTakeFirst();
    expect(Number(count?.c)).toBe(1);
  });

  it('creates exactly one invoice for concurrent requests with the same order_id', async () => {
    const rs = await Promise.all(Array.from({ length: 20 }, () => gw.api('/v1/payment', { amount: '10', currency: 'USDT', network: 'TRON', order_id: 'race-1' })));
    expect(rs.every((r) => r.status === 200)).toBe(true);
    expect(new Set(rs.map((r) => r.body.result.uuid)).size).toBe(1);
    expect(new Set(rs.map((r) => r.body.result.address)).size).toBe(1);
  });

  it('gives every invoice a fresh address, never reused', async () => {
    const rs = await Promise.all(Array.from({ length: 12 }, () => create({})));
    const addrs = rs.map((r) => r.body.result.address);
    expect(new Set(addrs).size).toBe(12);
    const evm = await create({ currency: 'USDT', network: 'BSC' });
    expect(isValidAddress('evm', evm.body.result.address)).toBe(true);
    const btc = await create({ currency: 'BTC', network: undefined, amount: '0.01' });
    expect(btc.body.result.network).toBe('BTC');
    expect(isValidAddress('bitcoin', btc.body.result.address)).toBe(true);
  });

  it('converts a fiat invoice with to_currency and leaves the choice to the payer without it', async () => {
    const fiat = await create({ amount: '100', currency: 'USD', network: undefined });
    expect(fiat.status).toBe(200);
    expect(fiat.body.result).toMatchObject({ amount: '100.00', currency: 'USD', payer_currency: null, payer_amount: null, address: null, network: null, merchant_amount: null });
    const conv = await create({ amount: '130', currency: 'USD', to_currency: 'BTC', network: undefined });
    expect(conv.status).toBe(200);
    // 130 USD at 65000 USD/BTC = 0.002 BTC, commission 2% = 0.00004
    expect(conv.body.result).toMatchObject({ payer_currency: 'BTC', network: 'BTC', payer_amount: '0.002', merchant_amount: '0.00196', commission: '0.00004' });
    expect(conv.body.result.payer_amount_exchange_rate).toBe('0.000015384615384615');
    const multi = await create({ amount: '10', currency: 'USDT', network: undefined });
    expect(multi.body.result).toMatchObject({ payer_currency: null, address: null });
  });

  it('applies discount_percent only with a specific cryptocurrency: amount + discount = payer_amount', async () => {
    const d = await create({ amount: '100', discount_percent: 10 });
    expect(d.body.result).toMatchObject({ amount: '100.00', payer_amount: '90.00', discount: '-10.00', discount_percent: 10 });
    const extra = await create({ amount: '100', discount_percent: -5 });
    expect(extra.body.result).toMatchObject({ payer_amount: '105.00', discount: '5.00', discount_percent: -5 });
  });

  it('charges the subtract share of the commission to the payer', async () => {
    const r = await create({ amount: '100', subtract: 100 });
    expect(r.body.result).toMatchObject({ payer_amount: '102.00', merchant_amount: '100.00', commission: '2.00', discount: '2.00' });
    const half = await create({ amount: '100', subtract: '50' });
    expect(half.body.result).toMatchObject({ payer_amount: '101.00', merchant_amount: '99.00', commission: '2.00' });
  });

  it('rounds what the payer pays up and what the merchant gets down, in the currency precision', async () => {
    const r = await create({ amount: '0.0000001', currency: 'BTC', network: 'BTC' }).catch(() => null);
    expect(r?.body).toEqual({ state: 1, message: 'Minimum amount 0.00001 BTC' });
    const x = await create({ amount: '1.0000001', currency: 'USDT', network: 'TRON' });
    expect(x.body.result.payer_amount).toBe('1.000001');
    expect(x.body.result.commission).toBe('0.020001');
    expect(x.body.result.merchant_amount).toBe('0.98');
  });

  it('validates every parameter with the spec bounds and Laravel codes', async () => {
    const base = { amount: '10', currency: 'USDT', network: 'TRON' };
    expect((await gw.api('/v1/payment', {})).body).toEqual({ state: 1, errors: { amount: ['validation.required'], currency: ['validation.required'], order_id: ['validation.required'] } });
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ amount: 10 }, 'amount', 'validation.string'],
      [{ amount: 'ten' }, 'amount', 'validation.numeric'],
      [{ amount: '1'.repeat(41) }, 'amount', 'validation.max.string'],
      [{ currency: 5 }, 'currency', 'validation.string'],
      [{ order_id: 'a b' }, 'order_id', 'validation.alpha_dash'],
      [{ order_id: 'a/b' }, 'order_id', 'validation.alpha_dash'],
      [{ order_id: 'x'.repeat(129) }, 'order_id', 'validation.max.string'],
      [{ order_id: 12 }, 'order_id', 'validation.string'],
      [{ network: 1 }, 'network', 'validation.string'],
      [{ url_return: 'http:' }, 'url_return', 'validation.min.string'],
      [{ url_return: 'not a url' }, 'url_return', 'validation.url'],
      [{ url_success: 'ftp://example.com/x' }, 'url_success', 'validation.url'],
      [{ url_callback: `https://e.com/${'x'.repeat(250)}` }, 'url_callback', 'validation.max.string'],
      [{ is_payment_multiple: 'yes' }, 'is_payment_multiple', 'validation.boolean'],
      [{ lifetime: 299 }, 'lifetime', 'validation.min.numeric'],
      [{ lifetime: 43201 }, 'lifetime', 'validation.max.numeric'],
      [{ lifetime: '600.5' }, 'lifetime', 'validation.integer'],
      [{ to_currency: 3 }, 'to_currency', 'validation.string'],
      [{ subtract: -1 }, 'subtract', 'validation.min.numeric'],
      [{ subtract: 101 }, 'subtract', 'validation.max.numeric'],
      [{ subtract: 1.5 }, 'subtract', 'validation.integer'],
      [{ accuracy_payment_percent: '5.01' }, 'accuracy_payment_percent', 'validation.max.numeric'],
      [{ accuracy_payment_percent: -0.1 }, 'accuracy_payment_percent', 'validation.min.numeric'],
      [{ accuracy_payment_percent: 'x' }, 'accuracy_payment_percent', 'validation.numeric'],
      [{ accuracy_payment_percent: '1e0' }, 'accuracy_payment_percent', 'validation.numeric'],
      [{ amount: '1e3' }, 'amount', 'validation.numeric'],
      [{ additional_data: 'x'.repeat(256) }, 'additional_data', 'validation.max.string'],
      [{ currencies: 'USDT' }, 'currencies', 'validation.array'],
      [{ except_currencies: { currency: 'BTC' } }, 'except_currencies', 'validation.array'],
      [{ currencies: [{ network: 'TRON' }] }, 'currencies.0.currency', 'validation.required'],
      [{ except_currencies: [{ currency: 'BTC' }, { currency: 1 }] }, 'except_currencies.1.currency', 'validation.string'],
      [{ course_source: 'abc' }, 'course_source', 'validation.min.string'],
      [{ course_source: 'x'.repeat(21) }, 'course_source', 'validation.max.string'],
      [{ course_source: 'Coinbase' }, 'course_source', 'validation.in'],
      [{ from_referral_code: 7 }, 'from_referral_code', 'validation.string'],
      [{ discount_percent: -100 }, 'discount_percent', 'validation.min.numeric'],
      [{ discount_percent: 101 }, 'discount_percent', 'validation.max.numeric'],
      [{ discount_percent: 'five' }, 'discount_percent', 'validation.integer'],
      [{ is_refresh: 2 }, 'is_refresh', 'validation.boolean'],
      [{ payer_email: 42 }, 'payer_email', 'validation.string'],
      [{ theme: 'blue' }, 'theme', 'validation.in'],
    ];
    for (const [patch, field, code] of cases) {
      const body = await errorsOf({ ...base, ...patch });
      expect({ field, body }).toEqual({ field, body: { state: 1, errors: { [field]: [code] } } });
    }
  });

  it('accepts the bounds themselves and booleans in every documented form', async () => {
    for (const patch of [
      { lifetime: 300 }, { lifetime: '43200' }, { subtract: 0 }, { subtract: 100 }, { accuracy_payment_percent: 5 },
      { accuracy_payment_percent: '0' }, { discount_percent: -99 }, { discount_percent: 95 }, { order_id: 'x'.repeat(128) },
      { url_return: 'http:/' + '/a.b' }, { course_source: 'binancep2p' }, { theme: 'dark' }, { payer_email: null },
      ...[true, false, 1, 0, '1', '0', 'true', 'false'].map((v) => ({ is_payment_multiple: v })),
    ]) {
      const r = await create(patch);
      expect({ patch, status: r.status, body: r.status === 200 ? 'ok' : r.body }).toEqual({ patch, status: 200, body: 'ok' });
    }
  });

  it('answers the business errors letter for letter', async () => {
    const msg = async (body: Record<string, unknown>) => (await errorsOf(body)).message;
    expect(await msg({ currency: 'XYZ' })).toBe('The currency was not found');
    expect(await msg({ network: 'NOPE' })).toBe('The network was not found');
    expect(await msg({ currency: 'USD', network: undefined, to_currency: 'EUR' })).toBe('Not found service to_currency');
    expect(await msg({ currency: 'USD', network: undefined, to_currency: 'XYZ' })).toBe('Not found service to_currency');
    expect(await msg({ amount: '0.1' })).toBe('Minimum amount 0.5 USDT');
    expect(await msg({ amount: '10', discount_percent: 100 })).toBe('Minimum amount 0.5 USDT');
    expect(await msg({ amount: '1000001' })).toBe('Maximum amount 1000000 USDT');
    expect(await msg({ currency: 'USDT', network: 'BTC' })).toBe('Wallet not found');
    expect(await msg({ currency: 'USD', network: undefined, amount: '0' })).toBe('Minimum amount 0.01 USD');
    expect(await msg({ currency: 'USD', network: undefined, currencies: [{ currency: 'DOGE', network: 'TRON' }] })).toBe('Wallet not found');
    expect(await msg({ currency: 'USD', network: undefined, currencies: [{ currency: 'FOO' }] })).toBe('The currency was not found');
  });

  it('is_refresh gives an expired, unpaid invoice a new address and lifetime; without it nothing changes', async () => {
    const first = await gw.api('/v1/payment', { amount: '10', currency: 'USDT', network: 'TRON', order_id: 'refresh-1', lifetime: 300 });
    const before = first.body.result;
    gw.clock.advance(301_000);
    const same = await gw.api('/v1/payment', { amount: '10', currency: 'USDT', network: 'TRON', order_id: 'refresh-1' });
    expect(same.body.result.address).toBe(before.address);
    const refreshed = await gw.api('/v1/payment', { amount: '10', currency: 'USDT', network: 'TRON', order_id: 'refresh-1', is_refresh: true });
    const after = refreshed.body.result;
    expect(after.uuid).toBe(before.uuid);
    expect(after.address).not.toBe(before.address);
    expect(after.expired_at).toBe(before.expired_at + 301);
    expect(after.payment_status).toBe('process');
    expect(after.amount).toBe(before.amount);
    // Not expired: a second refresh changes nothing.
    const again = await gw.api('/v1/payment', { amount: '10', currency: 'USDT', network: 'TRON', order_id: 'refresh-1', is_refresh: 'true' });
    expect(again.body.result.address).toBe(after.address);
  });

  it('leaves no partial record behind a refused request', async () => {
    const before = await gw.ctx.storage.db.selectFrom('invoices').select((eb) => eb.fn.countAll().as('c')).executeTakeFirstOrThrow();
    const addrBefore = await gw.ctx.storage.db.selectFrom('addresses').select((eb) => eb.fn.countAll().as('c')).executeTakeFirstOrThrow();
    await errorsOf({ amount: '0.1' });
    await errorsOf({ network: 'NOPE' });
    const after = await gw.ctx.storage.db.selectFrom('invoices').select((eb) => eb.fn.countAll().as('c')).executeTakeFirstOrThrow();
    const addrAfter = await gw.ctx.storage.db.selectFrom('addresses').select((eb) => eb.fn.countAll().as('c')).executeTakeFirstOrThrow();
    expect(Number(after.c)).toBe(Number(before.c));
    expect(Number(addrAfter.c)).toBe(Number(addrBefore.c));
  });
});
