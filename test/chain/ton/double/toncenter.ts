// A toncenter-shaped HTTP API v2 (ton-http-api) in front of @ton/sandbox, for the TON driver's
// tests. It only translates: balances, code, data, messages, comments and transactions all come
// from contracts the sandbox executed on the real TVM; this file stores nothing it made up except
// the masterchain seqno (below).
//
// Served: GET /api/v2/{getMasterchainInfo, getTransactions, getAddressInformation,
// getWalletInformation}, POST /api/v2/{runGetMethod, sendBocReturnHash, estimateFee} (the REST
// paths the driver uses), plus POST /api/v2/sendBoc and the same methods through
// POST /api/v2/jsonRPC, so @ton/ton's TonClient (which validates every answer against its own
// schema) can serve as an independent reader of the shapes. Answers use ton-http-api's envelope `{ok: true, result}` /
// `{ok: false, error, code}` and its status codes: 416 "Incorrect address", 422 "Validation
// error: ..." for a missing or mistyped parameter (FastAPI), 401 for a wrong or missing API key
// (toncenter's key check, header `X-API-Key` or query `api_key`), 500 for what tonlib refuses (an
// external message the contract does not accept, a transaction id it cannot find). This double
// answers 400 where ton-http-api would fail inside tonlib on malformed input it cannot parse (a
// BOC, a stack entry, a hash), so a test sees a refusal rather than a crash.
//
// The masterchain: the sandbox has no blocks, so the double keeps a masterchain seqno that starts
// at 1000 and advances by one after each executed message chain (every send into the sandbox,
// whoever makes it) and on each tick(). The driver only needs a seqno that moves on; block hashes
// are derived from the seqno.
//
// Transactions: every chain the sandbox executes is recorded as it produced it (its transaction
// cells, hash and lt), per account, by wrapping the sandbox's message queue; getTransactions
// pages them newest first from `lt`/`hash` (inclusive) back to `to_lt` (exclusive), as tonlib does.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Address, type Transaction } from '@ton/core';
import { Blockchain, type SendMessageResult } from '@ton/sandbox';
import { bigintHashB64, fakeHash, friendly, renderTransaction, ZERO_HASH_B64 } from './render.ts';
import { ApiError, parseAddress, type DoubleCore } from './api.ts';
import { accountInformation, estimateFee, runGetMethod, sendBocReturnHash, walletInformation } from './handlers.ts';

export interface RequestLogEntry {
  method: string;
  /** e.g. "/api/v2/getTransactions" */
  path: string;
  query: Record<string, string>;
  /** The API key the request carried (header or query), or null. */
  apiKey: string | null;
}

export interface TonDouble {
  /** Base URL without a trailing slash, e.g. http://127.0.0.1:PORT (the API is under /api/v2/). */
  readonly url: string;
  readonly blockchain: Blockchain;
  /** Every request received, in order (also while down). */
  readonly requests: RequestLogEntry[];
  /** The masterchain seqno getMasterchainInfo reports now. */
  readonly seqno: number;
  /** Advance the masterchain seqno by n (default 1) without any transaction. */
  tick(n?: number): void;
  /** Answer every request with 503, or (refuse: true) stop listening so connections are refused. */
  down(opts?: { refuse?: boolean }): Promise<void>;
  /** Serve again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
  /** Recorded transactions of an account, oldest first. */
  transactionsOf(address: Address | string): readonly Transaction[];
}

const MC_SHARD = '-9223372036854775808';
export const FIRST_SEQNO = 1000;

function parseIntParam(q: URLSearchParams, name: string): bigint | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^-?[0-9]+$/.test(v)) throw new ApiError(422, `Validation error: ${name}: value is not a valid integer`);
  return BigInt(v);
}

function parseHash(v: string): Buffer {
  if (/^[0-9a-fA-F]{64}$/.test(v)) return Buffer.from(v, 'hex');
  if (v.length === 44) {
    const b = Buffer.from(v.replace(/_/g, '/').replace(/-/g, '+'), 'base64');
    if (b.length === 32) return b;
  }
  throw new ApiError(400, 'Invalid hash');
}

interface Stored {
  tx: Transaction;
  account: Address;
  hash: string;
}

class Double implements TonDouble, DoubleCore {
  url = '';
  requests: RequestLogEntry[] = [];
  seqno = FIRST_SEQNO;
  private port = 0;
  private server: Server | null = null;
  private sockets = new Set<Socket>();
  private mode: 'up' | '503' | 'refused' = 'up';
  private byAccount = new Map<string, Stored[]>();
  private seen = new Set<string>();

