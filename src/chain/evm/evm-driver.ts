// The `evm` chain driver: any EVM network (ETH, BSC, POLYGON, ARBITRUM, AVALANCHE, a local anvil)
// over plain JSON-RPC. See docs/networks.md for the operator's side. This class composes the
// parts: ./chain.ts (the node, assets, fees), ./scan.ts (detection; reorganisations through
// src/chain/reorg.ts), ./outgoing.ts (what we sign, store, broadcast and track), ./send.ts
// (payouts from the hot wallet), ./sweep.ts (deposit addresses to the hot wallet, hot custody),
// ./flush.ts (forwarders to the merchant's cold address, watch-only custody).
// The caller holds the network's scanner lock around poll(), sweep() and flush() (src/chain/networks.ts).
import type { ChainDriver, ChainLog, ChainSink, Coverage, NodeStatus, PaymentRequest, PayoutWallet, SendRequest, WatchedAddress } from '../contract.ts';
import { DriverClosedError } from '../errors.ts';
import { HeadGuard } from '../head-guard.ts';
import { EVM_NODE_LIMITS } from './limits.ts';
import { reorgWindow } from '../reorg.ts';
import type { NetworkDef } from '../../registry/index.ts';
import { EvmChain, type Asset, type EvmChainOptions } from './chain.ts';
import { EvmOutgoing, type OutgoingRow } from './outgoing.ts';
import { EvmPayments } from './send.ts';
import { EvmAllowances } from './pull.ts';
import { EvmScanner } from './scan.ts';
import { EvmSweeper, type EvmSweepPolicy } from './sweep.ts';
import { DEFAULT_FLUSH_POLICY, EvmFlusher, type EvmFlushPolicy, type FlushReport, type FlushRequest } from './flush.ts';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { CustodyMode } from '../network-settings.ts';
import { num } from './rpc.ts';

export type EvmLog = ChainLog;

export interface EvmDriverOptions extends EvmChainOptions {
  /** Blocks per eth_getLogs range (default 100). */
  pollBatch?: number;
  /** Batches per poll() call (default 20); the rest continues on the next call. */
  maxBatchesPerPoll?: number;
  sweep?: EvmSweepPolicy;
  /** First block to scan when the network has never been scanned (default head - max(confirmations, 128)). */
  startBlock?: number;
  /** Rebroadcast a sent but unmined transaction after this long (default 60 s). */
  rebroadcastAfterMs?: number;
  /** Blocks the head may grow between two polls before the node is judged faulty. */
  maxHeadJump?: number;
  /** How received funds are held (default hot: deposit addresses of the seed, swept). Watch-only:
   * deposit addresses are forwarders, flushed to their cold address, never swept nor given gas. */
  custody?: CustodyMode;
  /** Watch-only: when and what to flush. */
  flush?: EvmFlushPolicy;
  /** Watch-only: the key that pays the gas of flushes (and of the factory's deployment); none: no flushing. */
  relayer?: PrivateKeyAccount | null;
}

export class EvmDriver implements ChainDriver {
  readonly kind = 'evm';
  readonly watchesAddresses = true;
  readonly network: NetworkDef;
  readonly chainId: number;
  readonly confirmations: number;
  readonly sweepPolicy: EvmSweepPolicy;
  readonly custody: CustodyMode;

  private readonly chain: EvmChain;
  private readonly scanner: EvmScanner;
  private readonly outgoing: EvmOutgoing;
  private readonly payments: EvmPayments;
  /** Pulls from payers' allowances (automatic renewals): ./pull.ts. */
  readonly allowances: EvmAllowances;
  private readonly sweeper: EvmSweeper;
  private readonly flusher: EvmFlusher | null;
  private readonly heads: HeadGuard;
  private closed = false;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(opts: EvmDriverOptions) {
    const chain = new EvmChain(opts);
    this.chain = chain;
    this.network = chain.network;
    this.chainId = chain.chainId;
    this.confirmations = chain.confirmations;
    this.scanner = new EvmScanner(chain, {
      batch: Math.max(1, opts.pollBatch ?? 100),
      maxBatches: Math.max(1, opts.maxBatchesPerPoll ?? 20),
      startBlock: opts.startBlock,
    });
    this.outgoing = new EvmOutgoing(chain, opts.rebroadcastAfterMs ?? 60_000, (row) => this.broadcast(row));
    this.payments = new EvmPayments(chain, this.outgoing);
    this.allowances = new EvmAllowances(chain, this.outgoing);
    this.custody = opts.custody ?? 'hot';
    // A watch-only network holds no key of its deposit addresses: nothing to sweep with.
    this.sweepPolicy = opts.sweep ?? { enabled: false, minNative: '0', minToken: {} };
    this.sweeper = new EvmSweeper(chain, this.outgoing, this.custody === 'hot' ? this.sweepPolicy : { ...this.sweepPolicy, enabled: false });
    this.flusher = this.custody === 'watch-only' ? new EvmFlusher(chain, this.outgoing, opts.flush ?? DEFAULT_FLUSH_POLICY, opts.relayer ?? null) : null;
    this.heads = new HeadGuard(opts.maxHeadJump ?? EVM_NODE_LIMITS.maxHeadJump, reorgWindow(chain.confirmations));
  }

