// The payer API's rate limit, CORS and security headers come from the maintained Fastify plugins:
// the limit counts the route the router matched (no percent-encoding bypass), payers behind a
// trusted proxy get their own buckets, and every answer is an envelope.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const UUID = '00000000-0000-4000-8000-000000000000';
const [sqlite] = await backends();

describe('payer API limits and headers', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(sqlite!, { env: { SATCHEL_PAYER_RATE_LIMIT: '3' } });
  });
  afterAll(async () => gw?.close());

  it('counts every spelling of a path against the route it reaches, and answers 429 with an envelope', async () => {
    const ip = '203.0.113.7';
    const paths = [`/api/pay/${UUID}`, `/api/p%61y/${UUID}`, `/%61pi/pay/${UUID}`, `/api/pay/${UUID}?x=1`, `/api/p%61y/wallet/${UUID}`];
    const codes: number[] = [];
    for (const url of paths) codes.push((await gw.app.inject({ method: 'GET', url, remoteAddress: ip })).statusCode);
    expect(codes).toEqual([404, 404, 404, 429, 429]);
    const res = await gw.app.inject({ method: 'GET', url: `/api/p%61y/${UUID}`, remoteAddress: ip });
    expect(res.statusCode).toBe(429);
    expect(res.json()).toEqual({ state: 1, message: 'Too many requests' });
    // Another client still gets through.
    expect((await gw.app.inject({ method: 'GET', url: `/api/pay/${UUID}`, remoteAddress: '203.0.113.8' })).statusCode).toBe(404);
  });

  it('without a trusted proxy, X-Forwarded-For is ignored (a client cannot pick its own bucket)', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 4; i++) {
      codes.push((await gw.app.inject({ method: 'GET', url: `/api/pay/${UUID}`, remoteAddress: '203.0.113.9', headers: { 'x-forwarded-for': `198.51.100.${i}` } })).statusCode);
    }
    expect(codes).toEqual([404, 404, 404, 429]);
  });

  it('answers CORS preflights and exposes the ETag to scripts on other origins', async () => {
    const pre = await gw.app.inject({
      method: 'OPTIONS',
      url: `/api/pay/${UUID}/choose`,
      remoteAddress: '203.0.113.10',
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(pre.statusCode).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('*');
    expect(String(pre.headers['access-control-allow-methods'])).toContain('POST');
    expect(String(pre.headers['access-control-allow-headers']).toLowerCase()).toContain('content-type');
    const get = await gw.app.inject({ method: 'GET', url: `/api/pay/${UUID}`, remoteAddress: '203.0.113.10', headers: { origin: 'https://shop.example' } });
    expect(get.headers['access-control-allow-origin']).toBe('*');
    expect(get.headers['access-control-expose-headers']).toBe('etag');
    // The merchant API is not opened to browsers.
    const api = await gw.app.inject({ method: 'POST', url: '/v1/payment/info', headers: { origin: 'https://shop.example' }, payload: '{}' });
    expect(api.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('sends the security headers on API answers; the payment page keeps its own policy and can be framed', async () => {
    const api = await gw.app.inject({ method: 'POST', url: '/v1/payment/info', payload: '{}' });
    expect(api.headers['x-content-type-options']).toBe('nosniff');
    expect(api.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
    expect(api.headers['x-frame-options']).toBeUndefined();
    // The whole set, as Helmet's defaults gave it, on data answers and on errors alike.
    const expected = {
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-resource-policy': 'same-origin',
      'origin-agent-cluster': '?1',
      'referrer-policy': 'no-referrer',
      'strict-transport-security': 'max-age=31536000; includeSubDomains',
      'x-dns-prefetch-control': 'off',
      'x-download-options': 'noopen',
      'x-permitted-cross-domain-policies': 'none',
      'x-xss-protection': '0',
    };
    for (const res of [api, await gw.app.inject({ method: 'GET', url: '/no-such-path' }), await gw.app.inject({ method: 'GET', url: '/healthz' })]) {
      expect(res.headers).toMatchObject({ ...expected, 'x-content-type-options': 'nosniff' });
    }
    const page = await gw.app.inject({ method: 'GET', url: `/pay/${UUID}` });
    if (page.statusCode === 200) {
      expect(page.headers['content-security-policy']).toContain('frame-ancestors *');
      expect(page.headers['x-frame-options']).toBeUndefined();
    }
  });
});

describe('behind a trusted reverse proxy', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(sqlite!, { env: { SATCHEL_PAYER_RATE_LIMIT: '2', SATCHEL_TRUST_PROXY: '127.0.0.1' } });
  });
  afterAll(async () => gw?.close());

  it('payers behind the proxy each get their own bucket; a client that is not the proxy cannot spoof one', async () => {
    const via = (forwarded: string, remoteAddress = '127.0.0.1') =>
      gw.app.inject({ method: 'GET', url: `/api/pay/${UUID}`, remoteAddress, headers: { 'x-forwarded-for': forwarded } }).then((r) => r.statusCode);
    expect([await via('198.51.100.1'), await via('198.51.100.1'), await via('198.51.100.1')]).toEqual([404, 404, 429]);
    expect(await via('198.51.100.2')).toBe(404);
    expect([await via('198.51.100.3', '203.0.113.50'), await via('198.51.100.4', '203.0.113.50'), await via('198.51.100.5', '203.0.113.50')]).toEqual([404, 404, 429]);
  });
});

describe('the payment page /pay/{uuid} counts on the payer API\'s bucket', () => {
  let gw: TestGateway;
  let dist: string;
  beforeAll(async () => {
    // A stand-in for the built page: the route embeds the payer view after the mount point.
    dist = mkdtempSync(join(tmpdir(), 'satchel-dist-'));
    mkdirSync(join(dist, 'page'));
    writeFileSync(join(dist, 'page', 'index.html'), '<!doctype html><html><body><div id="app"></div></body></html>');
    gw = await startTestGateway(sqlite!, { env: { SATCHEL_PAYER_RATE_LIMIT: '3' }, app: { distDir: dist } });
  });
  afterAll(async () => {
    await gw?.close();
    rmSync(dist, { recursive: true, force: true });
  });

  it('every spelling of the page and the payer API share one per-client limit', async () => {
    const get = (url: string, remoteAddress: string) => gw.app.inject({ method: 'GET', url, remoteAddress });
    const spellings = [`/pay/${UUID}`, `/pay/${UUID}?lang=de`, `/pay/${UUID.toUpperCase()}`, `/p%61y/${UUID}`, `/pay/${UUID}?x=1`];
    // Each spelling reaches the page (the view is embedded) while under the limit...
    for (const [i, url] of spellings.entries()) {
      const first = await get(url, `198.51.100.${100 + i}`);
      expect(first.statusCode).toBe(200);
      expect(first.body).toContain('<script type="application/json"');
    }
    // ...and once a client has used its bucket on the page and the API, every spelling is refused.
    const ip = '198.51.100.200';
    expect((await get(`/pay/${UUID}`, ip)).statusCode).toBe(200);
    expect((await get(`/api/pay/${UUID}`, ip)).statusCode).toBe(404);
    expect((await get(`/pay/${UUID}?lang=fr`, ip)).statusCode).toBe(200);
    for (const url of [...spellings, `/api/pay/${UUID}`]) {
      const res = await get(url, ip);
      expect(res.statusCode, url).toBe(429);
      expect(res.json()).toEqual({ state: 1, message: 'Too many requests' });
    }
    // Another client is not affected.
    expect((await get(`/pay/${UUID}`, '198.51.100.201')).statusCode).toBe(200);
  });
});
