// A small client of Monero's JSON-RPC 2.0 (`<url>/json_rpc`), spoken alike by monerod and
// monero-wallet-rpc. Answers are size-capped (../capped-body.ts) and parsed so that no integer loses
// a digit (amounts are u64 piconero: past 2^53 they are kept as digit strings and read as bigint by
// the checks of ./scan.ts). Errors are the chain layer's: NodeUnreachableError when no answer came
// (or HTTP 5xx), NodeError when the server refused the call (a JSON-RPC error), FaultyNodeError
// when it answered what no sane server says.
import { readCapped } from '../capped-body.ts';
import { FaultyNodeError, NodeError, NodeUnreachableError } from '../errors.ts';
import { requestSignal } from '../poll-signal.ts';
import { MONERO_NODE_LIMITS } from './limits.ts';
import { DigestLogin } from './digest.ts';

export interface MoneroRpcOptions {
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** Called with each method name (metrics, tests). */
  onRequest?: (method: string) => void;
  /** A login for a server started with `--rpc-login` (HTTP digest authentication). */
  login?: { user: string; password: string };
}

/** A JSON-RPC error the server answered (its code and message). */
export class MoneroRpcError extends NodeError {
  constructor(
    method: string,
    readonly rpcCode: number,
    message: string,
  ) {
    super(method, null, `${message} (${rpcCode})`);
  }
}

/** JSON text with every integer literal too long for a double kept as a digit string. */
export function exactJson(text: string): unknown {
  let out = '';
  let last = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      i++;
      while (i < n && text.charCodeAt(i) !== 34) i += text.charCodeAt(i) === 92 ? 2 : 1;
      i++;
      continue;
    }
    if (c === 45 || (c >= 48 && c <= 57)) {
      const start = i;
      i++;
      while (i < n && /[0-9eE.+-]/.test(text[i]!)) i++;
      const tok = text.slice(start, i);
      if (/^-?[0-9]{16,}$/.test(tok) && !Number.isSafeInteger(Number(tok))) {
        out += text.slice(last, start) + `"${tok}"`;
        last = i;
      }
      continue;
    }
    i++;
  }
  return JSON.parse(last === 0 ? text : out + text.slice(last));
}

export class MoneroRpc {
  private nextId = 1;
  private readonly login: DigestLogin | null;

  constructor(
    /** http(s)://host:port, without a path. */
    readonly url: string,
    private readonly opts: MoneroRpcOptions = {},
  ) {
    this.login = opts.login ? new DigestLogin(opts.login.user, opts.login.password) : null;
  }

  private async post(label: string, path: string, body: unknown, timeoutMs?: number): Promise<unknown> {
    let res: Response;
    const req = {
      url: `${this.url.replace(/\/+$/, '')}/${path}`,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      signal: requestSignal(timeoutMs ?? this.opts.timeoutMs ?? 30_000),
      method: label,
    };
    try {
      res = this.login ? await this.login.post(req) : await fetch(req.url, { method: 'POST', headers: req.headers, body: req.body, signal: req.signal });
    } catch (err) {
      if (err instanceof FaultyNodeError) throw err;
      throw new NodeUnreachableError(label, null, `request failed: ${(err as Error).message}`);
    }
    let text: string;
    try {
      text = await readCapped(res, this.opts.maxResponseBytes ?? MONERO_NODE_LIMITS.maxResponseBytes, label);
    } catch (err) {
      if (err instanceof FaultyNodeError) throw err;
      throw new NodeUnreachableError(label, null, `reading the answer failed: ${(err as Error).message}`);
    }
    if (res.status === 429 || res.status >= 500) throw new NodeUnreachableError(label, res.status, `HTTP ${res.status}`);
    if (!res.ok) throw new NodeError(label, res.status, `HTTP ${res.status}`);
    try {
      return exactJson(text);
    } catch {
      throw new FaultyNodeError(label, 'the answer is not JSON');
    }
  }

  /** One JSON-RPC call; its result object as the server gave it (the caller checks it). */
  async call(method: string, params: Record<string, unknown> = {}, timeoutMs?: number): Promise<Record<string, unknown>> {
    this.opts.onRequest?.(method);
    const id = this.nextId++;
    const reply = await this.post(method, 'json_rpc', { jsonrpc: '2.0', id: String(id), method, params }, timeoutMs);
    if (typeof reply !== 'object' || reply === null || Array.isArray(reply)) throw new FaultyNodeError(method, 'the answer is not a JSON-RPC response object');
    const r = reply as { id?: unknown; result?: unknown; error?: unknown };
    if (r.error !== undefined && r.error !== null) {
      const e = r.error as { code?: unknown; message?: unknown };
      const code = typeof e.code === 'number' && Number.isSafeInteger(e.code) ? e.code : 0;
      const message = typeof e.message === 'string' ? e.message.slice(0, 300) : 'error';
      throw new MoneroRpcError(method, code, message);
    }
    if (r.id !== String(id) && r.id !== id) throw new FaultyNodeError(method, `the answer carries id ${JSON.stringify(r.id)?.slice(0, 40)} instead of ${id}`);
    if (typeof r.result !== 'object' || r.result === null || Array.isArray(r.result)) throw new FaultyNodeError(method, 'the answer has no result object');
    const result = r.result as Record<string, unknown>;
    // monerod answers a refusal it judges its own ("BUSY": still syncing) inside the result.
    if (typeof result.status === 'string' && result.status !== 'OK') {
      if (result.status === 'BUSY') throw new NodeUnreachableError(method, null, 'the daemon is busy (still synchronising)');
      throw new NodeError(method, null, `status ${result.status.slice(0, 100)}`);
    }
    return result;
  }

  /** One of monerod's plain JSON endpoints (`/get_transactions`, ...): its answer object. */
  async other(path: string, body: Record<string, unknown>, timeoutMs?: number): Promise<Record<string, unknown>> {
    this.opts.onRequest?.(path);
    const reply = await this.post(path, path, body, timeoutMs);
    if (typeof reply !== 'object' || reply === null || Array.isArray(reply)) throw new FaultyNodeError(path, 'the answer is not an object');
    const r = reply as Record<string, unknown>;
    if (typeof r.status === 'string' && r.status !== 'OK') {
      if (r.status === 'BUSY') throw new NodeUnreachableError(path, null, 'the daemon is busy (still synchronising)');
      throw new NodeError(path, null, `status ${r.status.slice(0, 100)}`);
    }
    return r;
  }
}

/** A non-negative safe integer field of an answer, or a FaultyNodeError naming it. */
export function uint(method: string, v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new FaultyNodeError(method, `${what} is not a non-negative integer`);
  return v;
}

/** A u64 amount (number or digit string, as exactJson leaves it), as bigint. */
export function atomic(method: string, v: unknown, what: string): bigint {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'string' && /^[0-9]{1,20}$/.test(v) && BigInt(v) < 2n ** 64n) return BigInt(v);
  throw new FaultyNodeError(method, `${what} is not an amount`);
}

/** A 64-hex-digit hash (a txid, a block id). */
export function hash64(method: string, v: unknown, what: string): string {
  if (typeof v !== 'string' || !/^[0-9a-f]{64}$/.test(v)) throw new FaultyNodeError(method, `${what} is not 64 hex digits`);
  return v;
}
