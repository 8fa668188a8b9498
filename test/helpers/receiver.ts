// A merchant's webhook endpoint on 127.0.0.1 for tests: records every request, answers as told
// (a fixed status, changeable at any time, or a function of the request).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
  body: string;
  /** The body parsed, or `{}` when it is not JSON. */
  json: Record<string, any>;
  headers: IncomingHttpHeaders;
  path: string;
  /** The sender's port: requests that share a connection share it. */
  remotePort: number;
}

/** What to answer: a status (and optional delay/body), or 'hang' to never answer. */
export type Answer = { status: number; delayMs?: number; body?: string } | 'hang';

export interface Receiver {
  url: string;
  port: number;
  deliveries: Delivery[];
  /** The status answered while `answer` is left as it was created with a status. */
  status: number;
  answer: (d: Delivery) => Answer;
  close(): Promise<void>;
}

export async function startReceiver(answer: number | ((d: Delivery) => Answer) = 200, port = 0): Promise<Receiver> {
  const r: Receiver = {
    url: '',
    port: 0,
    deliveries: [],
    status: typeof answer === 'number' ? answer : 200,
    answer: typeof answer === 'number' ? () => ({ status: r.status, body: 'ok' }) : answer,
    close: async () => {},
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: Record<string, any> = {};
      try {
        json = JSON.parse(body) as Record<string, any>;
      } catch {
        /* recorded as is */
      }
      const d: Delivery = { body, json, headers: req.headers, path: req.url ?? '/', remotePort: req.socket.remotePort ?? 0 };
      r.deliveries.push(d);
      const a = r.answer(d);
      if (a === 'hang') return;
      setTimeout(() => res.writeHead(a.status, { 'content-type': 'text/plain' }).end(a.body ?? ''), a.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  r.port = (server.address() as AddressInfo).port;
  r.url = `http://127.0.0.1:${r.port}/webhook`;
  r.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return r;
}

/** A port nothing listens on (for now). */
export async function freePort(): Promise<number> {
  const r = await startReceiver();
  await r.close();
  return r.port;
}
