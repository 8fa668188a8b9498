// The demo shop's server: a product page, and two JSON routes its browser code calls.
// POST {base}/api/checkout creates an invoice with the merchant's key (server-side only);
// GET {base}/api/orders/{order_id} asks the gateway whether an order is paid, because an event in
// the browser is only a hint: a shop ships when its server (or a webhook) says so.
// The same routes run inside the gateway (/demo) and standalone on another origin (standalone.ts).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { MerchantClient } from './merchant-client.ts';

export interface Product {
  id: string;
  name: string;
  blurb: string;
  /** USD, as the decimal string the merchant API takes. */
  price: string;
}

export const PRODUCTS: readonly Product[] = [
  { id: 'beans', name: 'Coffee beans, 1 kg', blurb: 'Single origin, roasted this week.', price: '24.00' },
  { id: 'mug', name: 'Enamel mug', blurb: 'Keeps the coffee warm on the trail.', price: '12.50' },
];

/** Priced in USD, paid in USDT on TRON: the invoice gets its address at once (spec: create invoice). */
export const PAY_WITH = { currency: 'USD', to_currency: 'USDT', network: 'TRON' } as const;

export interface ShopOptions {
  /** Where the shop lives, e.g. `/demo`. */
  base: string;
  /** The gateway's public URL: widget.js and the invoice pages come from there. */
  gatewayUrl: string;
  /** The shop's own public URL (return links on the payment page). Configured, never taken from a
   * request's Host header, which any client can set. */
  shopUrl(): string;
  /** The merchant API client, or why there is none (the page then explains how to set it up). */
  client(): Promise<MerchantClient | { unavailable: string }>;
}

const PUBLIC = new URL('./public/', import.meta.url);
const read = (name: string) => readFileSync(new URL(name, PUBLIC), 'utf8');

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function readJson(body: unknown): Record<string, unknown> {
  // The gateway keeps bodies as raw bytes (for signatures); a standalone Fastify parses them.
  if (Buffer.isBuffer(body) || typeof body === 'string') {
    try {
      const parsed: unknown = JSON.parse(body.toString());
      return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  }
  return body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
}

export async function shopRoutes(app: FastifyInstance, options: ShopOptions): Promise<void> {
  const { base } = options;
  const gateway = options.gatewayUrl.replace(/\/+$/, '');
  const gatewayOrigin = new URL(gateway).origin;
  const template = read('index.html');
  const script = read('shop.js');
  const styles = read('shop.css');
  // The CSP a merchant needs for the widget: its script and its frames from the gateway, nothing inline.
  const csp = [
    "default-src 'self'",
    `script-src 'self' ${gatewayOrigin}`,
    `frame-src ${gatewayOrigin}`,
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');

  const products = PRODUCTS.map(
    (p) => `
        <li class="product">
          <div class="art art-${escapeHtml(p.id)}" aria-hidden="true"></div>
          <h3>${escapeHtml(p.name)}</h3>
          <p>${escapeHtml(p.blurb)}</p>
          <p class="price">$${escapeHtml(p.price)}</p>
          <button type="button" class="buy" data-product="${escapeHtml(p.id)}">Buy with crypto</button>
        </li>`,
  ).join('');

  app.get(base, async (_req, reply) => {
    const client = await options.client();
    const notice =
      'unavailable' in client ? `<p class="notice" role="alert">${escapeHtml(client.unavailable)}</p>` : '';
    const html = template
      .replaceAll('{{gateway}}', escapeHtml(gateway))
      .replaceAll('{{base}}', escapeHtml(base))
      .replace('{{notice}}', notice)
      .replace('{{products}}', products);
    return reply
      .header('content-security-policy', csp)
      .header('referrer-policy', 'strict-origin-when-cross-origin')
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(html);
  });
  app.get(`${base}/shop.js`, async (_req, reply) => reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(script));
  app.get(`${base}/shop.css`, async (_req, reply) => reply.type('text/css; charset=utf-8').header('cache-control', 'no-cache').send(styles));

  const fail = (reply: FastifyReply, code: number, message: string) => reply.code(code).send({ message });

  app.post(`${base}/api/checkout`, async (req, reply) => {
    const product = PRODUCTS.find((p) => p.id === readJson(req.body).product);
    if (!product) return fail(reply, 422, 'Unknown product');
    const client = await options.client();
    if ('unavailable' in client) return fail(reply, 503, client.unavailable);
    const shopUrl = options.shopUrl();
    const created = await client.call('/v1/payment', {
      amount: product.price,
      ...PAY_WITH,
      order_id: `demo-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`,
      lifetime: 1800,
      url_return: shopUrl,
      url_success: shopUrl,
    });
    if (created.state !== 0) {
      req.log.warn({ created }, 'demo shop: the gateway refused the invoice');
      return fail(reply, 502, created.message ?? 'The gateway refused the invoice');
    }
    // The browser gets what it needs to show the payment, nothing else.
    const { uuid, order_id, url, amount, currency } = created.result as Record<string, string>;
    return { uuid, order_id, url, amount, currency, product: product.name };
  });

  app.get<{ Params: { order: string } }>(`${base}/api/orders/:order`, async (req, reply) => {
    const orderId = req.params.order;
    if (!/^demo-[\w-]{1,100}$/.test(orderId)) return fail(reply, 404, 'Unknown order');
    const client = await options.client();
    if ('unavailable' in client) return fail(reply, 503, client.unavailable);
    const info = await client.call('/v1/payment/info', { order_id: orderId });
    if (info.state !== 0) return fail(reply, 404, 'Unknown order');
    const status = String(info.result.payment_status ?? info.result.status);
    return { order_id: orderId, status, paid: status === 'paid' || status === 'paid_over', is_final: Boolean(info.result.is_final) };
  });
}
