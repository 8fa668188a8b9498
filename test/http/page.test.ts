// GET /pay/{uuid}: the page's HTML carries the invoice's first payer view, escaped for the HTML
// context, so the page renders without a second round trip.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { jsonForScript, PAGE_CSP } from '../../src/http/routes/page.ts';
import { updateProfile } from '../../src/merchants/profile.ts';

const INDEX = `<!doctype html><html><head><script type="module" src="/assets/index.js"></script></head><body><div id="app"></div><noscript>JS</noscript></body></html>`;
const HOSTILE = '</script><script>alert(1)</script><!-- \u2028\u2029 & </SCRIPT >';

it('jsonForScript leaves nothing that can end the element, and reads back the same', () => {
  const value = { a: HOSTILE, b: ['<', '>', '&'], c: '\u2028' };
  const out = jsonForScript(value);
  expect(out).not.toMatch(/[<>&\u2028\u2029]/);
  expect(JSON.parse(out)).toEqual(value);
});

describe.each(await backends())('the page HTML on $name', (backend) => {
  let gw: TestGateway;
  let dist: string;
  beforeAll(async () => {
    dist = mkdtempSync(join(tmpdir(), 'satchel-dist-'));
    mkdirSync(join(dist, 'page'));
    writeFileSync(join(dist, 'page', 'index.html'), INDEX);
    gw = await startTestGateway(backend, { app: { distDir: dist } });
  });
  afterAll(async () => {
    await gw?.close();
    rmSync(dist, { recursive: true, force: true });
  });

  const page = async (path: string, headers: Record<string, string> = {}) => gw.app.inject({ method: 'GET', url: path, headers });
  // As an HTML parser reads it: a script element's text ends at the first `</script`.
  const embedded = (html: string) => {
    const scripts = [...html.matchAll(/<script\b[^>]*\btype="([^"]+)"[^>]*>/gi)].map((m) => ({ type: m[1] }));
    const text = /<script type="application\/json" id="satchel-initial">([\s\S]*?)<\/script/i.exec(html)![1]!;
    expect(text).not.toMatch(/[<>]/);
    return { scripts, data: JSON.parse(text) };
  };

  it('embeds the payer view with its ETag, hostile text and all, without adding a script', async () => {
    await updateProfile(gw.ctx.storage.db, gw.merchant.id, { display_name: HOSTILE });
    const inv = (await gw.api('/v1/payment', { amount: '10', currency: 'USDT', network: 'TRON', order_id: 'html-1', url_return: `https://shop.example/?q=</script><b>` })).body.result;
    const res = await page(`/pay/${inv.uuid}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-security-policy']).toBe(PAGE_CSP);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).not.toContain('<script>alert(1)');
    const { scripts, data } = embedded(res.body);
    // The module script and the data block: nothing the browser would run was added.
    expect(scripts.map((s) => s.type)).toEqual(['module', 'application/json']);
    const api = await page(`/api/pay/${inv.uuid}`);
    const { server_time: _a, ...view } = data.result;
    const { server_time: _b, ...fromApi } = api.json().result;
    expect(view).toEqual(fromApi);
    expect(data.result.merchant.display_name).toBe(HOSTILE);
    expect(data.result.url_return).toBe('https://shop.example/?q=</script><b>');
    expect(data.etag).toBe(api.headers.etag);
  });

  it('says 404 for an unknown invoice, and compresses when asked', async () => {
    const res = await page('/pay/00000000-0000-4000-8000-000000000000', { 'accept-encoding': 'gzip' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(embedded(gunzipSync(res.rawPayload).toString('utf8')).data).toEqual({ status: 404 });
    expect(embedded((await page('/pay/not-a-uuid')).body).data).toEqual({ status: 404 });
  });
});
