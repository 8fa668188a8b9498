// The `ton` chain driver: Toncoin and the configured jettons (USDT) received watch-only into the
// merchant's own wallet, each invoice told apart by its comment. See docs/networks.md for the
// operator's side. Detection lives in ./scan.ts; this class ties it to the gateway: one scanner per
// network (its caller holds the `scan:<NETWORK>` lock), the head (the masterchain seqno) judged by
// the shared head guard, and the node's status. Payouts and refunds leave from the payout float
// (./outgoing.ts), followed at each poll; without a float they wait, as on other watch-only networks.
import type { ChainDriver, ChainSink, Coverage, NodeStatus, PaymentRequest, PayoutWallet, SendRequest, WatchedAddress } from '../contract.ts';
import { DriverClosedError, HotWalletShortError } from '../errors.ts';
import { Decimal } from '../../money/decimal.ts';
import type { TonFloat } from './float.ts';
import { TonPayouts, type TonPayoutsOptions } from './outgoing.ts';
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
  /** The payout float (null: none configured, payouts wait). */
  float?: TonFloat | null;
  /** Timings of the payout path (tests shorten them). */
  payoutTimings?: Partial<Pick<TonPayoutsOptions, 'validForSeconds' | 'expiryMarginSeconds' | 'findWaitMs' | 'rebroadcastAfterMs'>>;
}

export class TonDriver implements ChainDriver {
  readonly kind = 'ton';
  readonly watchesAddresses = true;
  readonly network: NetworkDef;
  readonly confirmations: number;
  readonly api: TonApi;
  readonly scanner: TonScanner;
  readonly payouts: TonPayouts | null;
  private readonly chain: 'mainnet' | 'testnet';
  private readonly jettons: TonJetton[];
  private readonly heads: HeadGuard;
  private closed = false;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(opts: TonDriverOptions) {
    if (!Number.isSafeInteger(opts.confirmations) || opts.confirmations < 1) throw new RangeError(`${opts.network.code}: confirmations must be a positive integer`);
    this.network = { ...opts.network, confirmations: opts.confirmations };
    this.confirmations = opts.confirmations;
    this.chain = opts.chain;
    this.jettons = opts.jettons;
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
    this.payouts = opts.float
      ? new TonPayouts({
          network: this.network.code,
          api: this.api,
          db: tonDb(opts.storage.db),
          storage: opts.storage,
          native: { code: native.code, decimals: native.decimals },
          jettons: opts.jettons,
          float: opts.float,
          confirmations: opts.confirmations,
          now: opts.now ?? Date.now,
          log: opts.log ?? (() => {}),
          validForSeconds: 90,
          expiryMarginSeconds: 30,
          findWaitMs: 10_000,
          rebroadcastAfterMs: 30_000,
          ...opts.payoutTimings,
        })
      : null;
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
      if (this.payouts && !signal?.aborted) await this.payouts.track(sink, seqno);
      this.heads.commit(seqno);
    });
  }

  /** The masterchain seqno is the head; the chain is the configured one (toncenter's v2 methods do
   * not name the global id it serves). */
  async status(): Promise<NodeStatus> {
    const head = await this.api.masterchainSeqno();
    return { chain: this.chain, head, headTime: null };
  }

  /** Whether the float can pay this now (the amount and the fees); refused when there is no float. */
  async canCover(req: PaymentRequest): Promise<Coverage> {
    if (!this.payouts) return { covered: false, currency: req.currency, message: this.noFloat() };
    return this.payouts.cover(this.payouts.parse(req));
  }

  /** Pays from the float; idempotent on req.id (./outgoing.ts). */
  async send(req: SendRequest): Promise<{ txid: string }> {
    if (this.closed) throw new DriverClosedError(this.network.code);
    if (!this.payouts) throw new HotWalletShortError(req.currency, this.noFloat());
    const payment = this.payouts.parse(req);
    return { txid: await this.payouts.send(req.id, payment) };
  }

  /** The float and its balances (TON and every configured jetton); null without a float. */
  async payoutWallet(): Promise<PayoutWallet | null> {
    const p = this.payouts;
    if (!p) return null;
    const native = this.network.currencies.find((c) => c.native)!;
    const st = await p.reader.floatState();
    const balances: Record<string, string> = { [native.code]: Decimal.fromBaseUnits(st.balance, native.decimals).toString() };
    for (const j of this.jettons) balances[j.code] = Decimal.fromBaseUnits(await p.reader.jettonBalance(j, await p.reader.jettonWalletOf(j, p.floatRaw)), j.decimals).toString();
    return { address: p.reader.float.address, balances };
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.queue.catch(() => {});
  }

  private noFloat(): string {
    return `${this.network.code} has no payout float configured: nothing can be paid on this watch-only network`;
  }

  /** Polls never overlap within one driver. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => {});
    return run;
  }
}
