// The `monero` chain driver: XMR received watch-only into the merchant's own wallet, each invoice
// paid to a fresh subaddress of it. See docs/networks.md for the operator's side. Detection lives
// in ./scan.ts with the view-only wallets of ./wallets.ts; this class ties them to the gateway: one
// scanner per network (its caller holds the `scan:<NETWORK>` lock), the daemon's head judged by the
// shared head guard, and the daemon's status. Payouts go through the operator's float wallet
// (./outgoing.ts) when `payout_wallet_rpc_url` is set.
import type { ChainDriver, ChainSink, Coverage, NodeStatus, PaymentRequest, PayoutWallet, SendRequest, WatchedAddress } from '../contract.ts';
import { DriverClosedError, FaultyNodeError, HotWalletShortError, WrongChainError } from '../errors.ts';
import { HeadGuard } from '../head-guard.ts';
import type { NetworkDef } from '../../registry/index.ts';
import type { Storage } from '../../db/dialect.ts';
import { MONERO_NODE_LIMITS, MONERO_REORG_DEPTH } from './limits.ts';
import { MoneroRpc, uint } from './rpc.ts';
import { MoneroScanner } from './scan.ts';
import { ViewWallets, type MoneroNetType } from './wallets.ts';
import type { MoneroPayouts } from './outgoing.ts';

export type MoneroLog = (level: 'info' | 'warn' | 'error', msg: string, data?: Record<string, unknown>) => void;

export interface MoneroDriverOptions {
  network: NetworkDef;
  daemonUrl: string;
  netType: MoneroNetType;
  confirmations: number;
  storage: Storage;
  /** Where the view-only wallet files live. */
  walletDir: string;
  /** The monero-wallet-rpc binary (default: found on PATH). */
  walletRpcBinary?: string;
  /** Payouts from the operator's float wallet (./outgoing.ts); null without `payout_wallet_rpc_url`. */
  payouts?: MoneroPayouts | null;
  now?: () => number;
  log?: MoneroLog;
  maxHeadJump?: number;
  maxResponseBytes?: number;
  timeoutMs?: number;
}

/** What get_info's `nettype` must be for a configured network: a --regtest daemon says `fakechain`
 * and uses mainnet's address formats. */
const NET_TYPES: Record<MoneroNetType, readonly string[]> = { mainnet: ['mainnet', 'fakechain'], stagenet: ['stagenet'], testnet: ['testnet'] };

export class MoneroDriver implements ChainDriver {
  readonly kind = 'monero';
  readonly watchesAddresses = true;
  readonly network: NetworkDef;
  readonly confirmations: number;
  readonly netType: MoneroNetType;
  readonly daemon: MoneroRpc;
  readonly wallets: ViewWallets;
  readonly scanner: MoneroScanner;
  private readonly heads: HeadGuard;
  private readonly payouts: MoneroPayouts | null;
  private closed = false;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(opts: MoneroDriverOptions) {
    if (!Number.isSafeInteger(opts.confirmations) || opts.confirmations < 1) throw new RangeError(`${opts.network.code}: confirmations must be a positive integer`);
    this.network = { ...opts.network, confirmations: opts.confirmations };
    this.confirmations = opts.confirmations;
    this.netType = opts.netType;
    this.payouts = opts.payouts ?? null;
    const maxResponseBytes = opts.maxResponseBytes ?? MONERO_NODE_LIMITS.maxResponseBytes;
    this.daemon = new MoneroRpc(opts.daemonUrl, { maxResponseBytes, timeoutMs: opts.timeoutMs });
    this.heads = new HeadGuard(opts.maxHeadJump ?? MONERO_NODE_LIMITS.maxHeadJump, MONERO_REORG_DEPTH);
    const native = opts.network.currencies.find((c) => c.native);
    if (!native) throw new Error(`${opts.network.code}: the registry lists no native currency`);
    const log = opts.log ?? (() => {});
    this.wallets = new ViewWallets({ binary: opts.walletRpcBinary ?? 'monero-wallet-rpc', dir: opts.walletDir, daemonUrl: opts.daemonUrl, netType: opts.netType, maxResponseBytes, log });
    this.scanner = new MoneroScanner({
      network: this.network.code,
      currency: { code: native.code, decimals: native.decimals },
      storage: opts.storage,
      wallets: this.wallets,
      daemon: this.daemon,
      confirmations: opts.confirmations,
      now: opts.now ?? Date.now,
      log,
    });
  }