  constructor(
    readonly blockchain: Blockchain,
    private readonly apiKey: string | undefined,
  ) {
    // Record every transaction chain the sandbox runs, whoever sends the message (a scenario
    // helper, a test, or sendBocReturnHash). The queue manager is internal to @ton/sandbox (0.41):
    // if it moves, this fails loudly here instead of serving an empty history.
    const qm = (blockchain as unknown as { defaultQueueManager?: { runQueue?: (p?: unknown) => Promise<SendMessageResult> } }).defaultQueueManager;
    if (!qm || typeof qm.runQueue !== 'function') throw new Error('@ton/sandbox internals changed: cannot record transactions');
    const run = qm.runQueue.bind(qm);
    qm.runQueue = async (p?: unknown) => {
      const result = await run(p);
      this.record(result.transactions);
      return result;
    };
  }

  private record(txs: readonly Transaction[]): void {
    if (txs.length === 0) return;
    for (const tx of txs) {
      const hash = tx.hash().toString('hex');
      if (this.seen.has(hash)) continue;
      this.seen.add(hash);
      const info = tx.inMessage?.info;
      const account = info && info.type !== 'external-out' ? info.dest : new Address(0, Buffer.from(tx.address.toString(16).padStart(64, '0'), 'hex'));
      const key = account.toRawString();
      const list = this.byAccount.get(key) ?? [];
      list.push({ tx, account, hash });
      list.sort((a, b) => (a.tx.lt < b.tx.lt ? -1 : a.tx.lt > b.tx.lt ? 1 : 0));
      this.byAccount.set(key, list);
    }
    this.seqno += 1;
  }

  transactionsOf(address: Address | string): readonly Transaction[] {
    const a = typeof address === 'string' ? Address.parse(address) : address;
    return (this.byAccount.get(a.toRawString()) ?? []).map((s) => s.tx);
  }

  tick(n = 1): void {
    this.seqno += n;
  }

  blockId(seqno = this.seqno) {
    return { '@type': 'ton.blockIdExt', workchain: -1, shard: MC_SHARD, seqno, root_hash: fakeHash(`root:${seqno}`), file_hash: fakeHash(`file:${seqno}`) };
  }

  lastTransactionId(address: Address) {
    const list = this.byAccount.get(address.toRawString());
    const last = list?.[list.length - 1];
    if (!last) return { '@type': 'internal.transactionId', lt: '0', hash: ZERO_HASH_B64 };
    return { '@type': 'internal.transactionId', lt: last.tx.lt.toString(), hash: bigintHashB64(BigInt('0x' + last.hash)) };
  }

  extra(): string {
    return `${(Date.now() / 1000).toFixed(7)}:0:${Math.random()}`;
  }

  private masterchainInfo() {
    return {
      '@type': 'blocks.masterchainInfo',
      last: this.blockId(),
      state_root_hash: fakeHash(`state:${this.seqno}`),
      init: this.blockId(0),
      '@extra': this.extra(),
    };
  }

  private transactions(q: URLSearchParams) {
    const account = parseAddress(q.get('address') ?? undefined);
    const limit = parseIntParam(q, 'limit') ?? 10n;
    if (limit <= 0n || limit > 100n) throw new ApiError(422, 'Validation error: limit: ensure this value is greater than 0 and less than or equal to 100');
    const lt = parseIntParam(q, 'lt');
    const hashParam = q.get('hash');
    const toLt = parseIntParam(q, 'to_lt') ?? 0n;
    const archival = q.get('archival');
    if (archival !== null && !['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'].includes(archival.toLowerCase())) {
      throw new ApiError(422, 'Validation error: archival: value could not be parsed to a boolean');
    }
    const list = this.byAccount.get(account.toRawString()) ?? [];
    let start = list.length - 1;
    // tonlib starts from the account's last transaction unless both lt and hash are given.
    if (lt !== undefined && hashParam !== null && hashParam !== '') {
      const hash = parseHash(hashParam).toString('hex');
      start = list.findIndex((s) => s.tx.lt === lt && s.hash === hash);
      if (start < 0) throw new ApiError(500, 'LITE_SERVER_UNKNOWN: cannot locate transaction with the given lt and hash');
    }
    const out = [];
    for (let i = start; i >= 0 && out.length < Number(limit); i--) {
      const s = list[i]!;
      if (s.tx.lt <= toLt) break;
      out.push(renderTransaction(s.tx, s.account));
    }
    return out;
  }

