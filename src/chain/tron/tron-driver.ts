// The `tron` chain driver: TRX and the registry's TRC-20 tokens over a java-tron node's HTTP API.
// See docs/networks.md for the operator's side. Detection lives in ./scan.ts, what we send in
// ./outgoing.ts, activation and sweeping in ./sweep.ts (hot custody), flushing forwarders to the
// merchants' cold addresses in ./flush.ts (watch-only custody); this class ties them to the gateway:
// one scanner per network (its caller holds the `scan:<NETWORK>` lock), payouts from the hot wallet
// (m/44'/195'/1'/0/0), and the check that the hot wallet can cover a payout before it is accepted.
import type { Kysely } from 'kysely';
import type { ChainDriver, ChainSink, Coverage, NodeStatus, PayoutWallet, SendRequest, WatchedAddress } from '../contract.ts';
import type { CustodyMode } from '../network-settings.ts';
import { DriverClosedError, HotWalletShortError } from '../errors.ts';
import { HeadGuard } from '../head-guard.ts';
import { TRON_NODE_LIMITS } from './limits.ts';
import { reorgWindow } from '../reorg.ts';
import type { NetworkDef } from '../../registry/index.ts';
import type { Storage } from '../../db/dialect.ts';
import { Decimal } from '../../money/decimal.ts';
import { isTronAddress, toHexAddress } from './address.ts';
import { TronApi } from './api.ts';
import { TronKeys, type TronSigner } from './keys.ts';
import { TronOutgoing, TronSendError, transferData, type Intent } from './outgoing.ts';
import { TronScanner, type ChainView, type TronToken } from './scan.ts';
import { tronDb, type TronDB } from './schema.ts';
import { TronSweeper, type TronSweepPolicy } from './sweep.ts';
import { chainCosts } from './costs.ts';
import type { TronForwarderDeployment } from './custody.ts';
import { TronFlusher, type TronFlushPolicy } from './flush.ts';

export type TronLog = (level: 'info' | 'warn' | 'error', msg: string, data?: Record<string, unknown>) => void;

export interface TronDriverOptions {
  network: NetworkDef;
  apiUrl: string;
  apiKey?: string;
  confirmations: number;
  tokens: TronToken[];
  /** BIP-39 seed, read only in hot custody. Held in memory only. */
  seed?: Uint8Array;
  /** Watch-only: the payout float's signer (null or absent: no float, nothing can be paid). */
  float?: TronSigner | null;
  storage: Storage;
  now?: () => number;
  /** Most TRX a TRC-20 transfer may burn for energy (sun). */
  feeLimit: bigint;
  pollBatch?: number;
  maxBatchesPerPoll?: number;
  startBlock?: number;
  sweep?: TronSweepPolicy;
  /**
   * `watch-only` (default `hot`): deposit addresses are forwarders to merchants' cold addresses;
   * they are flushed (./flush.ts) and never swept, activated or funded; the seed is never read and
   * payouts come from `float`.
   */
  custody?: CustodyMode;
  /** Watch-only: the forwarder factory and implementation of the network's settings. */
  forwarder?: TronForwarderDeployment;
  /** Watch-only: the key that signs flushes (pays their energy only); null: nothing is flushed. */
  relayer?: TronSigner | null;
  /** Watch-only: when to flush. */
  flush?: TronFlushPolicy;
  rebroadcastAfterMs?: number;
  onRequest?: (path: string) => void;
  log?: TronLog;
  /** Blocks the head may grow between two polls before the node is judged faulty (default 20000). */
  maxHeadJump?: number;
  /** An answer larger than this is the node's fault (default 64 MiB). */
  maxResponseBytes?: number;
}

interface Asset {
  code: string;
  decimals: number;
  /** base58, null for TRX */
  contract: string | null;
}

export class TronDriver implements ChainDriver {
  readonly kind = 'tron';
  readonly watchesAddresses = true;
  readonly network: NetworkDef;
  readonly confirmations: number;
  readonly feeLimit: bigint;

