// A Solana JSON-RPC 2.0 node over HTTP in front of LiteSVM, for the `solana` driver's tests (and
// the payouts'). It only translates: every balance, account and execution result comes from
// LiteSVM running the real programs; the double keeps the slots, blockhashes and signature index
// (chain.ts). POST / with one request object or a batch (array), answered as a node does:
// `{jsonrpc, result, id}` or `{jsonrpc, error: {code, message, data?}, id}`, -32700 for a body
// that is not JSON, -32600 for a request that is not one, -32601 for an unknown method. u64
// values (lamports, slots, rentEpoch) are written as exact JSON integers, as the node's serde does.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { SolanaChain } from './chain.ts';
import { METHODS, RpcError } from './methods.ts';

export interface RpcLogEntry {
  method: string;
  params: unknown[];
  /** Several entries share one batch number when they came in one HTTP request. */
  batch: number;
}

/** A test's rewrite of one method's result (a hostile node): return the replacement. */
export type Rewrite = (method: string, params: unknown[], result: unknown) => unknown;

export interface SolanaDouble {
  readonly url: string;
  readonly chain: SolanaChain;
  /** Every JSON-RPC call received, in order (also while down). */
  readonly requests: RpcLogEntry[];
  /** HTTP requests received (a batch counts once). */
  readonly httpRequests: number;
  rewrite: Rewrite | null;
  /** When set, every HTTP answer's body is this text (a broken or hostile node). */
  rawBody: string | null;
  down(opts?: { refuse?: boolean }): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export function stringify(v: unknown): string {
  const marks: string[] = [];
  const text = JSON.stringify(v, (_k, x) => {
    if (typeof x === 'bigint') {
      marks.push(x.toString());
      return `\u0000big${marks.length - 1}\u0000`;
    }
    return x;
  });
  return text.replace(/"\\u0000big(\d+)\\u0000"/g, (_m, i: string) => marks[Number(i)]!);
}

class Double implements SolanaDouble {
  url = '';
  requests: RpcLogEntry[] = [];
  httpRequests = 0;
  rewrite: Rewrite | null = null;
  rawBody: string | null = null;
  private port = 0;
  private server: Server | null = null;
  private sockets = new Set<Socket>();
  private mode: 'up' | '503' | 'refused' = 'up';

  constructor(readonly chain: SolanaChain) {}

  private one(req: unknown, batch: number): unknown {
    if (req === null || typeof req !== 'object' || Array.isArray(req)) return { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid request' }, id: null };
    const r = req as { jsonrpc?: unknown; method?: unknown; params?: unknown; id?: unknown };
    const id = r.id ?? null;
    if (r.jsonrpc !== '2.0' || typeof r.method !== 'string') return { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid request' }, id };
    const params = r.params === undefined || r.params === null ? [] : r.params;
    this.requests.push({ method: r.method, params: Array.isArray(params) ? params : [params], batch });
    const h = Object.hasOwn(METHODS, r.method) ? METHODS[r.method] : undefined;
    if (!h) return { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id };
    if (!Array.isArray(params)) return { jsonrpc: '2.0', error: { code: -32602, message: 'Invalid params: expected a sequence' }, id };
    try {
      let result = h(this.chain, params);
      if (this.rewrite) result = this.rewrite(r.method, params, result);
      return { jsonrpc: '2.0', result, id };
    } catch (e) {
      if (e instanceof RpcError) return { jsonrpc: '2.0', error: e.data === undefined ? { code: e.code, message: e.message } : { code: e.code, message: e.message, data: e.data }, id };
      return { jsonrpc: '2.0', error: { code: -32603, message: `Internal error: ${e instanceof Error ? e.message : String(e)}` }, id };
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.httpRequests += 1;
    const batch = this.httpRequests;
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const send = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body);
    };
    if (this.mode === '503') return send(503, '{"jsonrpc":"2.0","error":{"code":-32005,"message":"Node is unhealthy"},"id":null}');
    if (req.method !== 'POST') return send(405, 'Used HTTP Method is not allowed. POST or OPTIONS is required');
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return send(200, '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}');
    }
    let answer: unknown;
    if (Array.isArray(body)) {
      if (body.length === 0) answer = { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid request' }, id: null };
      else answer = body.map((r) => this.one(r, batch));
    } else answer = this.one(body, batch);
    if (this.rawBody !== null) return send(200, this.rawBody);
    send(200, stringify(answer));
  }

  async listen(): Promise<void> {
    const server = createServer((req, res) => {
      this.handle(req, res).catch((e) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: String(e) }, id: null }));
      });
    });
    server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.url = `http://127.0.0.1:${this.port}`;
    this.server = server;
  }

  private async stopListening(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (!s) return;
    for (const sock of this.sockets) sock.destroy();
    this.sockets.clear();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  async down(opts?: { refuse?: boolean }): Promise<void> {
    if (opts?.refuse) {
      this.mode = 'refused';
      await this.stopListening();
    } else this.mode = '503';
  }

  async up(): Promise<void> {
    if (this.mode === 'refused') await this.listen();
    this.mode = 'up';
  }

  async close(): Promise<void> {
    await this.stopListening();
  }
}

/** Starts the double on 127.0.0.1 (a free port) over a new LiteSVM, or the chain given. */
export async function startSolanaDouble(opts?: { chain?: SolanaChain; finalityDepth?: number; confirmDepth?: number }): Promise<SolanaDouble> {
  const chain = opts?.chain ?? new SolanaChain({ finalityDepth: opts?.finalityDepth, confirmDepth: opts?.confirmDepth });
  const d = new Double(chain);
  await d.listen();
  return d;
}
