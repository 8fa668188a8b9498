// What the Monero payout float asks of its two servers: the operator's full `monero-wallet-rpc`
// holding the float (it builds and signs; the gateway never sees a spend key) and the daemon (what
// the chain and the pool hold). Both speak JSON-RPC 2.0 on /json_rpc and plain JSON on other paths,
// and both may demand HTTP digest authentication (`--rpc-login user:pass`): the credentials come from
// the URL's user:password or the settings, and are never logged.
//
// Every answer is read with a size cap and checked before use (a malformed one is a
// FaultyNodeError). Amounts are 64-bit piconero integers that JSON numbers cannot hold exactly past
// 2^53: every integer of 16 digits or more is turned into a string before parsing, so no amount ever
// passes through a double.
import { readCapped } from '../capped-body.ts';
import { DigestLogin } from './digest.ts';
import { FaultyNodeError, NodeError, NodeUnreachableError } from '../errors.ts';
import { MAX_HEIGHT } from '../node-values.ts';
import type { Priority } from '../../registry/index.ts';

/** The payout `priority` as Monero's transfer priority (1 unimportant .. 4 priority; 0 is the wallet's own default, never sent). */
export const MONERO_PRIORITY: Readonly<Record<Priority, 1 | 2 | 3 | 4>> = { economy: 1, recommended: 2, high: 3, highest: 4 };

/** The largest answer the payout path reads (a batch of stored transactions, a transfer with its metadata). */
const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
const U64_MAX = 0xffff_ffff_ffff_ffffn;

/** One server (wallet RPC or daemon) over HTTP, with digest authentication when it asks for it. */
export class MoneroHttp {
  private readonly base: string;
  private readonly login: DigestLogin | null;

  constructor(
    url: string,
    /** Credentials from the settings, used when the URL has none. */
    login: { user: string; password: string } | null,
    private readonly what: string,
    private readonly timeoutMs = 60_000,
  ) {
    const u = new URL(url);
    const user = u.username ? decodeURIComponent(u.username) : (login?.user ?? null);
    this.login = user === null ? null : new DigestLogin(user, u.username ? decodeURIComponent(u.password) : (login?.password ?? ''));
    u.username = '';
    u.password = '';
    this.base = u.toString().replace(/\/+$/, '');
  }

  /** The server's URL without credentials (for messages). */
  get url(): string {
    return this.base;
  }

  /** POSTs `body` to `path` and returns the parsed answer (big integers as strings). */
  async post(path: string, body: unknown, method: string): Promise<unknown> {
    const req = { url: `${this.base}${path}`, headers: { 'content-type': 'application/json' }, body: toJson(body), signal: AbortSignal.timeout(this.timeoutMs), method };
    let res: Response;
    try {
      res = this.login ? await this.login.post(req) : await fetch(req.url, { method: 'POST', headers: req.headers, body: req.body, signal: req.signal });
    } catch (err) {
      if (err instanceof FaultyNodeError) throw err;
      throw new NodeUnreachableError(method, null, `the ${this.what} at ${this.base} does not answer (${err instanceof Error ? err.message : String(err)})`);
    }
    if (res.status === 401) {
      await res.body?.cancel().catch(() => {});
      if (this.login === null) throw new NodeError(method, 401, `the ${this.what} at ${this.base} asks for a login: give user:password in its URL or the settings`);
      throw new NodeError(method, 401, `the ${this.what} at ${this.base} refused the login`);
    }
    let text: string;
    try {
      text = await readCapped(res, MAX_RESPONSE_BYTES, method);
    } catch (err) {
      if (err instanceof FaultyNodeError) throw err;
      throw new NodeUnreachableError(method, null, `the ${this.what} at ${this.base} broke off its answer (${err instanceof Error ? err.message : String(err)})`);
    }
    if (!res.ok) throw new NodeError(method, res.status, `HTTP ${res.status} from the ${this.what}: ${text.slice(0, 200)}`);
    try {
      return JSON.parse(text.replace(/([:[,]\s*)(\d{16,})(?=\s*[,\]}])/g, '$1"$2"')) as unknown;
    } catch {
      throw new FaultyNodeError(method, `the ${this.what} answered something that is not JSON`);
    }
  }

  /** A JSON-RPC 2.0 call on /json_rpc; an error object is a NodeError with its code. */
  async call(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const answer = await this.post('/json_rpc', { jsonrpc: '2.0', id: '0', method, params }, method);
    if (!isRecord(answer)) throw new FaultyNodeError(method, 'the answer is not a JSON-RPC envelope');
    if (answer.error !== undefined && answer.error !== null) {
      const e = isRecord(answer.error) ? answer.error : {};
      throw new NodeError(method, typeof e.code === 'number' ? e.code : null, typeof e.message === 'string' ? e.message.slice(0, 300) : 'an error');
    }
    if (!isRecord(answer.result)) throw new FaultyNodeError(method, 'the answer has no result object');
    return answer.result;
  }

  /** One of the daemon's plain JSON endpoints (/get_transactions, /is_key_image_spent); status must be OK. */
  async other(path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const answer = await this.post(`/${path}`, body, path);
    if (!isRecord(answer)) throw new FaultyNodeError(path, 'the answer is not an object');
    if (answer.status !== 'OK') throw new NodeError(path, null, `status ${String(answer.status).slice(0, 100)}`);
    return answer;
  }
}