  /** Subaddresses with a `watch:<custody>/0/<index>` path; anything else is ignored. */
  watch(addresses: readonly WatchedAddress[]): void {
    this.scanner.watch(addresses);
  }

  get watchedCount(): number {
    return this.scanner.watchedCount;
  }

  /** The daemon's block count (the height the next block gets) and what it says it serves. */
  private async info(): Promise<{ count: number; nettype: string; topHash: string | null }> {
    const method = 'get_info';
    const r = await this.daemon.call(method);
    const count = uint(method, r.height, 'height');
    if (count < 1) throw new FaultyNodeError(method, 'the chain has no blocks');
    const nettype = typeof r.nettype === 'string' ? r.nettype : r.mainnet === true ? 'mainnet' : r.stagenet === true ? 'stagenet' : r.testnet === true ? 'testnet' : 'unknown';
    return { count, nettype, topHash: typeof r.top_block_hash === 'string' ? r.top_block_hash : null };
  }

  private checkChain(nettype: string): void {
    if (!NET_TYPES[this.netType].includes(nettype)) {
      throw new WrongChainError(`${this.network.code}: the daemon serves ${nettype}, the configuration names ${this.netType}`);
    }
  }

  poll(sink: ChainSink, signal?: AbortSignal): Promise<void> {
    return this.exclusive(async () => {
      if (this.closed) throw new DriverClosedError(this.network.code);
      const info = await this.info();
      this.checkChain(info.nettype);
      const count = this.heads.check('get_info', info.count);
      await this.scanner.poll(sink, count, signal);
      this.heads.commit(count);
      if (this.payouts) await this.payouts.track(sink);
    });
  }

  /** The daemon's newest block and its network type (`mainnet`, `stagenet`, `testnet`, `fakechain`). */
  async status(): Promise<NodeStatus> {
    const info = await this.info();
    let headTime: number | null = null;
    try {
      const h = await this.daemon.call('get_last_block_header');
      const ts = (h.block_header as { timestamp?: unknown } | undefined)?.timestamp;
      if (typeof ts === 'number' && Number.isSafeInteger(ts)) headTime = ts * 1000;
    } catch {
      /* the time is optional */
    }
    return { chain: info.nettype, head: info.count - 1, headTime };
  }

  /** Whether the float wallet can pay this now (amount and fee); refused without a float. */
  async canCover(req: PaymentRequest): Promise<Coverage> {
    if (!this.payouts) return { covered: false, currency: req.currency, message: this.noPayouts() };
    return this.payouts.cover(this.payouts.parse(req));
  }

  /** What the float wallet's fee for this payout exceeds the registry's fee table by (./outgoing.ts). */
  async destinationFee(req: PaymentRequest): Promise<string> {
    if (!this.payouts) return '0';
    return this.payouts.destinationFee(this.payouts.parse(req));
  }

  /** Pays from the float wallet, stored before relay; idempotent on req.id (./outgoing.ts). */
  async send(req: SendRequest): Promise<{ txid: string }> {
    if (this.closed) throw new DriverClosedError(this.network.code);
    if (!this.payouts) throw new HotWalletShortError(req.currency, this.noPayouts());
    return { txid: await this.payouts.send(req.id, this.payouts.parse(req)) };
  }

  /** The float wallet and its balance; null without one. */
  async payoutWallet(): Promise<PayoutWallet | null> {
    return this.payouts ? this.payouts.wallet() : null;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.queue.catch(() => {});
    await this.wallets.close();
  }

  private noPayouts(): string {
    return `${this.network.code} has no payout wallet configured: nothing can be paid on this watch-only network`;
  }

  /** Polls never overlap within one driver. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => {});
    return run;
  }
}
