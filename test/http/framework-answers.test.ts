// The answers the HTTP layer gives before any route runs (unparseable requests, bad percent-encoding,
// oversized headers, shutting down) are spec envelopes too, driven over a real socket as a client
// would meet them.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

/** Sends raw bytes and returns the status and body of the first answer. */
function raw(port: number, request: string): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1');
    let data = '';
    s.on('data', (d) => (data += d.toString('latin1')));
    s.on('error', reject);
    s.on('close', () => {
      const [head = '', ...rest] = data.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), headers: head, body: rest.join('\r\n\r\n') });
    });
    s.write(request);
    s.setTimeout(5000, () => s.destroy());
  });
}

const [sqlite] = await backends();

describe('framework answers are envelopes', () => {
  let gw: TestGateway;
  let port: number;
  beforeAll(async () => {
    gw = await startTestGateway(sqlite!);
    await gw.app.listen({ host: '127.0.0.1', port: 0 });
    port = (gw.app.server.address() as { port: number }).port;
  });
  afterAll(async () => gw?.close());

  it('an unparseable request line: 400', async () => {
    const r = await raw(port, 'NOT A REQUEST\r\n\r\n');
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body)).toEqual({ state: 1, message: 'Bad request' });
  });

  it('headers over the size limit: 431', async () => {
    const r = await raw(port, `POST /v1/payment HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(r.status).toBe(431);
    expect(JSON.parse(r.body)).toEqual({ state: 1, message: 'Request headers are too large' });
  });

  it('a URL that is not valid percent-encoding: 400; a path parameter over the limit: 414', async () => {
    let res = await gw.app.inject({ method: 'GET', url: '/api/pay/%E0%A4%A' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ state: 1, message: 'Bad request' });
    res = await gw.app.inject({ method: 'GET', url: `/api/pay/${'a'.repeat(500)}` });
    expect(res.statusCode).toBe(414);
    expect(res.json()).toEqual({ state: 1, message: 'URI too long' });
  });

  it('a body in a type the API does not read: 415; a known path with another method: 405', async () => {
    const res = await gw.api('/v1/payment', '<xml/>', { headers: { 'content-type': 'text/xml' } });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ state: 1, message: 'Content-Type must be application/json' });
    const put = await gw.app.inject({ method: 'PUT', url: '/v1/payment/info', payload: '{}' });
    expect(put.statusCode).toBe(405);
    expect(put.json()).toEqual({ state: 1, message: 'Method not allowed' });
  });

  it('while shutting down: 503', async () => {
    const other = await startTestGateway(sqlite!);
    await other.app.listen({ host: '127.0.0.1', port: 0 });
    const p = (other.app.server.address() as { port: number }).port;
    // Keep one connection open so that a request can still arrive during close.
    const s = connect(p, '127.0.0.1');
    await new Promise((r) => s.once('connect', r));
    const closing = other.close();
    await new Promise((r) => setTimeout(r, 20));
    const answer = new Promise<string>((resolve) => {
      let data = '';
      s.on('data', (d) => (data += d.toString()));
      s.on('close', () => resolve(data));
      setTimeout(() => s.destroy(), 3000);
    });
    s.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    const text = await answer;
    await closing;
    expect(text.split(' ')[1]).toBe('503');
    expect(JSON.parse(text.split('\r\n\r\n')[1]!)).toEqual({ state: 1, message: 'Service unavailable' });
  });
});
