// A merchant's webhook endpoint for tests: records every delivery; its answer can be changed.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
  body: string;
  json: Record<string, any>;
  headers: Record<string, string | string[] | undefined>;
}

export interface Receiver {
  url: string;
  deliveries: Delivery[];
  status: number;
  close(): Promise<void>;
}

export async function startReceiver(status = 200): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  const r: Receiver = { url: '', deliveries, status, close: async () => {} };
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
      deliveries.push({ body, json, headers: req.headers });
      res.statusCode = r.status;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`;
  r.close = () => new Promise((resolve) => server.close(() => resolve()));
  return r;
}