  /** Where payouts come from: m/44'/coin'/1'/0/0 of the seed, or a watch-only network's payout float (throws when it has none). */
  get hotWallet(): `0x${string}` {
    return this.chain.hotWallet;
  }

  watch(addresses: readonly WatchedAddress[]): void {
    for (const a of addresses) this.chain.watched.set(a.address.toLowerCase(), a.path);
  }

  /** The configured tokens (contracts checksummed). */
  get tokens(): readonly Asset[] {
    return this.chain.tokens;
  }

  /** Number of watched addresses (diagnostics). */
  get watchedCount(): number {
    return this.chain.watched.size;
  }

  /** The relayer's address on a watch-only network with a relayer key, else null. */
  get relayer(): `0x${string}` | null {
    return this.flusher?.relayerAddress ?? null;
  }

  /** New blocks, our own transactions' receipts, and a sweep (hot) or flush (watch-only) round when one is due. */
  poll(sink: ChainSink): Promise<void> {
    return this.exclusive(async () => {
      this.open();
      await this.chain.checkChain();
      const head = this.heads.check('eth_blockNumber', await this.chain.rpc.blockNumber());
      await this.scanner.poll(sink, head);
      await this.outgoing.track(sink, head);
      if (this.flusher) await this.flusher.maybeRun();
      else await this.sweeper.maybeRun();
      this.heads.commit(head);
    });
  }

  /** One sweep round now (tests, the CLI); with a sweep policy, poll() also runs one when due. */
  sweep(): Promise<void> {
    return this.exclusive(async () => {
      this.open();
      await this.sweeper.run();
    });
  }

  /**
   * One flush round now (watch-only networks): by default the forwarders with confirmed transfers
   * not yet flushed, thresholds applied (what poll() runs when due); `everyForwarder`: every
   * forwarder with a balance, no thresholds (`satchel flush`). Returns the transactions sent.
   */
  flush(req: FlushRequest = {}): Promise<FlushReport> {
    return this.exclusive(async () => {
      this.open();
      if (!this.flusher) throw new Error(`${this.network.code} is in hot custody: its deposit addresses are swept, not flushed`);
      return this.flusher.run(req);
    });
  }

  canCover(req: PaymentRequest): Promise<Coverage> {
    return this.payments.canCover(req);
  }

  send(req: SendRequest): Promise<{ txid: string }> {
    this.open();
    return this.payments.send(req);
  }

  payoutWallet(): Promise<PayoutWallet | null> {
    return this.payments.wallet();
  }

  /** eth_chainId, eth_blockNumber and that block's timestamp; beside a poll, not queued behind it. */
  async status(): Promise<NodeStatus> {
    const [id, head] = await Promise.all([this.chain.rpc.chainId(), this.chain.rpc.blockNumber()]);
    const block = await this.chain.rpc.header(head);
    return { chain: String(num(id)), head, headTime: block ? num(block.timestamp) * 1000 : null };
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.queue.catch(() => {});
  }

  /** Sends stored signed bytes; "already known" counts as sent. Throws NodeError otherwise. */
  protected async broadcast(row: OutgoingRow): Promise<void> {
    await this.outgoing.broadcast(row);
  }

  private open(): void {
    if (this.closed) throw new DriverClosedError(this.network.code);
  }

  /** poll(), sweep() and flush() of one driver never overlap. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => {});
    return run;
  }
}
