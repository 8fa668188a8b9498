// A merchant's webhook endpoint on 127.0.0.1 for tests: records what arrives, answers as told.
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  path: string;
  /** The sender's port: requests that share a connection share it. */
  remotePort: number;
}

/** What to answer: a status (and optional delay/body), or 'hang' to never answer. */
export type Answer = { status: number; delayMs?: number; body?: string } | 'hang';

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  answer: (r: Received) => Answer;
  close(): Promise<void>;
}

export async function startReceiver(answer: (r: Received) => Answer = () => ({ status: 200 }), port = 0): Promise<Receiver> {
  const rec: Receiver = { url: '', port: 0, received: [], answer, close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), path: req.url ?? '/', remotePort: req.socket.remotePort ?? 0 };
      rec.received.push(r);
      const a = rec.answer(r);
      if (a === 'hang') return;
      setTimeout(() => res.writeHead(a.status, { 'content-type': 'text/plain' }).end(a.body ?? ''), a.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  rec.port = (server.address() as AddressInfo).port;
  rec.url = `http://127.0.0.1:${rec.port}/hook`;
  rec.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return rec;
}

/** A port nothing listens on (for now). */
export async function freePort(): Promise<number> {
  const r = await startReceiver();
  await r.close();
  return r.port;
}
