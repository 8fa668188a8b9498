// The recurrence endpoints as pyCryptomusAPI (Badiboy/pyCryptomusAPI, the Python client of the
// Cryptomus API) puts them on the wire, against a gateway listening on a real port, on both
// databases. The client cannot be installed here, so its request routine is reproduced byte for
// byte: the body is Python's `json.dumps(data)` with its default separators (", " and ": ") and
// ASCII escapes, or an empty body when there are no parameters; `sign` is the MD5 hex of the
// body's base64 followed by the API key; the headers are those `requests` sends with the client's
// `merchant`, `sign` and `Content-Type`; the URL is the client's `api_url` (".../v1/") followed by
// the method. The client treats an answer without a truthy `result` as an error, and reads the
// history's `paginate` with `int(count)` and `int(perPage)` and an invoice's amounts with `float()`.
//
// The client's release in its repository (0.1.1) has no recurrence methods of its own (its
// `order_id` notes mention recurrence payments only); the parameters here are built the way its
// other methods build theirs (required ones first, optional ones only when given, `uuid` before
// `order_id`, the history's `cursor` in the body) with the names of the Cryptomus recurrence API.
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { gunzipSync, inflateSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

type Py = string | number | boolean | null | Py[] | { [k: string]: Py };

/** Python's json.dumps(value) with its defaults: ", " and ": " separators, non-ASCII as \uXXXX. */
function pyJsonDumps(v: Py): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) throw new Error('only integers here: a Python float prints differently');
    return String(v);
  }
  if (typeof v === 'string') return JSON.stringify(v).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (Array.isArray(v)) return `[${v.map(pyJsonDumps).join(', ')}]`;
  return `{${Object.entries(v).map(([k, x]) => `${pyJsonDumps(k)}: ${pyJsonDumps(x)}`).join(', ')}}`;
}

interface Wire {
  status: number;
  json: Record<string, any>;
}

