// The `solana` chain driver: SOL and the configured SPL tokens (USDC, USDT) received watch-only
// into the merchant's own wallet, each invoice told apart by its Solana Pay reference key. See
// docs/networks.md for the operator's side. Detection lives in ./scan.ts; this class ties it to
// the gateway: one scanner per network (its caller holds the `scan:<NETWORK>` lock), the head
// (the confirmed slot) judged by the shared head guard, and the node's status. Payouts leave from
// the payout float; without one they wait, as on other watch-only networks.
import type { ChainDriver, ChainSink, Coverage, NodeStatus, PaymentRequest, PayoutWallet, SendRequest, WatchedAddress } from '../contract.ts';
import { DriverClosedError, HotWalletShortError } from '../errors.ts';
import { HeadGuard } from '../head-guard.ts';
import type { NetworkDef } from '../../registry/index.ts';
import type { Storage } from '../../db/dialect.ts';
import { checkSlot } from './answers.ts';
import { SOLANA_NODE_LIMITS, SOLANA_PAGE, SOLANA_PAGES_PER_POLL } from './limits.ts';
import { SolanaRpc } from './rpc.ts';
import { SolanaScanner, type SolanaToken } from './scan.ts';
import type { SolanaCluster } from './custody.ts';
import type { SolanaFloat } from './float.ts';
import { rpcPayoutNode } from './float-node.ts';
import { SolanaPayouts, type SolanaPayoutsOptions } from './outgoing.ts';

export type SolanaLog = (level: 'info' | 'warn' | 'error', msg: string, data?: Record<string, unknown>) => void;


export interface SolanaDriverOptions {
  network: NetworkDef;
  rpcUrl: string;
  /** Which cluster the node serves: what status() reports as the chain. */
  cluster: SolanaCluster;
  /** What a finalized payment is reported with (the network's required confirmations). */
  confirmations: number;
  tokens: SolanaToken[];
  storage: Storage;
  now?: () => number;
  log?: SolanaLog;
  /** Called with each JSON-RPC method, once per call (metrics, tests). */
  onRequest?: (method: string) => void;
  /** Called once per HTTP request to the node (a batch counts once). */
  onHttp?: () => void;
  /** How far back the first walk of an account not scanned before reads (default one hour). */
  lookbackSeconds?: number;
  pagesPerPoll?: number;
  pageSize?: number;
  maxHeadJump?: number;
  maxResponseBytes?: number;
  timeoutMs?: number;
  /** The payout float (null: none configured, payouts wait). */
  float?: SolanaFloat | null;
  /** Timings of the payout path (tests shorten them). */
  payoutTimings?: Partial<Pick<SolanaPayoutsOptions, 'findWaitMs' | 'rebroadcastAfterMs'>>;
}

