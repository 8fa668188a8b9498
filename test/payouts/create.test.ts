import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backends } from '../helpers/backends.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { createMerchant, setMerchantBlocked, type Merchant } from '../../src/merchants/store.ts';
import { setWalletStatus } from '../../src/ledger/merchant-wallets.ts';
import { ADDR, balance, fund, ledgerAgrees, startMoneyGateway } from './harness.ts';

const PAYOUT_KEYS = ['uuid', 'amount', 'currency', 'network', 'address', 'txid', 'status', 'is_final', 'balance', 'payer_currency', 'payer_amount'];
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let n = 0;
const oid = () => `po-${++n}`;

describe.each(await backends())('POST /v1/payout, /v1/payout/calc, /v1/payout/info, /v1/payout/list on $name', (backend) => {
  let gw: TestGateway;
  /** A merchant of its own per test, so balances start at zero. */
  let m: Merchant;
  beforeAll(async () => {
    gw = await startMoneyGateway(backend);
  });
  afterAll(async () => gw?.close());

  const fresh = async () => (m = await createMerchant(gw.ctx.storage.db, `shop ${++n}`));
  const payout = (body: Record<string, unknown>, merchant = m) =>
    gw.api('/v1/payout', { amount: '10', currency: 'USDT', network: 'TRON', address: ADDR.TRON, is_subtract: true, order_id: oid(), ...body }, { key: 'payout', merchant });
  const calc = (body: Record<string, unknown>, path = '/v1/payout/calc') =>
    gw.api(path, { amount: '10', currency: 'USDT', network: 'TRON', address: ADDR.TRON, is_subtract: true, ...body }, { key: 'payout', merchant: m });
  const fail = async (body: Record<string, unknown>) => {
    const r = await payout(body);
    expect(r.status).toBe(422);
    return r.body;
  };

  describe('the four ways', () => {
    it('(1) crypto amount from the balance in that currency; is_subtract true: the fee on top', async () => {
      await fresh();
      await fund(gw, 'USDT', '100', 'business', m);
      const r = await payout({ url_callback: 'https://shop.example/payout' });
      expect(r.status).toBe(200);
      expect(Object.keys(r.body.result)).toEqual([...PAYOUT_KEYS, 'commission', 'merchant_amount']);
      expect(r.body.result).toEqual({
        uuid: expect.stringMatching(UUID_RE),
        amount: '10.00',
        currency: 'USDT',
        network: 'TRON',
        address: ADDR.TRON,
        txid: null,
        status: 'process',
        is_final: false,
        balance: 89,
        payer_currency: 'USDT',
        payer_amount: 10,
        commission: '1.00',
        merchant_amount: '11.00',
      });
      expect(await balance(gw, 'USDT', 'business', m)).toBe('89');
      expect(await ledgerAgrees(gw, 'USDT', 'business', m)).toBe(true);
    });

    it('(1) is_subtract false: the fee comes out of the payout', async () => {
      await fresh();
      await fund(gw, 'USDT', '100', 'business', m);
      const r = await payout({ is_subtract: 'false' });
      expect(r.body.result).toMatchObject({ amount: '10.00', payer_amount: 9, commission: '1.00', merchant_amount: '10.00', balance: 90 });
      const z = await payout({ is_subtract: 0 });
      expect(z.body.result).toMatchObject({ payer_amount: 9, merchant_amount: '10.00', balance: 80 });
    });

    it('(2) fiat amount with to_currency, taken from the to_currency balance; network omitted for a one-network coin', async () => {
      await fresh();
      await fund(gw, 'TRX', '1000', 'business', m);
      // 15 USD at 0.12 USD/TRX = 125 TRX, network fee 1 TRX.
      const r = await payout({ amount: '15', currency: 'USD', to_currency: 'TRX', network: undefined });
      expect(r.status).toBe(200);
      expect(r.body.result).toMatchObject({
        amount: '15.00', currency: 'USD', network: 'TRON', payer_currency: 'TRX', payer_amount: 125, commission: '1.00', merchant_amount: '126.00', balance: 874,
      });
      expect(r.body.result.convert).toBeUndefined();
    });

    it('(3) fiat amount with to_currency and from_currency USDT: converted, taken from the USDT balance', async () => {
      await fresh();
      await fund(gw, 'USDT', '100', 'business', m);
      const r = await payout({ amount: '15', currency: 'USD', to_currency: 'TRX', from_currency: 'USDT', network: 'TRON' });
      expect(r.status).toBe(200);
      // 126 TRX (125 + fee 1) at 0.12 USDT = 15.12 USDT, plus 1 % conversion fee 0.1512.
      expect(r.body.result).toEqual({
        uuid: expect.stringMatching(UUID_RE),
        amount: '15.00', currency: 'USD', network: 'TRON', address: ADDR.TRON, txid: null, status: 'process', is_final: false,
        balance: 84.7288, payer_currency: 'TRX', payer_amount: 125, commission: '0.2712', merchant_amount: '15.2712',
        convert: { to_currency: 'TRX', from_currency: 'USDT', commission: '0.1512', rate: '0.12', from_amount: '15.00' },
      });
      expect(await balance(gw, 'TRX', 'business', m)).toBe('0');
    });

    it('(4) crypto amount with from_currency USDT; from_currency equal to the currency converts nothing', async () => {
      await fresh();
      await fund(gw, 'USDT', '100', 'business', m);
      const r = await payout({ amount: '0.001', currency: 'BTC', network: 'BTC', address: ADDR.BTC, from_currency: 'usdt' });
      expect(r.status).toBe(200);
      // 0.00104 BTC (0.001 + fee 0.00004) at 65000 = 67.6 USDT + 1 % = 68.276.
      expect(r.body.result).toMatchObject({
        amount: '0.001', currency: 'BTC', payer_currency: 'BTC', payer_amount: 0.001, commission: '3.276', merchant_amount: '68.276', balance: 31.724,
        convert: { to_currency: 'BTC', from_currency: 'USDT', commission: '0.676', rate: '65000', from_amount: '65.00' },
      });
      const same = await payout({ from_currency: 'USDT' });
      expect(same.body.result.convert).toBeUndefined();
      expect(same.body.result).toMatchObject({ merchant_amount: '11.00', balance: 20.724 });
    });
  });

  describe('options', () => {
    it('priority changes the fee on BTC, ETH, POLYGON and BSC only', async () => {
      await fresh();
      await fund(gw, 'BTC', '1', 'business', m);
      const at = async (priority?: string) =>
        (await calc({ amount: '0.01', currency: 'BTC', network: 'BTC', address: ADDR.BTC, priority })).body.result.commission;
      expect(await at()).toBe('0.00004');
      expect(await at('economy')).toBe('0.00002');
      expect(await at('high')).toBe('0.00006');
      expect(await at('highest')).toBe('0.0001');
      await fund(gw, 'USDT', '100', 'business', m);
      expect((await calc({ priority: 'highest' })).body.result.commission).toBe('1.00');
      const r = await payout({ amount: '0.01', currency: 'BTC', network: 'BTC', address: ADDR.BTC, priority: 'economy' });
      const row = await gw.ctx.storage.db.selectFrom('payouts').selectAll().where('id', '=', r.body.result.uuid).executeTakeFirstOrThrow();
      expect(row.priority).toBe('economy');
      expect(r.body.result).toMatchObject({ commission: '0.00002', merchant_amount: '0.01002' });
    });

    it('memo is kept for TON and ignored elsewhere', async () => {
      await fresh();
      await fund(gw, 'TON', '10', 'business', m);
      await fund(gw, 'USDT', '100', 'business', m);
      const ton = await payout({ amount: '2', currency: 'TON', network: 'TON', address: ADDR.TON, memo: 'invoice-42' });
      expect(ton.status).toBe(200);
      expect(ton.body.result).toMatchObject({ payer_amount: 2, commission: '0.05', merchant_amount: '2.05' });
      const tron = await payout({ memo: 'ignored' });
      const rows = await gw.ctx.storage.db.selectFrom('payouts').select(['id', 'memo']).where('id', 'in', [ton.body.result.uuid, tron.body.result.uuid]).execute();
      expect(Object.fromEntries(rows.map((r) => [r.id, r.memo]))).toEqual({ [ton.body.result.uuid]: 'invoice-42', [tron.body.result.uuid]: null });
    });

    it('course_source is accepted in any case, and applied only for a fiat currency', async () => {
      await fresh();
      await fund(gw, 'TRX', '1000', 'business', m);
      await fund(gw, 'USDT', '100', 'business', m);
      const a = await payout({ amount: '15', currency: 'USD', to_currency: 'TRX', course_source: 'BinanceP2p' });
      const b = await payout({ course_source: 'kucoin' });
      expect(a.status).toBe(200);
      const rows = await gw.ctx.storage.db.selectFrom('payouts').select(['id', 'course_source']).where('id', 'in', [a.body.result.uuid, b.body.result.uuid]).execute();
      expect(Object.fromEntries(rows.map((r) => [r.id, r.course_source]))).toEqual({ [a.body.result.uuid]: 'BinanceP2P', [b.body.result.uuid]: null });
    });
  });

  describe('order_id', () => {
    it('an existing order_id returns that payout as created, whatever the request says, and debits nothing more', async () => {
      await fresh();
      await fund(gw, 'USDT', '100', 'business', m);
      const a = await payout({ order_id: 'same-1' });
      const b = await payout({ order_id: 'same-1', amount: '50', currency: 'BTC', network: 'BTC', address: ADDR.BTC });
      expect(b.status).toBe(200);
      expect(b.body.result).toEqual(a.body.result);
      expect(await balance(gw, 'USDT', 'business', m)).toBe('89');
    });

    it('concurrent requests with one order_id create one payout and one debit', async () => {
      await fresh();
      await fund(gw, 'USDT', '100', 'business', m);
      const rs = await Promise.all(Array.from({ length: 20 }, () => payout({ order_id: 'race-1' })));
      expect(rs.map((r) => r.status)).toEqual(Array(20).fill(200));
      expect(new Set(rs.map((r) => r.body.result.uuid)).size).toBe(1);
      expect(await balance(gw, 'USDT', 'business', m)).toBe('89');
      const count = await gw.ctx.storage.db.selectFrom('payouts').select((eb) => eb.fn.countAll().as('c')).where('merchant_id', '=', m.id).executeTakeFirstOrThrow();
      expect(Number(count.c)).toBe(1);
      expect(await ledgerAgrees(gw, 'USDT', 'business', m)).toBe(true);
    });

    it('a payout refused for lack of funds is not recorded: the order_id can be used again', async () => {
      await fresh();
      expect(await fail({ order_id: 'later-1' })).toEqual({ state: 1, message: 'Not enough funds' });
      await fund(gw, 'USDT', '11', 'business', m);
      const r = await payout({ order_id: 'later-1' });
      expect(r.body.result).toMatchObject({ status: 'process', balance: 0 });
    });
  });

  describe('errors', () => {
    beforeAll(async () => {
      await fresh();
      await fund(gw, 'USDT', '20', 'business', m);
    });

    it('validates every parameter with the spec bounds and Laravel codes', async () => {
      expect((await gw.api('/v1/payout', {}, { key: 'payout', merchant: m })).body).toEqual({
        state: 1,
        errors: {
          amount: ['validation.required'], currency: ['validation.required'], address: ['validation.required'],
          is_subtract: ['validation.required'], order_id: ['validation.required'],
        },
      });
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [{ amount: 10 }, 'amount', 'validation.string'],
        [{ amount: 'ten' }, 'amount', 'validation.numeric'],
        [{ amount: '1e3' }, 'amount', 'validation.numeric'],
        [{ amount: '1'.repeat(41) }, 'amount', 'validation.max.string'],
        [{ currency: 5 }, 'currency', 'validation.string'],
        [{ order_id: 'a b' }, 'order_id', 'validation.alpha_dash'],
        [{ order_id: 'x'.repeat(101) }, 'order_id', 'validation.max.string'],
        [{ address: 7 }, 'address', 'validation.string'],
        [{ is_subtract: 'yes' }, 'is_subtract', 'validation.boolean'],
        [{ network: 1 }, 'network', 'validation.string'],
        [{ url_callback: 'not a url' }, 'url_callback', 'validation.url'],
        [{ url_callback: 'http:' }, 'url_callback', 'validation.min.string'],
        [{ to_currency: 3 }, 'to_currency', 'validation.string'],
        [{ course_source: 'Foo' }, 'course_source', 'validation.min.string'],
        [{ course_source: 'Bitfinex' }, 'course_source', 'validation.in'],
        [{ from_currency: 1 }, 'from_currency', 'validation.string'],
        [{ priority: 'low' }, 'priority', 'validation.min.string'],
        [{ priority: 'urgent' }, 'priority', 'validation.in'],
        [{ priority: 'recommended-x' }, 'priority', 'validation.max.string'],
        [{ memo: 'm'.repeat(31) }, 'memo', 'validation.max.string'],
        [{ currency: 'USD', to_currency: undefined }, 'to_currency', 'validation.required'],
        [{ network: undefined }, 'network', 'validation.required'],
      ];
      for (const [body, field, code] of cases) {
        expect(await fail(body), JSON.stringify(body)).toEqual({ state: 1, errors: { [field]: [code] } });
      }
    });

    it('checks the destination address on the network, checksum included; nothing is debited', async () => {
      const before = await balance(gw, 'USDT', 'business', m);
      for (const address of ['TJRabPrwbZy45sbavfcjinPJC18kjpRTv9', ADDR.BTC, '0x52908400098527886E0F7030069857D2E4169EE8', 'hello']) {
        expect(await fail({ address })).toEqual({ state: 1, errors: { address: ['validation.regex'] } });
      }
      expect(await fail({ network: 'BSC', address: '0x52908400098527886e0F7030069857D2E4169EE7' })).toEqual({ state: 1, errors: { address: ['validation.regex'] } });
      expect(await fail({ network: 'BTC', currency: 'BTC', address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdr' })).toEqual({ state: 1, errors: { address: ['validation.regex'] } });
      expect(await balance(gw, 'USDT', 'business', m)).toBe(before);
    });

    it('answers every business error of the spec letter for letter', async () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ currency: 'XYZ' }, 'The currency was not found'],
        [{ currency: 'USD', to_currency: 'EUR' }, 'Not found service to_currency'],
        [{ currency: 'USD', to_currency: 'NOPE' }, 'Not found service to_currency'],
        [{ network: 'NOPE' }, 'The service was not found'],
        [{ network: 'BTC', address: ADDR.BTC }, 'The service was not found'],
        [{ from_currency: 'BTC' }, 'The service was not found'],
        [{ amount: '0.5' }, 'Minimum amount 1 USDT'],
        [{ amount: '0' }, 'Minimum amount 1 USDT'],
        [{ amount: '-5' }, 'Minimum amount 1 USDT'],
        [{ amount: '500001' }, 'Maximum amount 500000 USDT'],
        [{ amount: '1.5', is_subtract: false }, 'The withdrawal amount is too small'],
        [{ amount: '1', is_subtract: false }, 'The withdrawal amount is too small'],
        [{ amount: '25' }, 'Not enough funds'],
        [{ amount: '0.01', currency: 'BTC', network: 'BTC', address: ADDR.BTC }, 'Not enough funds'],
        [{ amount: '0.01', currency: 'BTC', network: 'BTC', address: ADDR.BTC, from_currency: 'USDT' }, 'Not enough balance for convert USDT to BTC'],
      ];
      for (const [body, message] of cases) {
        expect(await fail(body), JSON.stringify(body)).toEqual({ state: 1, message });
        expect((await calc(body)).body, `calc ${JSON.stringify(body)}`).toEqual({ state: 1, message });
      }
    });

    it('Wallet not found when the balance wallet is switched off', async () => {
      const other = await createMerchant(gw.ctx.storage.db, 'switched off');
      await fund(gw, 'USDT', '100', 'business', other);
      await setWalletStatus(gw.ctx, other.id, 'business', 'USDT', 'in_active');
      expect((await payout({}, other)).body).toEqual({ state: 1, message: 'Wallet not found' });
      expect((await payout({ amount: '0.001', currency: 'BTC', network: 'BTC', address: ADDR.BTC, from_currency: 'USDT' }, other)).body).toEqual({ state: 1, message: 'Wallet not found' });
      await setWalletStatus(gw.ctx, other.id, 'business', 'USDT', 'active');
      expect((await payout({}, other)).status).toBe(200);
    });

    it('You are forbidden for a blocked merchant (payout and calc); info and list still answer', async () => {
      const blocked = await createMerchant(gw.ctx.storage.db, 'blocked');
      await setMerchantBlocked(gw.ctx.storage.db, blocked.id, true);
      expect((await payout({}, blocked)).body).toEqual({ state: 1, message: 'You are forbidden' });
      expect((await gw.api('/v1/payout/calc', {}, { key: 'payout', merchant: blocked })).body).toEqual({ state: 1, message: 'You are forbidden' });
      expect((await gw.api('/v1/payout/list', {}, { key: 'payout', merchant: blocked })).status).toBe(200);
    });

    it('is signed with the payout key', async () => {
      const r = await gw.api('/v1/payout', {}, { merchant: m });
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ state: 1, message: 'Invalid Sign.' });
    });
  });

  describe('calc', () => {
    it('returns exactly what creating charges, under both paths', async () => {
      await fresh();
      await fund(gw, 'USDT', '1000', 'business', m);
      const bodies: Array<Record<string, unknown>> = [
        {},
        { is_subtract: false },
        { amount: '15', currency: 'USD', to_currency: 'TRX', from_currency: 'USDT' },
        { amount: '0.001', currency: 'BTC', network: 'BTC', address: ADDR.BTC, from_currency: 'USDT', priority: 'high' },
      ];
      for (const body of bodies) {
        const c = await calc(body);
        const c2 = await calc(body, '/v1/payout/calculate');
        expect(c2.body).toEqual(c.body);
        const before = await balance(gw, 'USDT', 'business', m);
        const p = await payout(body);
        expect(c.body.result).toEqual({
          commission: p.body.result.commission,
          merchant_amount: p.body.result.merchant_amount,
          payout_amount: expect.any(String),
        });
        expect(Number(c.body.result.payout_amount)).toBe(p.body.result.payer_amount);
        expect(Number(before) - Number(await balance(gw, 'USDT', 'business', m))).toBeCloseTo(Number(c.body.result.merchant_amount), 10);
      }
      expect((await calc({})).body).toEqual({ state: 0, result: { commission: '1.00', merchant_amount: '11.00', payout_amount: '10.00' } });
      expect((await calc({ is_subtract: '0' })).body).toEqual({ state: 0, result: { commission: '1.00', merchant_amount: '10.00', payout_amount: '9.00' } });
    });

    it('validates like creation, without order_id', async () => {
      expect((await gw.api('/v1/payout/calc', {}, { key: 'payout', merchant: m })).body).toEqual({
        state: 1,
        errors: { amount: ['validation.required'], currency: ['validation.required'], address: ['validation.required'], is_subtract: ['validation.required'] },
      });
    });
  });

  describe('info and list', () => {
    it('finds a payout by uuid or order_id (order_id wins) and shows the remaining balance', async () => {
      await fresh();
      await fund(gw, 'USDT', '100', 'business', m);
      const a = (await payout({ order_id: 'info-a' })).body.result;
      const b = (await payout({ order_id: 'info-b' })).body.result;
      const info = (body: Record<string, unknown>) => gw.api('/v1/payout/info', body, { key: 'payout', merchant: m });
      const byUuid = await info({ uuid: a.uuid });
      expect(Object.keys(byUuid.body.result)).toEqual(PAYOUT_KEYS);
      expect(byUuid.body.result).toEqual({ ...a, balance: 78, commission: undefined, merchant_amount: undefined });
      expect((await info({ uuid: a.uuid.toUpperCase() })).body.result.uuid).toBe(a.uuid);
      expect((await info({ uuid: a.uuid, order_id: 'info-b' })).body.result.uuid).toBe(b.uuid);
      expect((await info({ order_id: 'info-b' })).body.result.uuid).toBe(b.uuid);
      expect((await info({ order_id: 'nope' })).body).toEqual({ state: 1, message: 'Not found payout' });
      const other = await createMerchant(gw.ctx.storage.db, 'other');
      expect((await gw.api('/v1/payout/info', { uuid: a.uuid }, { key: 'payout', merchant: other })).body).toEqual({ state: 1, message: 'Not found payout' });
      expect((await info({})).body).toEqual({ state: 1, errors: { uuid: ['validation.required_without'], order_id: ['validation.required_without'] } });
      expect((await info({ order_id: 'x'.repeat(33) })).body).toEqual({ state: 1, errors: { order_id: ['validation.max.string'] } });
      expect((await info({ uuid: 'not-a-uuid' })).body).toEqual({ state: 1, errors: { uuid: ['validation.uuid'] } });
    });

    it('lists payouts newest first with cursors and date filters', async () => {
      await fresh();
      await fund(gw, 'USDT', '1000', 'business', m);
      const made: string[] = [];
      for (let i = 0; i < 17; i++) {
        made.push((await payout({ order_id: `list-${i}` })).body.result.uuid);
        gw.clock.advance(1000);
      }
      const list = (body: Record<string, unknown>, cursor?: string) =>
        gw.api(`/v1/payout/list${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`, body, { key: 'payout', merchant: m });
      const p1 = (await list({})).body.result;
      expect(p1.merchant_uuid).toBe(m.id);
      expect(p1.items.map((i: any) => i.uuid)).toEqual(made.slice(2).reverse());
      expect(Object.keys(p1.items[0])).toEqual([...PAYOUT_KEYS, 'created_at', 'updated_at']);
      expect(p1.paginate).toMatchObject({ count: 15, hasPages: true, previousCursor: null, perPage: 15 });
      const p2 = (await list({}, p1.paginate.nextCursor)).body.result;
      expect(p2.items.map((i: any) => i.uuid)).toEqual(made.slice(0, 2).reverse());
      expect(p2.paginate).toMatchObject({ count: 2, nextCursor: null });
      const back = (await list({}, p2.paginate.previousCursor)).body.result;
      expect(back.items.map((i: any) => i.uuid)).toEqual(p1.items.map((i: any) => i.uuid));
      const created = p1.items[0].created_at as string; // e.g. 2026-01-15T15:00:16+03:00
      const local = created.slice(0, 10) + ' ' + created.slice(11, 19);
      const only = (await list({ date_from: local, date_to: local })).body.result;
      expect(only.items.map((i: any) => i.uuid)).toEqual([made[16]]);
      expect((await list({ date_from: '2026-13-01 00:00:00' })).body).toEqual({ state: 1, errors: { date_from: ['validation.regex'] } });
      expect((await list({}, 'garbage')).body.result).toEqual(p1);
      expect((await list({ cursor: '1' })).body.result).toEqual(p1);
    });
  });
});

describe.each(await backends())('payout conversion without a rate on $name', (backend) => {
  let gw: TestGateway;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'satchel-rates-'));
    const file = join(dir, 'rates.json');
    writeFileSync(file, JSON.stringify({ usd: { USD: '1', USDT: '1', TRX: '0.12' } }));
    gw = await startMoneyGateway(backend, { SATCHEL_RATES_FILE: file });
  });
  afterAll(async () => gw?.close());

  it('answers Error convert to_currency', async () => {
    await fund(gw, 'TRX', '1000');
    const r = await gw.api('/v1/payout', { amount: '10', currency: 'EUR', to_currency: 'TRX', address: ADDR.TRON, is_subtract: true, order_id: 'eur-1' }, { key: 'payout' });
    expect(r.body).toEqual({ state: 1, message: 'Error convert to_currency' });
  });
});
