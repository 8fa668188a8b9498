// A small client of a toncenter-compatible HTTP API v2 (toncenter.com, or an operator's own
// ton-http-api): REST paths only, never the jsonRPC endpoint, so that a proxy in front of the node
// can allow exactly these methods. GET /api/v2/{getMasterchainInfo, getTransactions,
// getAddressInformation, getWalletInformation}; POST /api/v2/{runGetMethod, sendBocReturnHash,
// estimateFee}. The key, when configured, goes in the X-API-Key header (never in the URL, where
// access logs would keep it). Every answer is the envelope {ok, result} / {ok: false, error, code};
// its size is capped and each result is checked (./answers.ts) before anything reads it. Errors are
// the chain layer's: NodeUnreachableError when no answer came, NodeError with the HTTP status when
// the node refused, FaultyNodeError when it answered what no sane node says.
import { readCapped } from '../capped-body.ts';
import { FaultyNodeError, NodeError, NodeUnreachableError } from '../errors.ts';
import { requestSignal } from '../poll-signal.ts';
import { TON_NODE_LIMITS } from './limits.ts';
import { checkAddressInformation, checkMasterchainInfo, checkRunGetMethod, checkTransactions, checkWalletInformation, type TonAccountInfo, type TonGetResult, type TonTx, type TonWalletInfo } from './answers.ts';

export interface TonApiOptions {
  apiKey?: string;
  timeoutMs?: number;
  /** Called with each method's path (metrics, tests). */
  onRequest?: (path: string) => void;
  /** An answer larger than this is the node's fault. */
  maxResponseBytes?: number;
}

/** A TVM stack entry as runGetMethod takes it: a number, or a cell/slice as a base64 BOC. */
export type TonStackArg = ['num', string] | ['tvm.Slice', string] | ['tvm.Cell', string];

export class TonApi {
  private readonly base: string;

  constructor(
    url: string,
    private readonly opts: TonApiOptions = {},
  ) {
    this.base = url.replace(/\/+$/, '').replace(/\/api\/v2$/, '') + '/api/v2/';
  }

  private async call(method: string, init: { query?: Record<string, string>; body?: Record<string, unknown> }): Promise<unknown> {
    this.opts.onRequest?.(method);
    const url = new URL(this.base + method);
    for (const [k, v] of Object.entries(init.query ?? {})) url.searchParams.set(k, v);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.opts.apiKey) headers['X-API-Key'] = this.opts.apiKey;
    if (init.body) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(url, {
        method: init.body ? 'POST' : 'GET',
        headers,
        body: init.body ? JSON.stringify(init.body) : undefined,
        signal: requestSignal(this.opts.timeoutMs ?? 20_000),
      });
    } catch (err) {
      throw new NodeUnreachableError(method, null, `request failed: ${(err as Error).message}`);
    }
    let text: string;
    try {
      text = await readCapped(res, this.opts.maxResponseBytes ?? TON_NODE_LIMITS.maxResponseBytes, method);
    } catch (err) {
      if (err instanceof FaultyNodeError) throw err;
      throw new NodeUnreachableError(method, null, `reading the answer failed: ${(err as Error).message}`);
    }
    let parsed: unknown;
    try {
      // Amounts and logical times travel as JSON strings in this API; a number is refused by the
      // checks, so no digit is lost to a double.
      parsed = JSON.parse(text);
    } catch {
      if (!res.ok) throw refusal(method, res.status, `HTTP ${res.status}`);
      throw new FaultyNodeError(method, 'the answer is not JSON');
    }
    const envelope = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
    if (!res.ok || envelope?.ok === false) {
      throw refusal(method, res.ok ? null : res.status, typeof envelope?.error === 'string' ? envelope.error.slice(0, 200) : `HTTP ${res.status}`);
    }
    if (!envelope || envelope.ok !== true || !('result' in envelope)) throw new FaultyNodeError(method, 'the answer is not a toncenter envelope {ok, result}');
    return envelope.result;
  }

  /** The newest masterchain block's seqno. */
  async masterchainSeqno(): Promise<number> {
    return checkMasterchainInfo('getMasterchainInfo', await this.call('getMasterchainInfo', {}));
  }

  /**
   * Transactions of `address`, newest first: from the one at (lt, hash) included, or the newest,
   * back to (not including) logical time `toLt`; at most `limit` (1..100).
   */
  async transactions(address: string, p: { limit: number; lt?: bigint; hash?: string; toLt?: bigint; archival?: boolean }): Promise<TonTx[]> {
    const query: Record<string, string> = { address, limit: String(p.limit) };
    if (p.lt !== undefined && p.hash !== undefined) {
      query.lt = p.lt.toString();
      query.hash = p.hash;
    }
    if (p.toLt !== undefined) query.to_lt = p.toLt.toString();
    if (p.archival) query.archival = 'true';
    return checkTransactions('getTransactions', await this.call('getTransactions', { query }), p.limit);
  }

  async addressInformation(address: string): Promise<TonAccountInfo> {
    return checkAddressInformation('getAddressInformation', await this.call('getAddressInformation', { query: { address } }));
  }

  async walletInformation(address: string): Promise<TonWalletInfo> {
    return checkWalletInformation('getWalletInformation', await this.call('getWalletInformation', { query: { address } }));
  }

  /** Runs a get-method; the exit code and stack as the node gives them (checked for shape). */
  async runGetMethod(address: string, method: string, stack: TonStackArg[]): Promise<TonGetResult> {
    return checkRunGetMethod('runGetMethod', await this.call('runGetMethod', { body: { address, method, stack } }));
  }

  /** Broadcasts an external message (base64 BOC); the node's answer as it came. */
  async sendBocReturnHash(boc: string): Promise<unknown> {
    return this.call('sendBocReturnHash', { body: { boc } });
  }

  /** The fee estimate of an external message to `address` (base64 BOCs); the node's answer as it came. */
  async estimateFee(p: { address: string; body: string; initCode?: string; initData?: string }): Promise<unknown> {
    return this.call('estimateFee', { body: { address: p.address, body: p.body, init_code: p.initCode ?? '', init_data: p.initData ?? '', ignore_chksig: true } });
  }
}

/** A node (or a proxy) that is down, overloaded or rate-limiting says nothing yet: try later. */
function refusal(method: string, status: number | null, error: string): NodeError {
  if (status !== null && (status >= 500 || status === 429)) return new NodeUnreachableError(method, status, error);
  return new NodeError(method, status, error);
}
