// The demo shop at /demo on the gateway: its page, and its server-side checkout through the signed
// merchant API (the key never reaches the browser).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { demoLink, demoRoutes } from '../../src/demo/index.ts';
import { buildApp, type AppOptions } from '../../src/http/app.ts';
import { createMerchant, setMerchantBlocked } from '../../src/merchants/store.ts';

// /demo reads SATCHEL_DEMO_MERCHANT when it registers. The tests set it around building the app
// and register /demo themselves, which works whether or not src/http/app.ts also registers it.
const DEMO: AppOptions = { plugins: [demoRoutes, demoRoutes] }; // twice: the second does nothing

async function withDemoMerchant<T>(value: string | undefined, build: () => Promise<T>): Promise<T> {
  const before = process.env.SATCHEL_DEMO_MERCHANT;
  if (value === undefined) delete process.env.SATCHEL_DEMO_MERCHANT;
  else process.env.SATCHEL_DEMO_MERCHANT = value;
  try {
    return await build();
  } finally {
    if (before === undefined) delete process.env.SATCHEL_DEMO_MERCHANT;
    else process.env.SATCHEL_DEMO_MERCHANT = before;
  }
}

describe.each(await backends())('/demo on $name', (backend) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await withDemoMerchant(undefined, () => startTestGateway(backend, { app: DEMO }));
  });
  afterAll(async () => gw?.close());

  const checkout = (product: unknown) =>
    gw.app.inject({ method: 'POST', url: '/demo/api/checkout', headers: { 'content-type': 'application/json', host: 'evil.example' }, payload: JSON.stringify({ product }) });

  test('without a "Demo shop" merchant the page says how to set one up, and checkout is refused', async () => {
    const page = await gw.app.inject({ url: '/demo' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('No demo merchant');
    expect((await checkout('beans')).statusCode).toBe(503);
    expect(await demoLink(gw.ctx, {})).toBeNull();
  });

  test('the page loads the widget from the gateway under a strict CSP and holds no key', async () => {
    const demo = await createMerchant(gw.ctx.storage.db, 'Demo shop');
    const page = await gw.app.inject({ url: '/demo' });
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('<script src="https://pay.example.test/widget.js" async></script>');
    expect(page.body).not.toContain('No demo merchant');
    expect(page.body).not.toContain(demo.payment_key);
    expect(page.body).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/); // no inline script
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self' https://pay.example.test");
    expect(csp).toContain('frame-src https://pay.example.test');
    expect(csp).not.toContain('unsafe-inline');
    expect((await gw.app.inject({ url: '/demo/shop.js' })).headers['content-type']).toContain('javascript');
    expect(await demoLink(gw.ctx, {})).toBe('Demo shop (test mode, pays with the widget): https://pay.example.test/demo');
  });

  test('checkout creates a test-mode invoice for the demo merchant; the browser gets only what it shows', async () => {
    const r = await checkout('beans');
    expect(r.statusCode).toBe(200);
    const order = r.json();
    expect(Object.keys(order).sort()).toEqual(['amount', 'currency', 'order_id', 'product', 'url', 'uuid']);
    expect(order).toMatchObject({ amount: '24.00', currency: 'USD', url: `https://pay.example.test/pay/${order.uuid}` });
    expect(order.order_id).toMatch(/^demo-/);

    const payer = (await gw.app.inject({ url: `/api/pay/${order.uuid}` })).json().result;
    // Return links come from the configured public URL, never from the request's Host header.
    expect(payer).toMatchObject({ test_mode: true, payer_currency: 'USDT', network: 'TRON', url_return: 'https://pay.example.test/demo' });
    expect(payer.address).toBeTruthy();

    const status = await gw.app.inject({ url: `/demo/api/orders/${order.order_id}` });
    expect(status.json()).toEqual({ order_id: order.order_id, status: 'process', paid: false, is_final: false });
    await gw.app.inject({ method: 'POST', url: '/simulator/pay', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ invoice: order.uuid }) });
    const paid = await gw.app.inject({ url: `/demo/api/orders/${order.order_id}` });
    expect(paid.json()).toMatchObject({ status: 'paid', paid: true, is_final: true });
  });

  test('unknown products and orders that are not the shop\'s are refused', async () => {
    expect((await checkout('yacht')).statusCode).toBe(422);
    expect((await checkout({ toString: 'beans' })).statusCode).toBe(422);
    expect((await gw.app.inject({ url: '/demo/api/orders/ord-1' })).statusCode).toBe(404);
    expect((await gw.app.inject({ url: '/demo/api/orders/demo-nope' })).statusCode).toBe(404);
  });

  test('a blocked demo merchant turns checkout off', async () => {
    const other = await withDemoMerchant(undefined, () => startTestGateway(backend, { app: DEMO }));
    try {
      const demo = await createMerchant(other.ctx.storage.db, 'Demo shop');
      await setMerchantBlocked(other.ctx.storage.db, demo.id, true);
      const r = await other.app.inject({ method: 'POST', url: '/demo/api/checkout', headers: { 'content-type': 'application/json' }, payload: '{"product":"mug"}' });
      expect(r.statusCode).toBe(503);
    } finally {
      await other.close();
    }
  });
});

describe.each(await backends())('/demo settings on $name', (backend) => {
  test('SATCHEL_DEMO_MERCHANT picks the merchant by id', async () => {
    const gw = await startTestGateway(backend);
    const app = await withDemoMerchant(gw.merchant.id, () => buildApp(gw.ctx, { logger: false, ...DEMO }));
    try {
      const r = await app.inject({ method: 'POST', url: '/demo/api/checkout', headers: { 'content-type': 'application/json' }, payload: '{"product":"mug"}' });
      expect(r.statusCode).toBe(200);
      const info = await gw.api('/v1/payment/info', { order_id: r.json().order_id });
      expect(info.body.result.amount).toBe('12.50'); // created for gw.merchant, named "Test shop"
    } finally {
      await app.close();
      await gw.close();
    }
  });

  test('SATCHEL_DEMO_MERCHANT=off: no /demo; a real network: no test invoices', async () => {
    const off = await withDemoMerchant('off', () => startTestGateway(backend, { app: DEMO }));
    try {
      await createMerchant(off.ctx.storage.db, 'Demo shop');
      expect((await off.app.inject({ url: '/demo' })).statusCode).toBe(404);
      expect(await demoLink(off.ctx, { SATCHEL_DEMO_MERCHANT: 'off' })).toBeNull();
    } finally {
      await off.close();
    }
    const real = await withDemoMerchant(undefined, () =>
      startTestGateway(backend, { app: DEMO, env: { SATCHEL_NETWORKS: JSON.stringify({ TRON: { driver: 'tron', custody: 'hot', rpc_url: 'http://127.0.0.1:9' } }) } }),
    );
    try {
      await createMerchant(real.ctx.storage.db, 'Demo shop');
      expect((await real.app.inject({ url: '/demo' })).body).toContain('not a simulated network this gateway offers');
      expect((await real.app.inject({ method: 'POST', url: '/demo/api/checkout', payload: '{"product":"mug"}', headers: { 'content-type': 'application/json' } })).statusCode).toBe(503);
      expect(await demoLink(real.ctx, {})).toBeNull();
    } finally {
      await real.close();
    }
  });
});