  readonly api: TronApi;
  readonly db: Kysely<TronDB>;
  readonly out: TronOutgoing;
  readonly scanner: TronScanner;
  readonly sweeper: TronSweeper;
  /** Watch-only custody only. */
  readonly flusher: TronFlusher | null;
  readonly custody: CustodyMode;
  readonly keys: TronKeys;
  private readonly storage: Storage;
  private readonly now: () => number;
  private readonly log: TronLog;
  private readonly native: Asset;
  private readonly tokens: Asset[];
  private readonly watched = new Set<string>();
  /** HD path of each watched deposit address (the sweep signs with it). */
  private readonly paths = new Map<string, string>();
  private closed = false;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly heads: HeadGuard;

  constructor(opts: TronDriverOptions) {
    if (!Number.isSafeInteger(opts.confirmations) || opts.confirmations < 1) throw new RangeError(`${opts.network.code}: confirmations must be a positive integer`);
    this.network = { ...opts.network, confirmations: opts.confirmations };
    this.confirmations = opts.confirmations;
    this.storage = opts.storage;
    this.db = tronDb(opts.storage.db);
    this.now = opts.now ?? Date.now;
    this.log = opts.log ?? (() => {});
    this.feeLimit = opts.feeLimit;
    this.api = new TronApi(opts.apiUrl, { apiKey: opts.apiKey, onRequest: opts.onRequest, maxResponseBytes: opts.maxResponseBytes });
    this.heads = new HeadGuard(opts.maxHeadJump ?? TRON_NODE_LIMITS.maxHeadJump, reorgWindow(opts.confirmations));
    if ((opts.custody ?? 'hot') === 'hot' && !opts.seed) throw new Error(`${opts.network.code}: hot custody needs the gateway's seed`);
    this.keys = new TronKeys((opts.custody ?? 'hot') === 'hot' ? opts.seed! : { float: opts.float ?? null }, opts.network.coin_type);
    const nat = opts.network.currencies.find((c) => c.native);
    if (!nat) throw new Error(`${opts.network.code}: the registry lists no native currency`);
    this.native = { code: nat.code, decimals: nat.decimals, contract: null };
    this.tokens = opts.tokens.map((t) => ({ code: t.code, decimals: t.decimals, contract: t.contract }));
    const code = this.network.code;
    this.out = new TronOutgoing({ network: code, api: this.api, db: this.db, storage: this.storage, now: this.now, rebroadcastAfterMs: opts.rebroadcastAfterMs ?? 15_000, log: this.log });
    this.scanner = new TronScanner({
      network: code,
      api: this.api,
      db: this.db,
      storage: this.storage,
      native: this.native,
      tokens: opts.tokens,
      confirmations: opts.confirmations,
      watched: this.watched,
      now: this.now,
      pollBatch: Math.min(100, Math.max(1, opts.pollBatch ?? 20)),
      maxBatchesPerPoll: Math.max(1, opts.maxBatchesPerPoll ?? 20),
      startBlock: opts.startBlock,
      isOwnTransaction: (txids) => this.out.ours(txids),
      log: this.log,
    });
    this.sweeper = new TronSweeper({
      network: code,
      api: this.api,
      db: this.db,
      pathOf: (address) => this.paths.get(address),
      out: this.out,
      keys: this.keys,
      native: this.native,
      tokens: opts.tokens,
      feeLimit: opts.feeLimit,
      policy: opts.sweep ?? { enabled: false, mode: 'burn', minNative: '0', minToken: {}, everyMs: 60_000 },
      now: this.now,
      log: this.log,
    });
    this.custody = opts.custody ?? 'hot';
    if (this.custody === 'watch-only') {
      if (!opts.forwarder) throw new Error(`${code}: watch-only custody needs the forwarder factory (factory_address, implementation_address)`);
      if (opts.sweep?.enabled) throw new Error(`${code}: watch-only custody never sweeps deposit addresses (the gateway holds no key of them); it flushes them`);
      this.flusher = new TronFlusher({
        network: code,
        api: this.api,
        db: this.db,
        outgoing: { network: code, api: this.api, db: this.db, storage: this.storage, now: this.now, rebroadcastAfterMs: opts.rebroadcastAfterMs ?? 15_000, log: this.log },
        deployment: opts.forwarder,
        relayer: opts.relayer ?? null,
        pathOf: (address) => this.paths.get(address),
        native: this.native,
        tokens: opts.tokens,
        feeLimit: opts.feeLimit,
        policy: opts.flush ?? { minNative: '0', minToken: {}, everyMs: 60_000 },
        now: this.now,
        log: this.log,
      });
      if (!opts.relayer) this.log('warn', 'tron watch-only without relayer_key_file: payments are detected and stay at their forwarders until a relayer key is configured', { network: code });
    } else {
      this.flusher = null;
    }
  }

