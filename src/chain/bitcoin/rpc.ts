// JSON-RPC client for Bitcoin Core and the nodes that speak its dialect (Litecoin Core, Dogecoin
// Core): basic auth from the URL's user:password or from the node's cookie file (read again when
// the node restarts and writes a new one), batches, and amounts kept as exact decimal strings.
import { readFile } from 'node:fs/promises';
import { readCapped } from '../capped-body.ts';
import { BITCOIN_NODE_LIMITS } from './limits.ts';
import { FaultyNodeError, NodeError } from '../errors.ts';
import { requestSignal } from '../poll-signal.ts';

/** The node answered with an error, or could not be reached (`code` null). */
export class BitcoinRpcError extends NodeError {
  constructor(method: string, code: number | null, message: string) {
    super(method, code, message);
  }

  /** No answer at all (connection refused, timeout, warming up): worth trying again later. */
  get unreachable(): boolean {
    return this.code === null || this.code === -28;
  }
}

export interface RpcCall {
  method: string;
  params?: unknown[];
}

export type RpcResult<T = unknown> = { ok: true; value: T } | { ok: false; error: BitcoinRpcError };

export interface BitcoinRpcOptions {
  url: string;
  cookieFile?: string;
  timeoutMs?: number;
  onRequest?: (method: string) => void;
  /** An answer larger than this is the node's fault (default 256 MiB: a batch of full blocks). */
  maxResponseBytes?: number;
}

/**
 * Bitcoin Core prints amounts as JSON numbers with eight decimals ("value": 0.10000000). They are
 * turned into strings before parsing, so that no amount ever passes through a float.
 */
const AMOUNT_KEYS = /"(value|amount|fee|feerate|relayfee|incrementalfee|mempoolminfee|minrelaytxfee|incrementalrelayfee|base|modified|ancestor|descendant)"\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)/g;

export class BitcoinRpc {
  private readonly endpoint: string;
  private readonly basic: string | null;
  private cookie: string | null = null;
  private nextId = 1;

  constructor(private readonly opts: BitcoinRpcOptions) {
    const u = new URL(opts.url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('rpc_url must be http(s)');
    this.basic = u.username ? Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64') : null;
    u.username = '';
    u.password = '';
    this.endpoint = u.toString();
  }

  async call<T>(method: string, params: unknown[] = []): Promise<T> {
    const [r] = await this.batch<T>([{ method, params }]);
    if (!r!.ok) throw r!.error;
    return r!.value;
  }

  /** Several calls in one HTTP request; each answer on its own (one failing does not fail the rest). */
  async batch<T = unknown>(calls: RpcCall[]): Promise<RpcResult<T>[]> {
    if (calls.length === 0) return [];
    for (const c of calls) this.opts.onRequest?.(c.method);
    const first = calls[0]!.method;
    const ids = calls.map(() => this.nextId++);
    const body = JSON.stringify(calls.map((c, i) => ({ jsonrpc: '1.0', id: ids[i], method: c.method, params: c.params ?? [] })));
    let res = await this.post(first, body, false);
    if (res.status === 401 && this.opts.cookieFile) res = await this.post(first, body, true);
    if (res.status === 401 || res.status === 403) throw new BitcoinRpcError(first, null, `HTTP ${res.status}: the node refused the credentials`);
    let text: string;
    try {
      text = await readCapped(res, this.opts.maxResponseBytes ?? BITCOIN_NODE_LIMITS.maxResponseBytes, first);
    } catch (err) {
      if (err instanceof FaultyNodeError) throw err;
      throw new BitcoinRpcError(first, null, `reading the answer failed: ${(err as Error).message}`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text.replace(AMOUNT_KEYS, '"$1":"$2"'));
    } catch {
      throw new BitcoinRpcError(first, null, `HTTP ${res.status}: not JSON-RPC`);
    }
    if (!Array.isArray(parsed)) {
      const e = typeof parsed === 'object' && parsed !== null ? (parsed as { error?: { code?: unknown; message?: unknown } }).error : undefined;
      throw new BitcoinRpcError(first, errorCode(e?.code), e?.message === undefined ? `HTTP ${res.status}` : String(e.message));
    }
    const byId = new Map<unknown, { result?: T; error?: { code: number; message: string } | null }>();
    for (const r of parsed as Array<{ id: unknown } | null>) {
      if (typeof r !== 'object' || r === null) throw new FaultyNodeError(first, 'a batch answer is not an object');
      byId.set(r.id, r as never);
    }
    return calls.map((c, i) => {
      const r = byId.get(ids[i]);
      if (!r) return { ok: false, error: new BitcoinRpcError(c.method, null, 'no answer in the batch') };
      if (r.error) return { ok: false, error: new BitcoinRpcError(c.method, errorCode(r.error.code), String(r.error.message)) };
      return { ok: true, value: r.result as T };
    });
  }

  private async post(method: string, body: string, rereadCookie: boolean): Promise<Response> {
    const auth = await this.auth(rereadCookie);
    try {
      return await fetch(this.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Basic ${auth}` } : {}) },
        body,
        signal: requestSignal(this.opts.timeoutMs ?? 30_000),
      });
    } catch (err) {
      throw new BitcoinRpcError(method, null, `request failed: ${(err as Error).message}`);
    }
  }

  private async auth(reread: boolean): Promise<string | null> {
    if (this.basic) return this.basic;
    if (!this.opts.cookieFile) return null;
    if (this.cookie === null || reread) {
      try {
        this.cookie = Buffer.from((await readFile(this.opts.cookieFile, 'utf8')).trim()).toString('base64');
      } catch (err) {
        throw new BitcoinRpcError('auth', null, `cannot read the cookie file: ${(err as Error).message}`);
      }
    }
    return this.cookie;
  }
}

/** A JSON-RPC error code as the node sent it, when it is one (anything else counts as none). */
function errorCode(v: unknown): number | null {
  return typeof v === 'number' && Number.isSafeInteger(v) ? v : null;
}