describe.each(await backends())('recurrences as pyCryptomusAPI sends them, on $name', (backend) => {
  let gw: TestGateway;
  let apiUrl: string;
  beforeAll(async () => {
    gw = await startTestGateway(backend);
    await gw.app.listen({ port: 0, host: '127.0.0.1' });
    apiUrl = `http://127.0.0.1:${(gw.app.server.address() as AddressInfo).port}/v1/`;
  });
  afterAll(async () => gw?.close());

  /** The client's request routine, for the payment key (its mode 1). */
  const call = (method: string, params: Record<string, Py> = {}): Promise<Wire & { body: string }> => {
    const body = Object.keys(params).length ? pyJsonDumps(params) : '';
    const sign = createHash('md5').update(Buffer.from(body, 'ascii').toString('base64') + gw.merchant.payment_key).digest('hex');
    const url = new URL(apiUrl + method);
    // `requests`' default headers, then the client's, then the length `requests` adds (0 for no body).
    const headers: Array<[string, string]> = [
      ['User-Agent', 'python-requests/2.32.3'],
      ['Accept-Encoding', 'gzip, deflate'],
      ['Accept', '*/*'],
      ['Connection', 'keep-alive'],
      ['merchant', gw.merchant.id],
      ['sign', sign],
      ['Content-Type', 'application/json'],
      ['Content-Length', String(Buffer.byteLength(body))],
    ];
    return new Promise((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: Object.fromEntries(headers) }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          try {
            // `requests` asked for gzip or deflate and undoes either, as here.
            const raw = Buffer.concat(chunks);
            const enc = res.headers['content-encoding'];
            const text = (enc === 'gzip' ? gunzipSync(raw) : enc === 'deflate' ? inflateSync(raw) : raw).toString('utf8');
            resolve({ status: res.statusCode ?? 0, json: JSON.parse(text), body });
          } catch (e) {
            reject(e);
          }
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  };
  /** What the client accepts: a JSON answer whose `result` is truthy (anything else raises). */
  const result = (w: Wire): any => {
    expect(w.json.result, JSON.stringify(w.json)).toBeTruthy();
    return w.json.result;
  };
  const RECURRENCE_FIELDS = ['uuid', 'name', 'order_id', 'amount', 'currency', 'payer_currency', 'payer_amount_usd', 'payer_amount', 'url_callback', 'discount_days', 'discount_amount', 'end_of_discount', 'period', 'status', 'url', 'last_pay_off', 'additional_data'];

  it('create: the body json.dumps makes, signed over its bytes; the Recurrence object back', async () => {
    const params = { amount: '15', currency: 'USDT', name: 'Wire plan', period: 'monthly', order_id: 'py-wire-1', url_callback: 'https://shop.example/cb', discount_days: 7, discount_amount: '5', additional_data: 'tier: gold' };
    const w = await call('recurrence/create', params);
    expect(w.body).toBe('{"amount": "15", "currency": "USDT", "name": "Wire plan", "period": "monthly", "order_id": "py-wire-1", "url_callback": "https://shop.example/cb", "discount_days": 7, "discount_amount": "5", "additional_data": "tier: gold"}');
    expect(w.status).toBe(200);
    const rec = result(w);
    expect(Object.keys(rec)).toEqual(RECURRENCE_FIELDS);
    expect(rec).toMatchObject({ name: 'Wire plan', order_id: 'py-wire-1', amount: '15.00', currency: 'USDT', period: 'monthly', status: 'wait_accept', discount_days: 7, discount_amount: '5.00' });
    expect(rec.url).toBe(`https://pay.example.test/pay/recurrence/${rec.uuid}`);
    // The same order_id again answers the same recurrence (the client creates it "once").
    expect(result(await call('recurrence/create', params)).uuid).toBe(rec.uuid);
  });

  it('info by uuid and by order_id; cancel; a second cancel raises in the client', async () => {
    const rec = result(await call('recurrence/create', { amount: '10', currency: 'USDT', name: 'Wire two', period: 'weekly', order_id: 'py-wire-2' }));
    expect(result(await call('recurrence/info', { uuid: rec.uuid }))).toEqual(rec);
    expect(result(await call('recurrence/info', { order_id: 'py-wire-2' })).uuid).toBe(rec.uuid);
    const cancelled = result(await call('recurrence/cancel', { uuid: rec.uuid }));
    expect(cancelled).toMatchObject({ uuid: rec.uuid, status: 'cancel_by_merchant' });
    const again = await call('recurrence/cancel', { order_id: 'py-wire-2' });
    // No truthy result: the client raises with the message.
    expect(again.json.result).toBeUndefined();
    expect(again.json).toEqual({ state: 1, message: 'The recurrence is already cancelled' });
  });

  it('list: an empty body for the first page, the cursor in the body for the next; paginate as the client reads it', async () => {
    for (let k = 0; k < 16; k++) result(await call('recurrence/create', { amount: '10', currency: 'USDT', name: `Many ${k}`, period: 'weekly' }));
    const first = await call('recurrence/list');
    expect(first.body).toBe('');
    const page = result(first);
    expect(page.items.length).toBe(15);
    for (const item of page.items) expect(Object.keys(item)).toEqual(RECURRENCE_FIELDS);
    expect(Object.keys(page.paginate).sort()).toEqual(['count', 'hasPages', 'nextCursor', 'perPage', 'previousCursor']);
    expect(Number.isInteger(Number(page.paginate.count))).toBe(true);
    expect(Number(page.paginate.perPage)).toBe(15);
    expect(page.paginate.hasPages).toBe(true);
    const next = result(await call('recurrence/list', { cursor: page.paginate.nextCursor }));
    const seen = new Set(page.items.map((i: { uuid: string }) => i.uuid));
    expect(next.items.length).toBeGreaterThan(0);
    for (const i of next.items) expect(seen.has(i.uuid)).toBe(false);
  });

  it('a renewal is an invoice the client reads with payment/info: its amounts parse as floats, recurrence_uuid names it', async () => {
    const rec = result(await call('recurrence/create', { amount: '12', currency: 'USDT', name: 'Wire renew', period: 'weekly', order_id: 'py-wire-3' }));
    const s = await gw.app.inject({ method: 'POST', url: `/api/pay/recurrence/${rec.uuid}/subscribe`, payload: { currency: 'USDT', network: 'TRON' } });
    expect((await gw.app.inject({ method: 'POST', url: '/simulator/pay', payload: { invoice: s.json().result.invoice.uuid } })).statusCode).toBe(200);
    await gw.ctx.features.jobs.recurrences(gw.ctx, new AbortController().signal);
    const renew = await gw.app.inject({ method: 'POST', url: '/simulator/recurrence/renew', payload: { recurrence: rec.uuid } });
    expect(renew.statusCode).toBe(200);
    expect(result(await call('recurrence/info', { order_id: 'py-wire-3' })).status).toBe('wait_payment');
    const inv = result(await call('payment/info', { uuid: renew.json().result.invoice }));
    for (const f of ['amount', 'payment_amount', 'payer_amount', 'discount_percent', 'discount', 'merchant_amount']) {
      if (inv[f] !== null && inv[f] !== undefined) expect(Number.isFinite(Number.parseFloat(inv[f])), f).toBe(true);
    }
    expect(inv).toMatchObject({ recurrence_uuid: rec.uuid, amount: '12.00' });
  });

  it('a body signed as another serialisation would be is refused: the bytes are what is signed', async () => {
    const compact = JSON.stringify({ uuid: '00000000-0000-4000-8000-000000000000' });
    expect(pyJsonDumps({ uuid: '00000000-0000-4000-8000-000000000000' })).not.toBe(compact);
    expect(pyJsonDumps({ a: 'é', b: [1, true, null] })).toBe('{"a": "\\u00e9", "b": [1, true, null]}');
    const sign = createHash('md5').update(Buffer.from(compact).toString('base64') + gw.merchant.payment_key).digest('hex');
    const r = await gw.app.inject({
      method: 'POST',
      url: '/v1/recurrence/info',
      headers: { merchant: gw.merchant.id, sign, 'content-type': 'application/json' },
      payload: pyJsonDumps({ uuid: '00000000-0000-4000-8000-000000000000' }),
    });
    expect(r.statusCode).toBe(401);
  });
});
