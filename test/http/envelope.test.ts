import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { signBody } from '../../src/webhooks/signature.ts';
import { createMerchant } from '../../src/merchants/store.ts';

describe.each(await backends())('signed API envelope on $name', (backend) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(backend);
  });
  afterAll(async () => gw?.close());

  const post = (url: string, payload: string | Buffer, headers: Record<string, string>) =>
    gw.app.inject({ method: 'POST', url, payload, headers });

  it('answers 401 Invalid Sign. for a missing, wrong or foreign signature and an unknown merchant', async () => {
    const body = '{"uuid":"6e1c44a3-4b7c-4b2c-9d43-0d0b3c0a2c11"}';
    const cases: Array<Record<string, string>> = [
      { 'content-type': 'application/json', merchant: gw.merchant.id },
      { 'content-type': 'application/json', merchant: gw.merchant.id, sign: 'x'.repeat(32) },
      { 'content-type': 'application/json', merchant: gw.merchant.id, sign: signBody(body, gw.merchant.payout_key) },
      { 'content-type': 'application/json', merchant: '6e1c44a3-4b7c-4b2c-9d43-0d0b3c0a2c11', sign: signBody(body, gw.merchant.payment_key) },
      { 'content-type': 'application/json', merchant: 'not-a-uuid', sign: signBody(body, gw.merchant.payment_key) },
      { 'content-type': 'application/json', sign: signBody(body, gw.merchant.payment_key) },
    ];
    for (const headers of cases) {
      const res = await post('/v1/payment/info', body, headers);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ state: 1, message: 'Invalid Sign.' });
    }
  });

  it('accepts header names in any case and the signature in upper case', async () => {
    const body = '{"amount":"10","currency":"USDT","network":"TRON","order_id":"case-1"}';
    const res = await post('/v1/payment', body, {
      'Content-Type': 'application/json',
      MERCHANT: gw.merchant.id,
      SIGN: signBody(body, gw.merchant.payment_key).toUpperCase(),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().state).toBe(0);
  });

  it('hashes the raw bytes: a PHP-escaped body and a JS body both verify with their own signatures', async () => {
    const php = '{"amount":"10","currency":"USD","order_id":"php-1","url_callback":"https:\\/\\/example.com\\/cb"}';
    const res = await post('/v1/payment', php, { 'content-type': 'application/json', merchant: gw.merchant.id, sign: signBody(php, gw.merchant.payment_key) });
    expect(res.statusCode).toBe(200);
    const uni = '{"amount":"15","currency":"USDT","network":"TRON","order_id":"u-1","additional_data":"\\u041f\\u0440\\u0438\\u0432\\u0435\\u0442"}';
    const r2 = await post('/v1/payment', uni, { 'content-type': 'application/json', merchant: gw.merchant.id, sign: signBody(uni, gw.merchant.payment_key) });
    expect(r2.statusCode).toBe(200);
    expect(r2.json().result.additional_data).toBe('Привет');
  });

  it('treats an empty body, {} and [] as no parameters', async () => {
    for (const body of ['', '{}', '[]']) {
      const res = await gw.api('/v1/payment/info', body);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ state: 1, errors: { uuid: ['validation.required_without'], order_id: ['validation.required_without'] } });
    }
  });

  it('answers malformed JSON, a wrong content type, an oversized body and unknown paths with an envelope', async () => {
    const bad = '{"amount":';
    let res = await post('/v1/payment', bad, { 'content-type': 'application/json', merchant: gw.merchant.id, sign: signBody(bad, gw.merchant.payment_key) });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ state: 1, message: 'Malformed JSON' });

    const form = 'amount=10&currency=USD';
    res = await post('/v1/payment', form, { 'content-type': 'application/x-www-form-urlencoded', merchant: gw.merchant.id, sign: signBody(form, gw.merchant.payment_key) });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({ state: 1, message: 'Content-Type must be application/json' });

    const huge = JSON.stringify({ amount: '1', currency: 'USD', order_id: 'big', additional_data: 'x'.repeat(200_000) });
    res = await post('/v1/payment', huge, { 'content-type': 'application/json', merchant: gw.merchant.id, sign: signBody(huge, gw.merchant.payment_key) });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ state: 1, message: 'Request body is too large' });

    res = await gw.app.inject({ method: 'POST', url: '/v1/nothing-here', payload: '{}', headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ state: 1, message: 'Not found' });
    res = await gw.app.inject({ method: 'GET', url: '/v1/payment' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('POST');
    expect(res.json()).toEqual({ state: 1, message: 'Method not allowed' });
  });

  it('never answers with a stack trace: bodies of every JSON type', async () => {
    for (const body of ['null', '"text"', '42', 'true', '[1,2]', '{"amount":{"$gt":1}}', '{"order_id":["a"]}', '\u0000', '{"amount":"1e400","currency":"USD","order_id":"e"}']) {
      const res = await gw.api('/v1/payment', body);
      expect([400, 415, 422]).toContain(res.status);
      expect(res.body.state).toBe(1);
      expect(res.raw).not.toMatch(/at .*\.ts/);
    }
  });

  it('answers You are forbidden to a blocked merchant creating an invoice, but still shows its invoices', async () => {
    const m = await createMerchant(gw.ctx.storage.db, 'Blocked shop');
    const created = await gw.api('/v1/payment', { amount: '10', currency: 'USDT', network: 'TRON', order_id: 'b-1' }, { merchant: m });
    expect(created.status).toBe(200);
    await gw.ctx.storage.db.updateTable('merchants').set({ is_blocked: 1 }).where('id', '=', m.id).execute();
    gw.ctx.merchants.invalidate(m.id);
    const res = await gw.api('/v1/payment', { amount: '10', currency: 'USD', order_id: 'b-2' }, { merchant: m });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ state: 1, message: 'You are forbidden' });
    const info = await gw.api('/v1/payment/info', { order_id: 'b-1' }, { merchant: m });
    expect(info.status).toBe(200);
  });

  it('names every answer with X-Request-Id: the caller\'s when it is a safe token, else a new one', async () => {
    const big = JSON.stringify({ uuid: 'x'.repeat(200_000) });
    const injected = [
      await post('/v1/payment/info', '{"uuid":"6e1c44a3-4b7c-4b2c-9d43-0d0b3c0a2c11"}', { 'content-type': 'application/json', merchant: gw.merchant.id, sign: 'x'.repeat(32), 'x-request-id': 'given-1' }),
      await post('/v1/payment/info', big, { 'content-type': 'application/json', merchant: gw.merchant.id, sign: 'x'.repeat(32), 'x-request-id': 'given-2' }),
      await gw.app.inject({ method: 'GET', url: '/no-such-path', headers: { 'x-request-id': 'given-3' } }),
      await gw.app.inject({ method: 'GET', url: '/v1/payment/info', headers: { 'x-request-id': 'given-4' } }),
      await gw.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'x'.repeat(65) } }),
      await gw.app.inject({ method: 'GET', url: '/healthz' }),
    ];
    expect(injected.map((r) => r.statusCode)).toEqual([401, 413, 404, 405, 200, 200]);
    expect(injected.slice(0, 4).map((r) => r.headers['x-request-id'])).toEqual(['given-1', 'given-2', 'given-3', 'given-4']);
    const fresh = injected.slice(4).map((r) => String(r.headers['x-request-id']));
    for (const id of fresh) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(new Set(fresh).size).toBe(2);
  });

  it('serves health, readiness and metrics', async () => {
    expect((await gw.app.inject('/healthz')).json()).toEqual({ status: 'ok' });
    const ready = (await gw.app.inject('/readyz')).json();
    expect(ready).toMatchObject({ status: 'ready', networks: {}, faulty_nodes: {} });
    // Test mode, every network simulated: each one listed, offered.
    expect(ready.chains).toContainEqual(expect.objectContaining({ network: 'BTC', driver: 'simulated', mode: 'test', custody: 'simulated', offered: true, reason: null }));
    expect(ready.chains.every((c: { offered: boolean }) => c.offered)).toBe(true);
    const m = await gw.app.inject('/metrics');
    expect(m.body).toContain('satchel_http_requests_total');
  });
});
