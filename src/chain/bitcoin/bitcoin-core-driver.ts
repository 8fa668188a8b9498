// The `bitcoin-core` chain driver: BTC, LTC and DOGE over a Bitcoin Core-compatible node's
// JSON-RPC (docs/networks.md). The node needs no wallet: every key is derived from the gateway's
// seed and every transaction signed in-process. Detection is in scan.ts, payouts in send.ts; this
// file checks the node and keeps the watch set. One process scans a network at a time
// (src/chain/networks.ts, Chains.poll).
//
// Watch-only custody (the network's `custody` setting): deposit addresses with a `watch:` path
// (../watch-paths.ts) derive from a merchant's extended public key. Their payments are reported as
// any other, but their outputs are the merchant's: never a coin of the gateway, never a key
// derived for them, and the merchant spending them is normal. Older addresses of the seed (from
// before the network switched) stay the gateway's coins beside them. The Bitcoin family has no
// payout float, so a watch-only network has nothing of its own to pay from: canCover and send
// refuse without looking at any coin.
import type { Kysely } from 'kysely';
import type { ChainDriver, ChainSink, Coverage, DepositPaths, NodeStatus, SendRequest, WatchedAddress } from '../contract.ts';
import { DriverClosedError, WrongChainError } from '../errors.ts';
import type { CustodyMode } from '../network-settings.ts';
import { isWatchOnlyPath } from '../watch-paths.ts';
import { BITCOIN_NODE_LIMITS } from './limits.ts';
import type { NetworkDef, Priority } from '../../registry/index.ts';
import type { Storage } from '../../db/dialect.ts';
import { btcDb, type BtcDB } from './schema.ts';
import { BitcoinRpc } from './rpc.ts';
import { BitcoinNode } from './node.ts';
import { BitcoinKeys } from './keys.ts';
import { decodePayee, scriptHex } from './address.ts';
import { chainParams, coinTypeFor, type BitcoinChain, type ChainParams } from './params.ts';
import { BtcScanner, type BtcLog } from './scan.ts';
import { BtcSender, type FeePolicy } from './send.ts';

/** See src/chain/networks.ts: change addresses committed late are still picked up. */
const WATCH_LOOKBACK_MS = 5 * 60_000;

export interface BitcoinDriverOptions {
  network: NetworkDef;
  chain: BitcoinChain;
  rpcUrl: string;
  rpcCookieFile?: string;
  confirmations: number;
  /** The gateway's BIP-39 seed, or how to get it: asked for only when a key of the seed is needed
   * (a payout in hot custody), never for a watch-only address. */
  seed: Uint8Array | (() => Uint8Array);
  /** How received funds are held (`networks.CODE.custody`); watch-only pays nothing out. Default hot. */
  custody?: CustodyMode;
  storage: Storage;
  /** The HD paths of the gateway's deposit addresses, whose coins payouts spend. */
  depositPaths: DepositPaths;
  now?: () => number;
  startHeight?: number;
  pollBatch?: number;
  maxBatchesPerPoll?: number;
  fees: FeePolicy;
  /** Bump (replace-by-fee) a payout not mined after this many blocks. */
  bumpAfterBlocks: number;
  onRpcRequest?: (method: string) => void;
  log?: BtcLog;
  /** Blocks the head may grow between two polls before the node is judged faulty (default 1000). */
  maxHeadJump?: number;
  /** An answer larger than this is the node's fault (default 256 MiB). */
  maxResponseBytes?: number;
}

export class BitcoinCoreDriver implements ChainDriver {
  readonly kind = 'bitcoin-core';
  readonly watchesAddresses = true;
  readonly network: NetworkDef;
  readonly chain: BitcoinChain;
  readonly params: ChainParams;
  readonly confirmations: number;
  readonly custody: CustodyMode;
  readonly keys: BitcoinKeys;
  readonly node: BitcoinNode;
  readonly scanner: BtcScanner;
  readonly sender: BtcSender;
  private readonly db: Kysely<BtcDB>;
  private readonly log: BtcLog;
  private chainChecked = false;
  private changeSince = 0;
  private closed = false;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(o: BitcoinDriverOptions) {
    if (!Number.isSafeInteger(o.confirmations) || o.confirmations < 1) {
      throw new RangeError(`${o.network.code}: confirmations must be a positive integer`);
    }
    if (o.network.address_format !== 'bitcoin' && o.network.address_format !== 'litecoin' && o.network.address_format !== 'dogecoin') {
      throw new Error(`${o.network.code}: driver "bitcoin-core" only serves the Bitcoin family`);
    }
    this.params = chainParams(o.network.address_format, o.chain);
    const coinType = coinTypeFor(o.network.coin_type, o.chain);
    this.network = { ...o.network, confirmations: o.confirmations, chain: o.chain, coin_type: coinType };
    this.chain = o.chain;
    this.confirmations = o.confirmations;
    this.custody = o.custody ?? 'hot';
    this.db = btcDb(o.storage.db);
    this.log = o.log ?? (() => {});
    this.keys = new BitcoinKeys(o.seed, this.params, coinType);
    this.node = new BitcoinNode(new BitcoinRpc({ url: o.rpcUrl, cookieFile: o.rpcCookieFile, onRequest: o.onRpcRequest, maxResponseBytes: o.maxResponseBytes }));
    const now = o.now ?? Date.now;
    const native = o.network.currencies.find((c) => c.native);
    if (!native) throw new Error(`${o.network.code}: the registry lists no native currency`);
    this.sender = new BtcSender({
      network: this.network,
      params: this.params,
      keys: this.keys,
      node: this.node,
      storage: o.storage,
      depositPaths: o.depositPaths,
      decimals: native.decimals,
      confirmations: o.confirmations,
      fees: o.fees,
      bumpAfterBlocks: o.bumpAfterBlocks,
      now,
      log: this.log,
      checkChain: () => this.checkChain(),
      refuseNew: () => (this.custody === 'watch-only' ? this.noCoinsMessage() : null),
      watchChange: (address, script) => this.scanner.watched.set(script, { address, kind: 'change' }),
    });
    this.scanner = new BtcScanner({
      network: this.network,
      storage: o.storage,
      node: this.node,
      confirmations: o.confirmations,
      decimals: native.decimals,
      pollBatch: Math.max(1, o.pollBatch ?? 10),
      maxBatches: Math.max(1, o.maxBatchesPerPoll ?? 20),
      startHeight: o.startHeight,
      now,
      log: this.log,
      isOwnTx: (txid) => this.sender.isOwnTx(txid),
      maxHeadJump: o.maxHeadJump ?? BITCOIN_NODE_LIMITS.maxHeadJump,
    });
  }

