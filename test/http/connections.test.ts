// Slow and hoarding clients: a body trickled a byte at a time is cut off at the configured
// deadline (408 envelope, socket closed), one address cannot open more than its share of
// connections, and ordinary requests are unaffected. Real sockets against a listening server.
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { signBody } from '../../src/webhooks/signature.ts';

const [sqlite] = await backends();
const DEADLINE_MS = 800;
/** The server sweeps for late requests every DEADLINE_MS / 5; allow that and a loaded machine. */
const SLACK_MS = 1500;
const PER_ADDRESS = 4;
const UUID = '00000000-0000-4000-8000-000000000000';

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
}

/** One request on its own connection (no keep-alive pool holding sockets between tests). */
function call(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Sends headers announcing a 200-byte body, then one byte every 100 ms until the server closes. */
async function trickle(port: number, path: string, headers: Record<string, string> = {}): Promise<{ answer: string; closedAfterMs: number }> {
  const s = await open(port);
  const started = Date.now();
  let answer = '';
  s.on('data', (d: Buffer) => (answer += d.toString()));
  s.on('error', () => {});
  const head = Object.entries({ host: 'pay.example.test', 'content-type': 'application/json', 'content-length': '200', ...headers })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  s.write(`POST ${path} HTTP/1.1\r\n${head}\r\n{`);
  const drip = setInterval(() => s.writable && s.write(' '), 100);
  await new Promise<void>((resolve) => s.once('close', () => resolve()));
  clearInterval(drip);
  return { answer, closedAfterMs: Date.now() - started };
}

describe('request deadline and connection caps', () => {
  let gw: TestGateway;
  let port = 0;
  beforeAll(async () => {
    gw = await startTestGateway(sqlite!, { env: { SATCHEL_BODY_DEADLINE_MS: String(DEADLINE_MS), SATCHEL_MAX_CONNECTIONS_PER_ADDRESS: String(PER_ADDRESS) } });
    const url = await gw.app.listen({ host: '127.0.0.1', port: 0 });
    port = Number(new URL(url).port);
  });
  afterAll(async () => gw?.close());

  it.each([
    ['/v1/payment', { merchant: 'x', sign: 'y' }],
    ['/api/dashboard/login', { origin: 'https://pay.example.test' }],
    [`/api/pay/${UUID}/choose`, {}],
  ])('cuts off a body trickled to %s at the deadline with a 408 envelope', async (path, headers) => {
    const { answer, closedAfterMs } = await trickle(port, path, headers as Record<string, string>);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer.slice(answer.indexOf('\r\n\r\n') + 4)).toBe(JSON.stringify({ state: 1, message: 'Request timeout' }));
    expect(closedAfterMs).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
    expect(closedAfterMs).toBeLessThan(DEADLINE_MS + SLACK_MS);
  });

  it('closes the connection over the per-address cap at once, and takes new ones when one closes', async () => {
    const held = await Promise.all(Array.from({ length: PER_ADDRESS }, () => open(port)));
    for (const s of held) s.on('error', () => {});
    const extra = await open(port);
    extra.on('error', () => {});
    const started = Date.now();
    let got = '';
    extra.on('data', (d: Buffer) => (got += d.toString()));
    extra.write('GET /healthz HTTP/1.1\r\nhost: a\r\n\r\n');
    await new Promise<void>((resolve) => extra.once('close', () => resolve()));
    expect(got).toBe(''); // refused without an answer
    expect(Date.now() - started).toBeLessThan(500);
    // Once the held ones are gone, the address is welcome again.
    await Promise.all(held.map((s) => new Promise<void>((resolve) => (s.once('close', () => resolve()), s.destroy()))));
    await new Promise((r) => setTimeout(r, 50));
    expect((await call(port, 'GET', '/healthz')).status).toBe(200);
  });

  it('answers ordinary requests as before, several at once from one address', async () => {
    const body = JSON.stringify({ amount: '10', currency: 'USD', order_id: 'deadline-ok' });
    const create = await call(port, 'POST', '/v1/payment', { 'content-type': 'application/json', merchant: gw.merchant.id, sign: signBody(body, gw.merchant.payment_key) }, body);
    expect(create.status).toBe(200);
    expect((JSON.parse(create.body) as { state: number }).state).toBe(0);
    const many = await Promise.all(Array.from({ length: PER_ADDRESS }, () => call(port, 'GET', '/healthz')));
    expect(many.map((r) => r.status)).toEqual(Array(PER_ADDRESS).fill(200));
  });
});