  watch(addresses: readonly WatchedAddress[]): void {
    for (const { address, path } of addresses) {
      if (!isTronAddress(address)) continue;
      this.watched.add(address);
      this.paths.set(address, path);
    }
  }

  get watchedCount(): number {
    return this.watched.size;
  }

  poll(sink: ChainSink): Promise<void> {
    // The caller holds the network's scanner lock (src/chain/networks.ts, Chains.poll).
    return this.exclusive(async () => {
      if (this.closed) throw new DriverClosedError(this.network.code);
      const view = await this.scanner.view();
      this.heads.check('/wallet/getnowblock', view.head);
      await this.scanner.poll(sink, view);
      await this.out.track(sink, view, this.confirmations);
      try {
        if (this.flusher) await this.flusher.maybeRun(view);
        else await this.sweeper.maybeRun(view);
      } catch (err) {
        this.log('error', this.flusher ? 'tron flush failed' : 'tron sweep failed', { network: this.network.code, error: (err as Error).message });
      }
      this.heads.commit(view.head);
    });
  }

  /** One sweep round now (tests, the CLI); the scanner also runs one every `every_seconds`. The
   * caller holds the network's scanner lock, as for poll(). */
  sweep(): Promise<void> {
    return this.exclusive(async () => {
      if (this.closed) throw new DriverClosedError(this.network.code);
      await this.sweeper.run(await this.scanner.view());
    });
  }

  /**
   * One flush round now (tests, the CLI's `satchel flush`): every deposit address with confirmed
   * funds above the thresholds is flushed to its cold address; returns the transactions sent.
   * Watch-only custody only. The caller holds the network's scanner lock, as for poll().
   */
  flush(req: { tokens?: readonly string[] } = {}): Promise<string[]> {
    return this.exclusive(async () => {
      if (this.closed) throw new DriverClosedError(this.network.code);
      if (req.tokens?.length) throw new TronSendError('invalid', `${this.network.code} flushes its configured tokens and TRX only: it takes no other token`);
      if (!this.flusher) throw new TronSendError('invalid', `${this.network.code} is in hot custody: its deposit addresses are swept, not flushed`);
      return this.flusher.run(await this.scanner.view());
    });
  }

  /** The chain is named by its genesis block's id (mainnet, Nile and Shasta differ); head from getnowblock. */
  async status(): Promise<NodeStatus> {
    const [genesis, now] = await Promise.all([this.api.blockByNum(0), this.api.nowBlock()]);
    const raw = now.block_header.raw_data;
    return { chain: genesis?.blockID ?? null, head: raw.number ?? 0, headTime: raw.timestamp ?? null };
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.queue.catch(() => {});
  }

  // ---------------------------------------------------------------- payouts

  private asset(code: string): Asset | undefined {
    const c = code.toUpperCase();
    if (this.native.code.toUpperCase() === c) return this.native;
    return this.tokens.find((t) => t.code.toUpperCase() === c);
  }

  private parse(req: { network: string; currency: string; to: string; amount: string }): { asset: Asset; units: bigint; intent: Intent } {
    if (req.network.toUpperCase() !== this.network.code.toUpperCase()) throw new TronSendError('invalid', `Network ${req.network} is not ${this.network.code}`);
    const asset = this.asset(req.currency);
    if (!asset) throw new TronSendError('invalid', `${req.currency} is not a currency of ${this.network.code}`);
    if (!isTronAddress(req.to)) throw new TronSendError('invalid', `Not a TRON address: ${req.to}`);
    const d = Decimal.tryParse(req.amount);
    let units = 0n;
    try {
      units = d ? d.toBaseUnits(asset.decimals) : 0n;
    } catch {
      throw new TronSendError('invalid', `More than ${asset.decimals} decimal places: ${req.amount}`);
    }
    if (units <= 0n) throw new TronSendError('invalid', `Not a positive amount: ${req.amount}`);
    const owner = toHexAddress(this.hotWallet);
    const intent: Intent = asset.contract
      ? { type: 'TriggerSmartContract', owner, contract: toHexAddress(asset.contract), data: transferData(req.to, units), feeLimit: this.feeLimit }
      : { type: 'TransferContract', owner, to: toHexAddress(req.to), amount: units };
    return { asset, units, intent };
  }