  // Each API method by name, with the HTTP verb its REST path takes; the JSON-RPC endpoint reaches
  // the same handlers (GET methods read their params as the query string).
  private readonly methods: Record<string, { verb: 'GET'; run: (q: URLSearchParams) => unknown } | { verb: 'POST'; run: (body: Record<string, unknown>) => unknown }> = {
    getMasterchainInfo: { verb: 'GET', run: () => this.masterchainInfo() },
    getTransactions: { verb: 'GET', run: (q) => this.transactions(q) },
    getAddressInformation: { verb: 'GET', run: (q) => accountInformation(this, parseAddress(q.get('address') ?? undefined)) },
    getWalletInformation: { verb: 'GET', run: (q) => walletInformation(this, parseAddress(q.get('address') ?? undefined)) },
    runGetMethod: { verb: 'POST', run: (b) => runGetMethod(this, b) },
    sendBocReturnHash: { verb: 'POST', run: (b) => sendBocReturnHash(this, b) },
    sendBoc: { verb: 'POST', run: async (b) => (await sendBocReturnHash(this, b), { '@type': 'ok', '@extra': this.extra() }) },
    estimateFee: { verb: 'POST', run: (b) => estimateFee(this, b) },
  };

  private method(name: string) {
    return Object.hasOwn(this.methods, name) ? this.methods[name] : undefined;
  }

  private async call(name: string, q: URLSearchParams, body: unknown): Promise<unknown> {
    const m = this.method(name);
    if (!m) throw new ApiError(404, 'Not Found');
    if (m.verb === 'GET') return m.run(q);
    if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) throw new ApiError(422, 'Validation error: body: field required');
    return m.run(body as Record<string, unknown>);
  }

  private async route(verb: string, path: string, q: URLSearchParams, body: unknown): Promise<unknown> {
    if (!path.startsWith('/api/v2/')) throw new ApiError(404, 'Not Found');
    const name = path.slice('/api/v2/'.length);
    const m = this.method(name);
    if (m && m.verb !== verb) throw new ApiError(405, 'Method Not Allowed');
    return this.call(name, q, body);
  }

  /** ton-http-api's /jsonRPC: `{method, params, id}` answered as `{ok, result, jsonrpc, id}` (what @ton/ton's TonClient speaks). */
  private async jsonRpc(body: unknown): Promise<{ status: number; payload: unknown }> {
    const req = (body ?? {}) as { method?: unknown; params?: unknown; id?: unknown };
    const id = req.id ?? null;
    const name = typeof req.method === 'string' ? req.method : '';
    const m = this.method(name);
    if (!m) return { status: 422, payload: { ok: false, error: 'Unknown method', jsonrpc: '2.0', id } };
    const params = (req.params && typeof req.params === 'object' ? req.params : {}) as Record<string, unknown>;
    const q = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined && v !== null).map(([k, v]) => [k, String(v)]));
    const result = await this.call(name, q, params);
    return { status: 200, payload: { ok: true, result, jsonrpc: '2.0', id } };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const u = new URL(req.url ?? '/', 'http://x');
    const headerKey = req.headers['x-api-key'];
    const apiKey = (Array.isArray(headerKey) ? headerKey[0] : headerKey) ?? u.searchParams.get('api_key');
    this.requests.push({ method: req.method ?? 'GET', path: u.pathname, query: Object.fromEntries(u.searchParams), apiKey: apiKey ?? null });
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const send = (status: number, payload: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json', 'x-api-version': '2.0.0' });
      res.end(JSON.stringify(payload));
    };
    const fail = (code: number, error: string) => send(code, { ok: false, error, code });
    if (this.mode === '503') return fail(503, 'Service Unavailable');
    if (this.apiKey !== undefined && apiKey !== this.apiKey) return fail(401, 'API key does not exist');
    let body: unknown;
    if (req.method === 'POST') {
      try {
        body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
      } catch {
        return fail(422, 'Validation error: body is not valid JSON');
      }
    }
    try {
      if (u.pathname === '/api/v2/jsonRPC' && req.method === 'POST') {
        const r = await this.jsonRpc(body);
        return send(r.status, r.payload);
      }
      const result = await this.route(req.method ?? 'GET', u.pathname, u.searchParams, body);
      send(200, { ok: true, result });
    } catch (e) {
      if (e instanceof ApiError) return fail(e.code, e.message);
      fail(503, e instanceof Error ? e.message : String(e));
    }
  }

  async listen(): Promise<void> {
    const server = createServer((req, res) => {
      this.handle(req, res).catch((e) => {
        if (!res.headersSent) res.writeHead(503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: false, error: String(e), code: 503 }));
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
    } else {
      this.mode = '503';
    }
  }

  async up(): Promise<void> {
    if (this.mode === 'refused') await this.listen();
    this.mode = 'up';
  }

  async close(): Promise<void> {
    await this.stopListening();
  }
}

/** Starts the double on 127.0.0.1 (a free port) over a new sandbox Blockchain, or the one given. */
export async function startToncenterDouble(opts?: { apiKey?: string; blockchain?: Blockchain }): Promise<TonDouble> {
  const blockchain = opts?.blockchain ?? (await Blockchain.create());
  const d = new Double(blockchain, opts?.apiKey);
  await d.listen();
  return d;
}

export { friendly };
