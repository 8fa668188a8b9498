// The `ton` chain driver: Toncoin and the configured jettons (USDT) received watch-only into the
// merchant's own wallet, each invoice told apart by its comment. See docs/networks.md for the
// operator's side. Detection lives in ./scan.ts; this class ties it to the gateway: one scanner per
// network (its caller holds the `scan:<NETWORK>` lock), the head (the masterchain seqno) judged by
// the shared head guard, and the node's status. Payouts are not offered on TON yet: canCover says
// so and send refuses for good, so a payout's funds return at once.
import type { ChainDriver, ChainSink, Coverage, NodeStatus, PaymentRequest, SendRequest, WatchedAddress } from '../contract.ts';
import { DriverClosedError, SendRejectedError } from '../errors.ts';
import { HeadGuard } from '../head-guard.ts';
import type { NetworkDef } from '../../registry/index.ts';
import type { Storage } from '../../db/dialect.ts';
import { TonApi } from './api.ts';
import { TON_NODE_LIMITS, TON_PAGE, TON_PAGES_PER_POLL } from './limits.ts';
import { TonScanner, type TonJetton } from './scan.ts';
import { tonDb } from './schema.ts';

export type TonLog = (level: 'info' | 'warn' | 'error', msg: string, data?: Record<string, unknown>) => void;

export interface TonDriverOptions {
  network: NetworkDef;
  apiUrl: string;
  apiKey?: string;
  /** Which TON the node serves: what status() reports as the chain. */
  chain: 'mainnet' | 'testnet';
  confirmations: number;
  jettons: TonJetton[];
  storage: Storage;
  now?: () => number;
  log?: TonLog;
  onRequest?: (path: string) => void;
  /** How far back the first walk of a wallet not scanned before reads (default one hour). */
  lookbackSeconds?: number;
  /** Pages one poll reads per wallet (default 20). */
  pagesPerPoll?: number;
  /** Transactions per page (default and most: 100). */
  pageSize?: number;
  /** Masterchain blocks the head may grow between two polls before the node is judged faulty. */
  maxHeadJump?: number;
  /** An answer larger than this is the node's fault. */
  maxResponseBytes?: number;
  timeoutMs?: number;
}

export class TonDriver implements ChainDriver {
  readonly kind = 'ton';
  readonly watchesAddresses = true;
  readonly network: NetworkDef;
  readonly confirmations: number;
  readonly api: TonApi;
  readonly scanner: TonScanner;
  private readonly chain: 'mainnet' | 'testnet';
  private readonly heads: HeadGuard;
  private closed = false;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(opts: TonDriverOptions) {
    if (!Number.isSafeInteger(opts.confirmations) || opts.confirmations < 1) throw new RangeError(`${opts.network.code}: confirmations must be a positive integer`);
    this.network = { ...opts.network, confirmations: opts.confirmations };
    this.confirmations = opts.confirmations;
    this.chain = opts.chain;
    this.api = new TonApi(opts.apiUrl, { apiKey: opts.apiKey, onRequest: opts.onRequest, maxResponseBytes: opts.maxResponseBytes ?? TON_NODE_LIMITS.maxResponseBytes, timeoutMs: opts.timeoutMs });
    // The masterchain never reorganises, but a provider balancing over several liteservers may
    // answer from one a few blocks behind: a small step back is tolerated, a fall is a fault.
    this.heads = new HeadGuard(opts.maxHeadJump ?? TON_NODE_LIMITS.maxHeadJump, 16);
    const native = opts.network.currencies.find((c) => c.native);
    if (!native) throw new Error(`${opts.network.code}: the registry lists no native currency`);
    this.scanner = new TonScanner({
      network: this.network.code,
      api: this.api,
      db: tonDb(opts.storage.db),
      storage: opts.storage,
      native: { code: native.code, decimals: native.decimals },
      jettons: opts.jettons,
      confirmations: opts.confirmations,
      now: opts.now ?? Date.now,
      lookbackSeconds: opts.lookbackSeconds ?? 3600,
      pagesPerPoll: Math.max(1, opts.pagesPerPoll ?? TON_PAGES_PER_POLL),
      pageSize: Math.min(TON_PAGE, Math.max(2, opts.pageSize ?? TON_PAGE)),
      log: opts.log ?? (() => {}),
    });
  }

  /** Deposit keys `<merchant wallet>#<comment>`; anything else is not a TON deposit and is ignored. */
  watch(addresses: readonly WatchedAddress[]): void {
    this.scanner.watch(addresses.map((a) => a.address));
  }

  get watchedCount(): number {
    return this.scanner.watchedCount;
  }

  poll(sink: ChainSink, signal?: AbortSignal): Promise<void> {
    return this.exclusive(async () => {
      if (this.closed) throw new DriverClosedError(this.network.code);
      const seqno = this.heads.check('getMasterchainInfo', await this.api.masterchainSeqno());
      await this.scanner.poll(sink, seqno, signal);
      this.heads.commit(seqno);
    });
  }

  /** The masterchain seqno is the head; the chain is the configured one (toncenter's v2 methods do
   * not name the global id it serves). */
  async status(): Promise<NodeStatus> {
    const head = await this.api.masterchainSeqno();
    return { chain: this.chain, head, headTime: null };
  }

  async canCover(req: PaymentRequest): Promise<Coverage> {
    return { covered: false, currency: req.currency, message: this.noPayouts() };
  }

  async send(_req: SendRequest): Promise<{ txid: string }> {
    if (this.closed) throw new DriverClosedError(this.network.code);
    throw new SendRejectedError('rejected', this.noPayouts());
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.queue.catch(() => {});
  }

  private noPayouts(): string {
    return `${this.network.code} receives watch-only (into the merchant's own wallet): the gateway holds no TON of its own and does not send payouts or refunds on this network`;
  }

  /** Polls never overlap within one driver. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => {});
    return run;
  }
}