/** JSON with every bigint written as a bare integer (a piconero amount past 2^53 stays exact). */
function toJson(body: unknown): string {
  return JSON.stringify(body, (_k, v: unknown) => (typeof v === 'bigint' ? `\u0000u64:${v}` : v)).replace(/"\\u0000u64:(\d+)"/g, '$1');
}

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A piconero amount (a JSON number below 2^53 or the digit string the parser made of a larger one). */
export function piconero(method: string, what: string, v: unknown): bigint {
  const ok = (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) || (typeof v === 'string' && /^\d{1,20}$/.test(v));
  const n = ok ? BigInt(v as number | string) : -1n;
  if (n < 0n || n > U64_MAX) throw new FaultyNodeError(method, `the answer's ${what} is not an amount in piconero`);
  return n;
}

export function heightOf(method: string, what: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0 || v > MAX_HEIGHT) throw new FaultyNodeError(method, `the answer's ${what} is not a height`);
  return v;
}

const HASH = /^[0-9a-f]{64}$/;
export function hashOf(method: string, what: string, v: unknown): string {
  if (typeof v !== 'string' || !HASH.test(v)) throw new FaultyNodeError(method, `the answer's ${what} is not 64 hex digits`);
  return v;
}

/** A transaction the wallet built and signed but did not hand to the daemon (`transfer` with do_not_relay). */
export interface BuiltTransfer {
  txid: string;
  /** Piconero. */
  fee: bigint;
  /** The signed transaction, hex. */
  blob: string;
  /** What `relay_tx` takes to broadcast it (hex). */
  metadata: string;
  /** The key images of the outputs it spends: once one is spent by another transaction, this one can never be mined. */
  keyImages: string[];
}

/** Where the daemon has a transaction. */
export type TxPlace = { at: 'pool' } | { at: 'block'; height: number; confirmations: number } | { at: 'unknown' };

/** The calls of the payout path (./outgoing.ts), over the wallet RPC and the daemon. */
export interface MoneroPayoutNode {
  /** The float wallet's primary address (account 0, index 0). */
  address(): Promise<string>;
  /** Account 0's balance and what of it is unlocked, in piconero. */
  balance(): Promise<{ balance: bigint; unlocked: bigint }>;
  /** Asks the wallet to read new blocks (so its balance and outputs are current). */
  refresh(): Promise<void>;
  /**
   * Builds and signs one payment from account 0 at `priority` (1..4) without relaying it. Throws
   * NodeError with the wallet's message when it cannot (not enough unlocked money: code -4 or -17).
   */
  build(to: string, amount: bigint, priority: number): Promise<BuiltTransfer>;
  /** Broadcasts a built transaction through the wallet (relaying one the daemon already has is harmless). */
  relay(metadata: string): Promise<string>;
  /** Where the daemon has these transactions. */
  places(txids: readonly string[]): Promise<Map<string, TxPlace>>;
  /** Whether each key image is spent in a block (in the pool does not count). */
  spentInChain(keyImages: readonly string[]): Promise<boolean[]>;
  /** The daemon's block count (the height the next block gets). */
  height(): Promise<number>;
}

