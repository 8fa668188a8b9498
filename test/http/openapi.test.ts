// GET /openapi.json: every merchant route the server registers is described, and every example
// (and what the gateway really answers) is valid against its schema.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { MERCHANT_OPERATIONS } from '../../src/contracts/merchant-api/index.ts';

type Json = Record<string, any>;

/** Every route of the server as "METHOD /path/{param}", read from Fastify's route tree. */
function registeredRoutes(app: FastifyInstance): string[] {
  const out: string[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^([│ ]*)[├└]── (\S+)(?: \(([^)]+)\))?$/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    stack.length = depth;
    const path = (stack[depth - 1] ?? '') + m[2]!;
    stack[depth] = path;
    for (const method of (m[3] ?? '').split(', ').filter((x) => x && x !== 'HEAD')) out.push(`${method} ${path.replace(/:(\w+)/g, '{$1}')}`);
  }
  return out;
}

function validator() {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  return ajv;
}

describe.each(await backends())('OpenAPI description on $name', (backend) => {
  let gw: TestGateway;
  let doc: Json;
  beforeAll(async () => {
    gw = await startTestGateway(backend);
    const res = await gw.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    doc = res.json();
  });
  afterAll(async () => gw?.close());

  it('is OpenAPI 3.1 with the signing scheme (merchant + sign headers) on every signed operation', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.securitySchemes.merchant).toMatchObject({ type: 'apiKey', in: 'header', name: 'merchant' });
    expect(doc.components.securitySchemes.sign).toMatchObject({ type: 'apiKey', in: 'header', name: 'sign' });
    for (const op of MERCHANT_OPERATIONS) {
      const d = doc.paths[op.path].post;
      expect(d.security).toEqual([{ merchant: [], sign: [] }]);
      expect(d['x-signing-key']).toBe(op.signedWith);
    }
    expect(doc.paths['/v1/payment/refund'].post['x-signing-key']).toBe('refund'); // the payout key, or either by the merchant's setting
  });

  it('describes every merchant route the server registers, and nothing it does not', () => {
    const routes = registeredRoutes(gw.app).filter((r) => / \/v\d+\//.test(r));
    expect(routes.length).toBeGreaterThanOrEqual(MERCHANT_OPERATIONS.length + 1);
    const described = Object.entries(doc.paths as Json).flatMap(([path, item]) => Object.keys(item as Json).map((m) => `${m.toUpperCase()} ${path}`));
    expect([...described].sort()).toEqual([...routes].sort());
  });

  it('has every example valid against its schema', () => {
    const ajv = validator();
    let checked = 0;
    for (const [path, item] of Object.entries(doc.paths as Json)) {
      for (const op of Object.values(item as Json) as Json[]) {
        const body = op.requestBody?.content['application/json'];
        if (body) {
          const ok = ajv.validate(body.schema, body.example);
          expect({ path, errors: ok ? null : ajv.errors }).toEqual({ path, errors: null });
          checked++;
        }
        const answer = op.responses['200'].content['application/json'];
        const ok = ajv.validate(answer.schema, answer.example);
        expect({ path, errors: ok ? null : ajv.errors }).toEqual({ path, errors: null });
        checked++;
      }
    }
    expect(checked).toBe(MERCHANT_OPERATIONS.length * 2 + 1);
  });

  it('refuses what breaks a schema (the check can fail)', () => {
    const ajv = validator();
    const create = doc.paths['/v1/payment'].post;
    const params = create.requestBody.content['application/json'].schema;
    expect(ajv.validate(params, { amount: '10', currency: 'USDT', order_id: 'a-1' })).toBe(true);
    expect(ajv.validate(params, { currency: 'USDT', order_id: 'a-1' })).toBe(false);
    expect(ajv.validate(params, { amount: 10, currency: 'USDT', order_id: 'a-1' })).toBe(false);
    expect(ajv.validate(params, { amount: '1'.repeat(41), currency: 'USDT', order_id: 'a-1' })).toBe(false);
    expect(ajv.validate(params, { amount: '10', currency: 'USDT', order_id: 'a 1' })).toBe(false);
    expect(ajv.validate(params, { amount: '10', currency: 'USDT', order_id: 'a-1', lifetime: 299 })).toBe(false);
    expect(ajv.validate(params, { amount: '10', currency: 'USDT', order_id: 'a-1', course_source: 'binancep2p' })).toBe(true);
    expect(ajv.validate(params, { amount: '10', currency: 'USDT', order_id: 'a-1', course_source: 'Coinbase' })).toBe(false);
    expect(ajv.validate(params, { amount: '10', currency: 'USDT', order_id: 'a-1', currencies: [{ network: 'TRON' }] })).toBe(false);
    const info = doc.paths['/v1/payment/info'].post.requestBody.content['application/json'].schema;
    expect(ajv.validate(info, {})).toBe(false);
    const result = create.responses['200'].content['application/json'];
    expect(ajv.validate(result.schema, { state: 0, result: { ...result.example.result, amount: 15 } })).toBe(false);
    expect(ajv.validate(result.schema, { state: 0, result: { ...result.example.result, status: 'done' } })).toBe(false);
  });

  it('describes what the gateway really answers', async () => {
    const ajv = validator();
    const answers = async (path: string, body: unknown, key: 'payment' | 'payout' = 'payment') => {
      const res = await gw.api(path, body, { key });
      expect(res.status).toBe(200);
      const schema = doc.paths[path].post.responses['200'].content['application/json'].schema;
      const ok = ajv.validate(schema, res.body);
      expect({ path, errors: ok ? null : ajv.errors }).toEqual({ path, errors: null });
      return res.body.result;
    };
    const invoice = await answers('/v1/payment', { amount: '15', currency: 'USDT', network: 'TRON', order_id: 'openapi-1' });
    await answers('/v1/payment', { amount: '20', currency: 'USD', order_id: 'openapi-2' });
    await answers('/v1/payment/info', { uuid: invoice.uuid });
    await answers('/v1/payment/list', {});
    await answers('/v1/payment/qr', { merchant_payment_uuid: invoice.uuid });
    const wallet = await answers('/v1/wallet', { currency: 'USDT', network: 'TRON', order_id: 'openapi-w1' });
    await answers('/v1/wallet/qr', { wallet_address_uuid: wallet.uuid });
    await answers('/v1/wallet/block-address', { uuid: wallet.uuid });
    await answers('/v1/balance', {});
    await answers('/v1/payment/services', {});
    await answers('/v1/payout/services', {}, 'payout');
    await answers('/v1/payout/list', {}, 'payout');
    const rates = await gw.app.inject({ method: 'GET', url: '/v1/exchange-rate/USDT/list' });
    const schema = doc.paths['/v1/exchange-rate/{currency}/list'].get.responses['200'].content['application/json'].schema;
    expect(ajv.validate(schema, rates.json())).toBe(true);
  });
});