export class SolanaDriver implements ChainDriver {
  readonly kind = 'solana';
  readonly watchesAddresses = true;
  readonly network: NetworkDef;
  readonly confirmations: number;
  readonly rpc: SolanaRpc;
  readonly scanner: SolanaScanner;
  readonly cluster: SolanaCluster;
  /** Payouts and refunds from the float (./outgoing.ts); null without one. */
  readonly payouts: SolanaPayouts | null;
  private readonly heads: HeadGuard;
  private closed = false;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(opts: SolanaDriverOptions) {
    if (!Number.isSafeInteger(opts.confirmations) || opts.confirmations < 1) throw new RangeError(`${opts.network.code}: confirmations must be a positive integer`);
    this.network = { ...opts.network, confirmations: opts.confirmations };
    this.confirmations = opts.confirmations;
    this.cluster = opts.cluster;
    this.rpc = new SolanaRpc(opts.rpcUrl, { onRequest: opts.onRequest, onHttp: opts.onHttp, maxResponseBytes: opts.maxResponseBytes ?? SOLANA_NODE_LIMITS.maxResponseBytes, timeoutMs: opts.timeoutMs });
    // Slots never go back at `confirmed`, but a provider balancing over several nodes may answer
    // from one a little behind: a small step back is tolerated, a fall is a fault.
    this.heads = new HeadGuard(opts.maxHeadJump ?? SOLANA_NODE_LIMITS.maxHeadJump, 150);
    const native = opts.network.currencies.find((c) => c.native);
    if (!native) throw new Error(`${opts.network.code}: the registry lists no native currency`);
    this.scanner = new SolanaScanner({
      network: this.network.code,
      rpc: this.rpc,
      storage: opts.storage,
      native: { code: native.code, decimals: native.decimals },
      tokens: opts.tokens,
      confirmations: opts.confirmations,
      now: opts.now ?? Date.now,
      lookbackSeconds: opts.lookbackSeconds ?? 3600,
      pagesPerPoll: Math.max(1, opts.pagesPerPoll ?? SOLANA_PAGES_PER_POLL),
      pageSize: Math.min(SOLANA_PAGE, Math.max(2, opts.pageSize ?? SOLANA_PAGE)),
      log: opts.log ?? (() => {}),
    });
    const tokens = opts.tokens;
    this.payouts = opts.float
      ? new SolanaPayouts({
          network: this.network.code,
          node: rpcPayoutNode(this.rpc),
          db: opts.storage.db,
          storage: opts.storage,
          native: { code: native.code, decimals: native.decimals },
          tokens,
          float: opts.float,
          confirmations: opts.confirmations,
          now: opts.now ?? Date.now,
          log: opts.log ?? (() => {}),
          findWaitMs: 5_000,
          rebroadcastAfterMs: 10_000,
          ...opts.payoutTimings,
        })
      : null;
  }

  /** Deposit keys `<merchant wallet>#<reference>`; anything else is not a Solana deposit and is ignored. */
  watch(addresses: readonly WatchedAddress[]): void {
    this.scanner.watch(addresses.map((a) => a.address));
  }

  get watchedCount(): number {
    return this.scanner.watchedCount;
  }

  /** The confirmed slot: what the walks read up to. */
  async head(): Promise<number> {
    return checkSlot('getSlot', await this.rpc.call('getSlot', [{ commitment: 'confirmed' }]));
  }

  poll(sink: ChainSink, signal?: AbortSignal): Promise<void> {
    return this.exclusive(async () => {
      if (this.closed) throw new DriverClosedError(this.network.code);
      const slot = this.heads.check('getSlot', await this.head());
      await this.scanner.poll(sink, slot, signal);
      if (this.payouts && !signal?.aborted) await this.payouts.track(sink);
      this.heads.commit(slot);
    });
  }

  /** The confirmed slot is the head; the chain is the configured cluster (the allowed methods do
   * not name the cluster a node serves). */
  async status(): Promise<NodeStatus> {
    return { chain: this.cluster, head: await this.head(), headTime: null };
  }

  /** Whether the float can pay this now (the amount, the fee, a token account's rent); refused without a float. */
  async canCover(req: PaymentRequest): Promise<Coverage> {
    if (!this.payouts) return { covered: false, currency: req.currency, message: this.noFloat() };
    return this.payouts.cover(this.payouts.parse(req));
  }

  /** The rent of the recipient's token account when the payout must create it, in SOL (./payment.ts). */
  async destinationFee(req: PaymentRequest): Promise<string> {
    if (!this.payouts) return '0';
    return this.payouts.destinationFee(this.payouts.parse(req));
  }

  /** Pays from the float; idempotent on req.id (./outgoing.ts). */
  async send(req: SendRequest): Promise<{ txid: string }> {
    if (this.closed) throw new DriverClosedError(this.network.code);
    if (!this.payouts) throw new HotWalletShortError(req.currency, this.noFloat());
    return { txid: await this.payouts.send(req.id, this.payouts.parse(req)) };
  }

  /** The float and its balances (SOL and every configured token); null without a float. */
  async payoutWallet(): Promise<PayoutWallet | null> {
    return this.payouts ? this.payouts.wallet() : null;
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