/** The wallet and daemon servers behind MoneroPayoutNode. */
export function rpcPayoutNode(wallet: MoneroHttp, daemon: MoneroHttp): MoneroPayoutNode {
  return {
    async address() {
      const r = await wallet.call('get_address', { account_index: 0, address_index: [0] });
      if (typeof r.address !== 'string' || r.address.length > 200) throw new FaultyNodeError('get_address', 'no address');
      return r.address;
    },
    async balance() {
      const r = await wallet.call('get_balance', { account_index: 0 });
      return { balance: piconero('get_balance', 'balance', r.balance), unlocked: piconero('get_balance', 'unlocked balance', r.unlocked_balance) };
    },
    async refresh() {
      await wallet.call('refresh', {});
    },
    async build(to, amount, priority) {
      const m = 'transfer';
      const r = await wallet.call(m, {
        destinations: [{ address: to, amount }],
        account_index: 0,
        priority,
        do_not_relay: true,
        get_tx_hex: true,
        get_tx_metadata: true,
      });
      if (typeof r.unsigned_txset === 'string' && r.unsigned_txset !== '') {
        throw new FaultyNodeError(m, 'the payout wallet is view-only (it made an unsigned transaction): the float must be a full wallet that can sign');
      }
      const metadata = r.tx_metadata;
      const blob = r.tx_blob;
      if (typeof metadata !== 'string' || !/^[0-9a-f]+$/.test(metadata) || typeof blob !== 'string' || !/^[0-9a-f]+$/.test(blob)) {
        throw new FaultyNodeError(m, 'the wallet gave no signed transaction and metadata');
      }
      const ki = isRecord(r.spent_key_images) ? r.spent_key_images.key_images : undefined;
      if (!Array.isArray(ki) || ki.length === 0 || ki.length > 1000) throw new FaultyNodeError(m, 'the wallet named no key images of the inputs');
      return { txid: hashOf(m, 'tx_hash', r.tx_hash), fee: piconero(m, 'fee', r.fee), blob, metadata, keyImages: ki.map((k) => hashOf(m, 'key image', k)) };
    },
    async relay(metadata) {
      return hashOf('relay_tx', 'tx_hash', (await wallet.call('relay_tx', { hex: metadata })).tx_hash);
    },
    async places(txids) {
      const m = 'get_transactions';
      const out = new Map<string, TxPlace>();
      if (txids.length === 0) return out;
      const r = await daemon.other(m, { txs_hashes: txids, decode_as_json: false, prune: true });
      const missed = Array.isArray(r.missed_tx) ? r.missed_tx : [];
      for (const id of missed) out.set(hashOf(m, 'missed txid', id), { at: 'unknown' });
      for (const t of Array.isArray(r.txs) ? r.txs : []) {
        if (!isRecord(t)) throw new FaultyNodeError(m, 'a transaction that is not an object');
        const id = hashOf(m, 'tx_hash', t.tx_hash);
        if (t.in_pool === true) out.set(id, { at: 'pool' });
        else out.set(id, { at: 'block', height: heightOf(m, 'block height', t.block_height), confirmations: heightOf(m, 'confirmations', t.confirmations ?? 0) });
      }
      for (const id of txids) if (!out.has(id)) out.set(id, { at: 'unknown' });
      return out;
    },
    async height() {
      return heightOf('get_block_count', 'count', (await daemon.call('get_block_count')).count);
    },
    async spentInChain(keyImages) {
      const m = 'is_key_image_spent';
      const r = await daemon.other(m, { key_images: keyImages });
      const s = r.spent_status;
      if (!Array.isArray(s) || s.length !== keyImages.length) throw new FaultyNodeError(m, 'not one status per key image');
      return s.map((v) => {
        if (v !== 0 && v !== 1 && v !== 2) throw new FaultyNodeError(m, 'a status other than 0, 1 or 2');
        return v === 1;
      });
    },
  };
}