  /** Where payouts come from (and, in hot custody, sweeps go to); a watch-only network's payout float (throws when it has none). */
  get hotWallet(): string {
    return this.keys.hot.address;
  }

  /** The account payouts leave from and its balances; null on a watch-only network without a float. */
  async payoutWallet(): Promise<PayoutWallet | null> {
    if (!this.keys.canPay) return null;
    const address = this.hotWallet;
    const balances: Record<string, string> = {};
    balances[this.native.code] = Decimal.fromBaseUnits((await this.api.account(toHexAddress(address)))?.balance ?? 0n, this.native.decimals).toString();
    for (const t of this.tokens) balances[t.code] = Decimal.fromBaseUnits(await chainCosts(this.api).tokenBalance(t.contract!, address), t.decimals).toString();
    return { address, balances };
  }

  /** Whether the hot wallet can pay this now: the coin or token, and the TRX its bandwidth and energy burn. */
  async canCover(req: { network: string; currency: string; to: string; amount: string }): Promise<Coverage> {
    if (!this.keys.canPay) return { covered: false, currency: req.currency, message: `${this.network.code} has no payout float configured` };
    const { asset, units, intent } = this.parse(req);
    return chainCosts(this.api).cover(this.hotWallet, asset, units, intent, this.feeLimit, this.native.code);
  }

  async send(req: SendRequest): Promise<{ txid: string }> {
    if (this.closed) throw new DriverClosedError(this.network.code);
    // A watch-only network without a float has nothing to pay from: the payout waits (and fails
    // after the stuck timeout, its funds returned) unless a float is configured meanwhile.
    if (!this.keys.canPay) throw new HotWalletShortError(req.currency, `${this.network.code} has no payout float configured: nothing can be paid on this watch-only network`);
    const { asset, units, intent } = this.parse(req);
    const amount = Decimal.fromBaseUnits(units, asset.decimals).toString();
    const attempts = await this.out.attempts(req.id);
    const latest = attempts[0];
    let view: ChainView | null = null;
    if (latest) {
      if (latest.kind !== 'payout' || latest.currency !== asset.code || latest.to_address !== req.to || !Decimal.parse(latest.amount).eq(amount)) {
        throw new TronSendError('invalid', `Send id ${req.id} was already used for a different transaction`);
      }
      if (latest.status === 'signed' || latest.status === 'sent') {
        view = await this.scanner.view();
        if (!(await this.out.expiredForGood(latest, view))) {
          await this.out.broadcast(latest);
          return { txid: latest.txid };
        }
        // Signed but never mined, and now it never can be: this request may be signed again.
        await this.out.update(latest.id, { status: 'expired', error: latest.error ?? 'expired' });
      } else if (latest.status !== 'expired') {
        return { txid: latest.txid };
      }
    }
    view ??= await this.scanner.view();
    const coverage = await chainCosts(this.api).cover(this.hotWallet, asset, units, intent, this.feeLimit, this.native.code);
    if (!coverage.covered) {
      if (coverage.currency === 'reverted') throw new TronSendError('reverted', coverage.message);
      throw new HotWalletShortError(coverage.currency, coverage.message);
    }
    const row = await this.out.signAndStore({
      requestId: req.id,
      attempt: (latest?.attempt ?? 0) + 1,
      kind: 'payout',
      signer: this.keys.hot,
      intent,
      currency: asset.code,
      toAddress: req.to,
      amount,
      view,
    });
    // A refusal leaves the transaction stored: the node (or another it gave it to) could still
    // mine it until it expires, so the payout is judged by the chain, never failed early.
    if (row.status === 'signed') await this.out.broadcast(row);
    return { txid: row.txid };
  }

  /** poll(), sweep() and their parts never overlap within one driver. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => {});
    return run;
  }
}