  /** A `watch:` path marks a watch-only address (the merchant's coins); an HD path one of the seed (ours). */
  watch(addresses: readonly WatchedAddress[]): void {
    for (const { address, path } of addresses) {
      this.scanner.watched.set(scriptHex(decodePayee(this.params, address).script), { address, kind: isWatchOnlyPath(path) ? 'watch' : 'deposit' });
    }
  }

  get watchedCount(): number {
    return this.scanner.watched.size;
  }

  poll(sink: ChainSink): Promise<void> {
    return this.exclusive(async () => {
      if (this.closed) throw new DriverClosedError(this.network.code);
      await this.checkChain();
      await this.loadWatched();
      const { head } = await this.scanner.poll(sink);
      await this.sender.track(sink, head);
    });
  }

  /** Whether the gateway's confirmed coins cover this payment and its fee (checked when a payout is created). */
  async canCover(req: { to: string; amount: string; priority: Priority }): Promise<Coverage> {
    const currency = this.network.currencies.find((c) => c.native)!.code;
    if (this.custody === 'watch-only') return { covered: false, currency, message: this.noCoinsMessage() };
    await this.checkChain();
    const r = await this.sender.canCover(req);
    return r.covered ? r : { ...r, currency };
  }

  send(req: SendRequest): Promise<{ txid: string }> {
    if (this.closed) throw new DriverClosedError(this.network.code);
    return this.sender.send(req);
  }

  private noCoinsMessage(): string {
    const coin = this.network.currencies.find((c) => c.native)!.code.toUpperCase();
    return `${this.network.code} receives watch-only (into the merchant's own wallet): the gateway holds no ${coin} of its own to pay from, and the Bitcoin family has no payout float`;
  }

  /** getblockchaininfo's chain and height, and the best block's time from its header. */
  async status(): Promise<NodeStatus> {
    const info = await this.node.rpc.call<{ chain: string; blocks: number; bestblockhash: string }>('getblockchaininfo');
    const header = await this.node.rpc.call<{ time?: number }>('getblockheader', [info.bestblockhash]);
    return { chain: info.chain, head: info.blocks, headTime: typeof header.time === 'number' ? header.time * 1000 : null };
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.queue.catch(() => {});
  }

  /** Checked once against the node's getblockchaininfo before anything is scanned or signed. */
  async checkChain(): Promise<void> {
    if (this.chainChecked) return;
    const info = await this.node.chainInfo();
    const accepted = this.chain === 'test' ? ['test', 'testnet4'] : [this.chain];
    if (!accepted.includes(info.chain)) {
      throw new WrongChainError(`${this.network.code}: the node at rpc_url is on chain "${info.chain}", the configured chain is "${this.chain}"`);
    }
    this.chainChecked = true;
  }

  /** Every change address of the hot wallet (deposit addresses come through watch()). */
  private async loadWatched(): Promise<void> {
    const change = await this.db
      .selectFrom('btc_change')
      .select(['address', 'created_at'])
      .where('network', '=', this.network.code)
      .where('created_at', '>=', this.changeSince === 0 ? 0 : this.changeSince - WATCH_LOOKBACK_MS)
      .execute();
    for (const r of change) {
      this.scanner.watched.set(scriptHex(decodePayee(this.params, r.address).script), { address: r.address, kind: 'change' });
      if (Number(r.created_at) > this.changeSince) this.changeSince = Number(r.created_at);
    }
  }

  /** poll() and send()'s bookkeeping of one driver never overlap. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => {});
    return run;
  }
}
