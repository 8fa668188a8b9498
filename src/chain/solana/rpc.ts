// A small Solana JSON-RPC 2.0 client over HTTP (an RPC provider or the operator's own node):
// single calls and batches (one HTTP request carrying several calls, so a poll's getTransaction
// reads cost one round trip). Answers are size-capped, parsed so that no integer loses a digit
// (u64 lamports and slots are JSON numbers; those past 2^53 are kept as digit strings, which the
// checks of ./answers.ts accept and read as bigint), and each result is checked before anything
// reads it. Errors are the chain layer's: NodeUnreachableError when no answer came (or the node
// is overloaded: HTTP 429/5xx), NodeError when it refused the call with a JSON-RPC error,
// FaultyNodeError when it answered what no sane node says.
import { readCapped } from '../capped-body.ts';
import { FaultyNodeError, NodeError, NodeUnreachableError } from '../errors.ts';
import { requestSignal } from '../poll-signal.ts';
import { SOLANA_NODE_LIMITS } from './limits.ts';

export interface SolanaRpcOptions {
  timeoutMs?: number;
  /** Called with each method name, once per call (a batch of n calls: n times). */
  onRequest?: (method: string) => void;
  /** Called once per HTTP request (metrics, benchmarks). */
  onHttp?: () => void;
  maxResponseBytes?: number;
}

/** A JSON-RPC error the node answered to one call (its code and message). */
export class RpcCallError extends NodeError {
  constructor(
    method: string,
    readonly rpcCode: number,
    message: string,
    readonly rpcData: unknown,
  ) {
    super(method, null, `${message} (${rpcCode})`);
  }
}

export interface RpcCall {
  method: string;
  params: unknown[];
}

/**
 * JSON text with every integer literal too long for a double turned into a digit string, so no
 * digit is lost; strings and shorter numbers stay as they are. A tokenizer, not a regex: a
 * number-looking run inside a string is never touched.
 */
export function exactJson(text: string): unknown {
  let out = '';
  let last = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // skip a string
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

export class SolanaRpc {
  private nextId = 1;

  constructor(
    private readonly url: string,
    private readonly opts: SolanaRpcOptions = {},
  ) {}

  private async post(label: string, body: unknown): Promise<unknown> {
    this.opts.onHttp?.();
    let res: Response;
    try {
      res = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
        signal: requestSignal(this.opts.timeoutMs ?? 20_000),
      });
    } catch (err) {
      throw new NodeUnreachableError(label, null, `request failed: ${(err as Error).message}`);
    }
    let text: string;
    try {
      text = await readCapped(res, this.opts.maxResponseBytes ?? SOLANA_NODE_LIMITS.maxResponseBytes, label);
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

  private answer(call: RpcCall, id: number, reply: unknown): unknown {
    if (typeof reply !== 'object' || reply === null || Array.isArray(reply)) throw new FaultyNodeError(call.method, 'the answer is not a JSON-RPC response object');
    const r = reply as { jsonrpc?: unknown; id?: unknown; result?: unknown; error?: unknown };
    if (r.id !== id) throw new FaultyNodeError(call.method, `the answer carries id ${JSON.stringify(r.id)?.slice(0, 40)} instead of ${id}`);
    if (r.error !== undefined && r.error !== null) {
      const e = r.error as { code?: unknown; message?: unknown; data?: unknown };
      const code = typeof e.code === 'number' && Number.isSafeInteger(e.code) ? e.code : 0;
      const message = typeof e.message === 'string' ? e.message.slice(0, 300) : 'error';
      // The node's own "try later" codes (unhealthy, behind, slot skipped, rate limits).
      if (code === -32005 || code === -32004 || code === -32007 || code === -32014 || code === -32016 || code === 429) {
        throw new NodeUnreachableError(call.method, null, `${message} (${code})`);
      }
      throw new RpcCallError(call.method, code, message, e.data);
    }
    if (!('result' in r)) throw new FaultyNodeError(call.method, 'the answer has neither result nor error');
    return r.result;
  }

  /** One call; its result as the node gave it (the caller checks it). */
  async call(method: string, params: unknown[]): Promise<unknown> {
    this.opts.onRequest?.(method);
    const id = this.nextId++;
    const reply = await this.post(method, { jsonrpc: '2.0', id, method, params });
    return this.answer({ method, params }, id, reply);
  }

  /**
   * Several calls in one HTTP request; results in the order of `calls`. A call the node refused
   * throws (the whole batch is retried at the next poll: reads are idempotent).
   */
  async batch(calls: readonly RpcCall[]): Promise<unknown[]> {
    if (calls.length === 0) return [];
    if (calls.length === 1) return [await this.call(calls[0]!.method, calls[0]!.params)];
    for (const c of calls) this.opts.onRequest?.(c.method);
    const first = this.nextId;
    this.nextId += calls.length;
    const label = calls[0]!.method;
    const reply = await this.post(label, calls.map((c, k) => ({ jsonrpc: '2.0', id: first + k, method: c.method, params: c.params })));
    if (!Array.isArray(reply)) {
      // A node that refuses batches answers one error object for the whole request.
      const e = reply && typeof reply === 'object' ? (reply as { error?: { message?: unknown } }).error : undefined;
      if (e && typeof e === 'object') throw new NodeError(label, null, `the node refused a batch: ${String(e.message ?? 'error').slice(0, 200)}`);
      throw new FaultyNodeError(label, 'a batch was answered with something other than a list');
    }
    if (reply.length !== calls.length) throw new FaultyNodeError(label, `a batch of ${calls.length} calls was answered with ${reply.length} results`);
    const byId = new Map<unknown, unknown>();
    for (const r of reply) byId.set(r && typeof r === 'object' ? (r as { id?: unknown }).id : undefined, r);
    return calls.map((c, k) => this.answer(c, first + k, byId.get(first + k)));
  }
}
