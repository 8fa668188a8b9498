// The `evm` chain driver: any EVM network (ETH, BSC, POLYGON, ARBITRUM, AVALANCHE, a local anvil)
// over plain JSON-RPC. See docs/networks.md for the operator's side.
//
// Detection: each poll reads the head and processes the blocks after the stored cursor in bounded
// batches: native transfers from the full block transactions, token transfers from ONE eth_getLogs
// per batch filtered by the known token contracts and the Transfer topic (never by recipient), both
// matched against the in-memory set of addresses the gateway gave to watch(), so the RPC cost per
// block does not grow with the number of addresses. Transfers are re-reported with rising confirmations until the
// target. Recent block hashes are stored; a parent-hash mismatch (or a changed cursor block) walks
// back to the fork point, the transfers of orphaned blocks are reported `dropped` unless they
// reappear in the new chain. The cursor and what was reported are persisted only after the sink
// calls succeed (the sink is idempotent, so a crash replays at worst).
//
// Sending: every transaction is signed and STORED (with its nonce and raw bytes) in one database
// transaction before it is broadcast; a crash between the two is healed by rebroadcasting the
// stored bytes (on the next poll, or when send() is called again with the same id). Nonces come
// from max(stored next nonce, node's pending count) under a row lock, and (network, from, nonce)
// is unique, so a payout is never signed twice nor a nonce skipped.
import { randomUUID } from 'node:crypto';
import {
  encodeFunctionData,
  erc20Abi,
  getAddress,
  isAddress,
  keccak256,
  type Hex,
} from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { Kysely, Transaction } from 'kysely';
import type { ChainDriver, ChainLog, ChainSink, Coverage, IncomingTransfer, PaymentRequest, SendRequest, WatchedAddress } from '../contract.ts';
import { ChainError, HotWalletShortError, NodeError, NodeUnreachableError, SendRejectedError } from '../errors.ts';
import type { NetworkDef, Priority } from '../../registry/index.ts';
import type { Storage } from '../../db/dialect.ts';
import { Decimal } from '../../money/decimal.ts';
import { evmDb, type EvmDB, type EvmMovementsTable, type EvmOutgoingTable, type EvmTransfersTable } from './schema.ts';
import { RpcClient, num, hex, type BlockTag, type RpcBlock, type RpcLog, type RpcTransaction } from './rpc.ts';
import { EvmKeys, parseDepositIndex } from './keys.ts';

/** keccak256("Transfer(address,address,uint256)") */
export const TRANSFER_TOPIC: Hex = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

/** maxPriorityFeePerGas = node suggestion x percent. */
export const PRIORITY_PERCENT: Record<Priority, bigint> = { economy: 80n, recommended: 100n, high: 150n, highest: 200n };

export interface EvmToken {
  code: string;
  contract: `0x${string}`;
  decimals: number;
}

export interface EvmSweepPolicy {
  enabled: boolean;
  /** Sweep the native coin when the balance, less the fee, is at least this (decimal string). */
  minNative: string;
  /** Sweep a token when the balance is at least this (decimal string), by token code; default any. */
  minToken: Record<string, string>;
  /** Also sweep from poll(), at most this often (ms); unset: only when sweep() is called. */
  everyMs?: number;
}

export type EvmLog = ChainLog;

export interface EvmDriverOptions {
  network: NetworkDef;
  rpcUrl: string;
  chainId: number;
  /** Confirmations after which a transfer (or one of our transactions) is final. */
  confirmations: number;
  tokens: EvmToken[];
  /** BIP-39 seed (64 bytes). Held in memory only. */
  seed: Uint8Array;
  storage: Storage;
  now?: () => number;
  /** Blocks per eth_getLogs range (default 100). */
  pollBatch?: number;
  /** Batches per poll() call (default 20); the rest continues on the next call. */
  maxBatchesPerPoll?: number;
  sweep?: EvmSweepPolicy;
  /** First block to scan when the network has never been scanned (default head - max(confirmations, 128)). */
  startBlock?: number;
  /** Rebroadcast a sent but unmined transaction after this long (default 60 s). */
  rebroadcastAfterMs?: number;
  /** Called with the method name of every JSON-RPC request (metrics). */
  onRpcRequest?: (method: string) => void;
  log?: EvmLog;
}

interface Asset {
  code: string;
  decimals: number;
  contract: `0x${string}` | null;
}

interface Cursor {
  number: number;
  hash: string | null;
}

interface Call {
  to: `0x${string}`;
  value: bigint;
  data: Hex;
}

interface Fees {
  baseFee: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

interface Found {
  currency: string;
  txid: string;
  idx: number;
  from: string | null;
  to: string;
  amount: string;
  block: number;
  blockHash: string;
}

type OutgoingRow = EvmOutgoingTable;
type Trx = Transaction<EvmDB>;

const ACTIVE_OUTGOING = ['signed', 'sent', 'mined'];
const KNOWN_TX = /already known|known transaction|already imported|alreadyknown|already exists|tx already in mempool/i;
/** Refusals that mean the node did not take the transaction and never will as it is. */
const REFUSED = /insufficient funds|intrinsic gas too low|underpriced|fee cap less than block base fee|max fee per gas less than block base fee|exceeds block gas limit|invalid chain id|invalid sender/i;
const NONCE_LOW = /nonce too low|nonce is too low|oldnonce|invalid nonce|nonce has already been used/i;
/** Gas limit assumed for a token transfer whose estimate fails (the balance check only). */
const TOKEN_GAS_FALLBACK = 100_000n;

export class EvmDriver implements ChainDriver {
  readonly kind = 'evm';
  readonly watchesAddresses = true;
  readonly network: NetworkDef;
  readonly chainId: number;
  readonly confirmations: number;
  /** Where payouts come from and sweeps go to: m/44'/coin'/1'/0/0 of the seed. */
  readonly hotWallet: `0x${string}`;

  protected readonly rpc: RpcClient;
  protected readonly db: Kysely<EvmDB>;
  private readonly storage: Storage;
  private readonly keys: EvmKeys;
  private readonly now: () => number;
  private readonly batch: number;
  private readonly maxBatches: number;
  private readonly keepBlocks: number;
  private readonly startBlock: number | undefined;
  private readonly rebroadcastAfterMs: number;
  private readonly sweepPolicy: EvmSweepPolicy;
  private readonly log: EvmLog;
  private readonly native: Asset;
  private readonly tokens: Asset[];
  private readonly tokenByContract = new Map<string, Asset>();
  /** Watched deposit addresses (lower case) and the HD path of each (the sweep signs with it). */
  private readonly watched = new Map<string, string>();
  private chainChecked = false;
  private lastSweep = 0;
  private lockHeld = false;
  private closed = false;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(opts: EvmDriverOptions) {
    if (!Number.isSafeInteger(opts.confirmations) || opts.confirmations < 1) {
      throw new RangeError(`${opts.network.code}: confirmations must be a positive integer`);
    }
    // `network.confirmations` and `chain_id` are the effective values (config overrides applied).
    this.network = { ...opts.network, confirmations: opts.confirmations, chain_id: opts.chainId };
    this.chainId = opts.chainId;
    this.confirmations = opts.confirmations;
    this.storage = opts.storage;
    this.db = evmDb(opts.storage.db);
    this.rpc = new RpcClient(opts.rpcUrl, { onRequest: opts.onRpcRequest });
    this.keys = new EvmKeys(opts.seed, opts.network.coin_type);
    this.hotWallet = this.keys.hot.address;
    this.now = opts.now ?? Date.now;
    this.batch = Math.max(1, opts.pollBatch ?? 100);
    this.maxBatches = Math.max(1, opts.maxBatchesPerPoll ?? 20);
    this.keepBlocks = Math.max(256, opts.confirmations * 2);
    this.startBlock = opts.startBlock;
    this.rebroadcastAfterMs = opts.rebroadcastAfterMs ?? 60_000;
    this.sweepPolicy = opts.sweep ?? { enabled: false, minNative: '0', minToken: {} };
    this.log = opts.log ?? (() => {});
    const nat = opts.network.currencies.find((c) => c.native);
    if (!nat) throw new Error(`${opts.network.code}: the registry lists no native currency`);
    this.native = { code: nat.code, decimals: nat.decimals, contract: null };
    this.tokens = opts.tokens.map((t) => {
      if (!isAddress(t.contract, { strict: false })) throw new Error(`${opts.network.code}: bad contract for ${t.code}: ${t.contract}`);
      return { code: t.code, decimals: t.decimals, contract: getAddress(t.contract) };
    });
    for (const t of this.tokens) this.tokenByContract.set(t.contract!.toLowerCase(), t);
  }

  watch(addresses: readonly WatchedAddress[]): void {
    for (const a of addresses) this.watched.set(a.address.toLowerCase(), a.path);
  }

  /** Number of watched addresses (diagnostics). */
  get watchedCount(): number {
    return this.watched.size;
  }

  poll(sink: ChainSink): Promise<void> {
    return this.exclusive(() => this.pollOnce(sink));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.queue.catch(() => {});
  }

  // ---------------------------------------------------------------- scanning

  private async pollOnce(sink: ChainSink): Promise<void> {
    if (!(await this.holdLock())) return;
    await this.checkChain();
    const head = await this.rpc.blockNumber();
    let cursor = await this.loadCursor(head);

    // The last processed block must still be on the chain; if not, walk back to the fork point.
    if (cursor.number >= 0) {
      const b = cursor.number <= head ? await this.rpc.header(cursor.number) : null;
      if (!b || b.hash !== cursor.hash) cursor = await this.rewind(cursor, head);
    }

    let batches = 0;
    let progressed = false;
    while (cursor.number < head && batches < this.maxBatches) {
      const next = await this.scanBatch(sink, cursor, Math.min(head, cursor.number + this.batch), head);
      batches++;
      if (!next) break; // the chain moved under us: the next poll's cursor check sorts it out
      cursor = next;
      progressed = true;
    }
    if (!progressed) await this.settle(sink, cursor, [], [], cursor.number >= head);
    await this.trackOutgoing(sink, head);

    const every = this.sweepPolicy.everyMs;
    if (this.sweepPolicy.enabled && every && this.now() - this.lastSweep >= every) {
      this.lastSweep = this.now();
      try {
        await this.sweepOnce();
      } catch (err) {
        // What was reported stays reported; the sweep is tried again next time.
        this.log('error', 'evm sweep failed', { network: this.network.code, error: (err as Error).message });
      }
    }
  }

  /** One scanner per network (PostgreSQL advisory lock; always granted on SQLite). Asked on every
   * call (re-entrant for the holder), so a lost database session shows up instead of being assumed. */
  private async holdLock(): Promise<boolean> {
    if (this.closed) throw new Error(`${this.network.code}: driver closed`);
    const held = await this.storage.tryAdvisoryLock(`scan:${this.network.code}`);
    if (held !== this.lockHeld) {
      this.log('info', held ? 'evm scanner lock taken' : 'evm scanner lock held by another process', { network: this.network.code });
      this.lockHeld = held;
    }
    return held;
  }

  private async checkChain(): Promise<void> {
    if (this.chainChecked) return;
    const id = num(await this.rpc.chainId());
    if (id !== this.chainId) {
      throw new Error(`${this.network.code}: the node at the configured rpc_url is chain ${id}, configured chain_id is ${this.chainId}`);
    }
    this.chainChecked = true;
  }

  private async loadCursor(head: number): Promise<Cursor> {
    const row = await this.db
      .selectFrom('evm_cursors')
      .select(['block_number', 'block_hash'])
      .where('network', '=', this.network.code)
      .executeTakeFirst();
    if (row) return { number: Number(row.block_number), hash: row.block_hash };
    const start = Math.max(0, Math.min(head + 1, this.startBlock ?? head - Math.max(this.confirmations, 128)));
    const number = start - 1;
    const b = number >= 0 ? await this.rpc.header(number) : null;
    const cursor = { number, hash: b?.hash ?? null };
    await this.db.transaction().execute(async (trx) => {
      if (b) await this.storeBlocks(trx, [b]);
      await trx
        .insertInto('evm_cursors')
        .values({ network: this.network.code, block_number: number, block_hash: cursor.hash, updated_at: this.now() })
        .onConflict((oc) => oc.column('network').doNothing())
        .execute();
    });
    return cursor;
  }

  /** Finds the last stored block still on the chain; marks later transfers orphaned. */
  private async rewind(cursor: Cursor, head: number): Promise<Cursor> {
    let k = cursor.number;
    let hash: string | null = null;
    for (; k >= 0; k--) {
      const stored = await this.db
        .selectFrom('evm_blocks')
        .select('hash')
        .where('network', '=', this.network.code)
        .where('number', '=', k)
        .executeTakeFirst();
      const onChain = k <= head ? await this.rpc.header(k) : null;
      if (!stored) {
        // Deeper than the remembered window: accept the chain as it is from here.
        this.log('error', 'evm reorganisation deeper than the stored block window', { network: this.network.code, block: k });
        hash = onChain?.hash ?? null;
        break;
      }
      if (onChain && onChain.hash === stored.hash) {
        hash = stored.hash;
        break;
      }
    }
    const fork: Cursor = { number: k, hash };
    this.log('warn', 'evm chain reorganisation', { network: this.network.code, from: cursor.number, fork: k });
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('evm_transfers')
        .set({ status: 'orphaned', updated_at: this.now() })
        .where('network', '=', this.network.code)
        .where('block_number', '>', k)
        .where('status', 'in', ['pending', 'confirmed'])
        .execute();
      await trx.deleteFrom('evm_blocks').where('network', '=', this.network.code).where('number', '>', k).execute();
      await this.saveCursor(trx, fork);
    });
    return fork;
  }

  /** Scans (cursor, to]; returns the new cursor, or null when nothing consistent could be read. */
  private async scanBatch(sink: ChainSink, cursor: Cursor, to: number, head: number): Promise<Cursor | null> {
    const from = cursor.number + 1;
    const logs = this.tokens.length
      ? await this.rpc.logs({
          fromBlock: from,
          toBlock: to,
          address: this.tokens.map((t) => t.contract!),
          topics: [TRANSFER_TOPIC],
        })
      : [];
    const fetched = await mapLimit(range(from, to), 8, (n) => this.rpc.blockWithTxs(n));

    // Keep the prefix that links to the cursor and to itself, and whose logs match its hashes.
    const blocks: RpcBlock<RpcTransaction>[] = [];
    let prev = cursor.hash;
    for (const b of fetched) {
      if (!b || (prev !== null && b.parentHash !== prev)) break;
      blocks.push(b);
      prev = b.hash;
    }
    const hashOf = new Map(blocks.map((b) => [num(b.number), b.hash]));
    for (const l of logs) {
      const n = num(l.blockNumber);
      const h = hashOf.get(n);
      if (h !== undefined && h !== l.blockHash) {
        blocks.length = blocks.findIndex((b) => num(b.number) === n);
        break;
      }
    }
    if (blocks.length === 0) return null;
    const last = blocks[blocks.length - 1]!;
    const tip = num(last.number);

    const found = await this.extract(blocks, logs.filter((l) => num(l.blockNumber) <= tip));
    const next = { number: tip, hash: last.hash };
    await this.settle(sink, next, blocks, found, tip >= head);
    return next;
  }

  private async extract(blocks: RpcBlock<RpcTransaction>[], logs: RpcLog[]): Promise<Found[]> {
    const found: Found[] = [];
    for (const b of blocks) {
      const n = num(b.number);
      for (const tx of b.transactions) {
        if (!tx.to || !this.watched.has(tx.to.toLowerCase())) continue;
        const value = BigInt(tx.value);
        if (value <= 0n) continue;
        found.push({
          currency: this.native.code,
          txid: tx.hash,
          idx: 0,
          from: getAddress(tx.from),
          to: getAddress(tx.to),
          amount: Decimal.fromBaseUnits(value, this.native.decimals).toString(),
          block: n,
          blockHash: b.hash,
        });
      }
    }
    for (const l of logs) {
      if (l.removed || l.topics.length !== 3 || l.topics[0] !== TRANSFER_TOPIC || l.data.length !== 66) continue;
      const to = `0x${l.topics[2]!.slice(26)}`.toLowerCase();
      if (!this.watched.has(to)) continue;
      const token = this.tokenByContract.get(l.address.toLowerCase());
      if (!token) continue;
      const value = BigInt(l.data);
      if (value <= 0n) continue; // zero-value transfers are address-poisoning spam
      found.push({
        currency: token.code,
        txid: l.transactionHash,
        idx: num(l.logIndex),
        from: getAddress(`0x${l.topics[1]!.slice(26)}`),
        to: getAddress(to),
        amount: Decimal.fromBaseUnits(value, token.decimals).toString(),
        block: num(l.blockNumber),
        blockHash: l.blockHash,
      });
    }
    // Gas we sent to a deposit address for a sweep is ours, not a payment.
    const natives = found.filter((f) => f.currency === this.native.code && f.idx === 0).map((f) => f.txid);
    if (natives.length) {
      const ours = await this.db
        .selectFrom('evm_outgoing')
        .select('txid')
        .where('network', '=', this.network.code)
        .where('kind', '=', 'gas')
        .where('txid', 'in', natives)
        .execute();
      const skip = new Set(ours.map((r) => r.txid));
      return found.filter((f) => !(f.idx === 0 && skip.has(f.txid)));
    }
    return found;
  }

  /**
   * Reports to the sink what changed up to `cursor` (new transfers, new confirmation counts and,
   * once caught up with the head, transfers whose block left the chain), then persists it.
   */
  private async settle(
    sink: ChainSink,
    cursor: Cursor,
    blocks: RpcBlock<RpcTransaction>[],
    found: Found[],
    caughtUp: boolean,
  ): Promise<void> {
    const tip = cursor.number;
    const open = await this.db
      .selectFrom('evm_transfers')
      .selectAll()
      .where('network', '=', this.network.code)
      .where('status', 'in', ['pending', 'orphaned'])
      .execute();
    const key = (txid: string, idx: number) => `${txid}:${idx}`;
    const rows = new Map<string, EvmTransfersTable>(open.map((r) => [key(r.txid, r.idx), r]));
    const changed = new Map<string, EvmTransfersTable>();
    const now = this.now();

    if (found.length) {
      const known = await this.db
        .selectFrom('evm_transfers')
        .selectAll()
        .where('network', '=', this.network.code)
        .where('txid', 'in', [...new Set(found.map((f) => f.txid))])
        .execute();
      for (const r of known) rows.set(key(r.txid, r.idx), r);
    }
    for (const f of found) {
      const k = key(f.txid, f.idx);
      const old = rows.get(k);
      if (old && old.block_hash === f.blockHash && (old.status === 'pending' || old.status === 'confirmed')) continue;
      const row: EvmTransfersTable = {
        network: this.network.code,
        txid: f.txid,
        idx: f.idx,
        currency: f.currency,
        to_address: f.to.toLowerCase(),
        from_address: f.from,
        amount: f.amount,
        block_number: f.block,
        block_hash: f.blockHash,
        confirmations: 0,
        status: 'pending',
        swept: 0,
        created_at: old?.created_at ?? now,
        updated_at: now,
      };
      rows.set(k, row);
      changed.set(k, row);
    }

    const report: EvmTransfersTable[] = [];
    const drop: EvmTransfersTable[] = [];
    for (const [k, r] of rows) {
      if (r.status === 'pending' && Number(r.block_number) <= tip) {
        const conf = tip - Number(r.block_number) + 1;
        if (conf !== r.confirmations) {
          const u = { ...r, confirmations: conf, status: conf >= this.confirmations ? 'confirmed' : 'pending', updated_at: now };
          report.push(u);
          changed.set(k, u);
        }
      } else if (r.status === 'orphaned' && caughtUp) {
        const u = { ...r, status: 'dropped', confirmations: 0, updated_at: now };
        drop.push(u);
        changed.set(k, u);
      }
    }

    for (const r of drop) await sink.dropped(this.network.code, r.txid, r.idx);
    report.sort((a, b) => Number(a.block_number) - Number(b.block_number) || a.idx - b.idx);
    for (const r of report) await sink.transfer(this.toIncoming(r));

    await this.db.transaction().execute(async (trx) => {
      for (const r of changed.values()) {
        await trx
          .insertInto('evm_transfers')
          .values(r)
          .onConflict((oc) =>
            oc.columns(['network', 'txid', 'idx']).doUpdateSet({
              currency: r.currency,
              to_address: r.to_address,
              from_address: r.from_address,
              amount: r.amount,
              block_number: r.block_number,
              block_hash: r.block_hash,
              confirmations: r.confirmations,
              status: r.status,
              updated_at: r.updated_at,
            }),
          )
          .execute();
      }
      if (blocks.length) {
        await this.storeBlocks(trx, blocks);
        await trx
          .deleteFrom('evm_blocks')
          .where('network', '=', this.network.code)
          .where('number', '<', tip - this.keepBlocks)
          .execute();
        await this.saveCursor(trx, cursor);
      }
    });
  }

  private toIncoming(r: EvmTransfersTable): IncomingTransfer {
    return {
      network: this.network.code,
      currency: r.currency,
      txid: r.txid,
      index: r.idx,
      from: r.from_address,
      to: getAddress(r.to_address),
      amount: r.amount,
      blockHeight: Number(r.block_number),
      blockHash: r.block_hash,
      confirmations: r.confirmations,
    };
  }

  private async storeBlocks(trx: Trx, blocks: RpcBlock<unknown>[]): Promise<void> {
    for (const b of blocks) {
      await trx
        .insertInto('evm_blocks')
        .values({ network: this.network.code, number: num(b.number), hash: b.hash, parent_hash: b.parentHash })
        .onConflict((oc) => oc.columns(['network', 'number']).doUpdateSet({ hash: b.hash, parent_hash: b.parentHash }))
        .execute();
    }
  }

  private async saveCursor(trx: Trx, c: Cursor): Promise<void> {
    await trx
      .updateTable('evm_cursors')
      .set({ block_number: c.number, block_hash: c.hash, updated_at: this.now() })
      .where('network', '=', this.network.code)
      .execute();
  }

  // ---------------------------------------------------------------- our own transactions

  /** Receipts of what we sent: report to the sink, rebroadcast what the node lost. */
  private async trackOutgoing(sink: ChainSink, head: number): Promise<void> {
    const rows = await this.db
      .selectFrom('evm_outgoing')
      .selectAll()
      .where('network', '=', this.network.code)
      .where('status', 'in', ACTIVE_OUTGOING)
      .orderBy('from_address')
      .orderBy('nonce')
      .execute();
    for (const row of rows) {
      const receipt = await this.rpc.receipt(row.txid as Hex);
      const now = this.now();
      if (!receipt) {
        const lost = row.status === 'mined'; // mined, then reorganised away
        if (lost) {
          await this.updateOutgoing(row.id, { status: 'sent', block_number: null, error: null });
        }
        if (lost || row.status === 'signed' || now - Number(row.broadcast_at ?? 0) >= this.rebroadcastAfterMs) {
          await this.rebroadcast(sink, row);
        }
        continue;
      }
      const bn = num(receipt.blockNumber);
      const conf = Math.max(1, head - bn + 1);
      const final = conf >= this.confirmations;
      if (receipt.status === '0x1') {
        if (conf !== row.confirmations || row.status !== (final ? 'confirmed' : 'mined')) {
          if (conf !== row.confirmations) await sink.outgoing(this.network.code, row.txid, 'confirmed', conf);
          await this.updateOutgoing(row.id, { status: final ? 'confirmed' : 'mined', block_number: bn, confirmations: conf, error: null });
        }
      } else if (final) {
        await sink.outgoing(this.network.code, row.txid, 'failed', conf);
        await this.updateOutgoing(row.id, { status: 'failed', block_number: bn, confirmations: conf, error: 'reverted' });
      } else if (row.status !== 'mined' || row.error !== 'reverted' || Number(row.block_number) !== bn) {
        await this.updateOutgoing(row.id, { status: 'mined', block_number: bn, error: 'reverted' });
      }
    }
  }

  private async rebroadcast(sink: ChainSink, row: OutgoingRow): Promise<void> {
    try {
      await this.broadcast(row);
    } catch (err) {
      if (!(err instanceof NodeError)) throw err;
      if (NONCE_LOW.test(err.message)) {
        // Either ours was just mined, or another transaction took the nonce (the hot key used elsewhere).
        if (await this.rpc.receipt(row.txid as Hex)) return;
        const latest = await this.rpc.nonce(row.from_address as Hex, 'latest');
        if (latest <= Number(row.nonce)) return;
        // Seen twice (a rebroadcast interval apart) before believing it: a lagging node behind a
        // load balancer could otherwise make a mined payout look replaced, and be paid again.
        if (row.error !== 'nonce_used' || this.now() - Number(row.updated_at) < this.rebroadcastAfterMs) {
          if (row.error === 'nonce_used') return;
          await this.updateOutgoing(row.id, { error: 'nonce_used' });
          return;
        }
        this.log('error', 'evm transaction replaced: its nonce was used by another transaction', {
          network: this.network.code, txid: row.txid, nonce: Number(row.nonce),
        });
        await sink.outgoing(this.network.code, row.txid, 'failed', 0);
        await this.updateOutgoing(row.id, { status: 'failed', error: 'replaced' });
        return;
      }
      this.log('warn', 'evm rebroadcast failed', { network: this.network.code, txid: row.txid, error: err.message });
    }
  }

  /** Sends the stored signed bytes; "already known" counts as sent. Throws NodeError otherwise. */
  protected async broadcast(row: OutgoingRow): Promise<void> {
    try {
      await this.rpc.sendRaw(row.raw as Hex);
    } catch (err) {
      if (!(err instanceof NodeError) || !KNOWN_TX.test(err.message)) throw err;
    }
    const patch: Partial<OutgoingRow> = { broadcast_at: this.now() };
    if (row.status === 'signed') patch.status = 'sent';
    await this.updateOutgoing(row.id, patch);
    Object.assign(row, patch);
  }

  private async updateOutgoing(id: string, patch: Partial<OutgoingRow>): Promise<void> {
    await this.db.updateTable('evm_outgoing').set({ ...patch, updated_at: this.now() }).where('id', '=', id).execute();
  }

  /**
   * Whether the hot wallet holds the amount (coin or token) and the native coin for the fee, at
   * the pending block. A call the chain would revert is not this method's concern (send refuses
   * it): when the estimate fails, a generous gas limit stands in for the fee.
   */
  async canCover(req: PaymentRequest): Promise<Coverage> {
    const asset = this.asset(req.currency);
    if (!asset) return { covered: false, currency: req.currency, message: `${req.currency} is not a currency of ${this.network.code}` };
    const to = isAddress(req.to, { strict: false }) ? getAddress(req.to) : this.hotWallet;
    let units: bigint;
    try {
      units = toUnits(req.amount, asset.decimals);
    } catch {
      return { covered: true }; // malformed amounts are the send's to refuse
    }
    const hot = this.hotWallet;
    const short = (code: string): Coverage => ({ covered: false, currency: code, message: `The hot wallet cannot cover this payment: not enough ${code}` });
    if (asset.contract && (await this.tokenBalance(asset.contract, hot, 'pending')) < units) return short(asset.code);
    const call: Call = asset.contract
      ? { to: asset.contract, value: 0n, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, units] }) }
      : { to, value: units, data: '0x' };
    const fees = await this.fees(req.priority);
    let gas: bigint;
    try {
      gas = await this.estimate(hot, call);
    } catch (err) {
      if (err instanceof NodeUnreachableError || !(err instanceof ChainError)) throw err;
      gas = asset.contract ? TOKEN_GAS_FALLBACK : 21_000n;
    }
    const balance = await this.rpc.balance(hot, 'pending');
    if (balance < call.value + gas * fees.maxFeePerGas) return short(this.native.code);
    return { covered: true };
  }

  async send(req: SendRequest): Promise<{ txid: string }> {
    if (this.closed) throw new Error(`${this.network.code}: driver closed`);
    if (req.network.toUpperCase() !== this.network.code.toUpperCase()) {
      throw new SendRejectedError('invalid', `Network ${req.network} is not ${this.network.code}`);
    }
    const asset = this.asset(req.currency);
    if (!asset) throw new SendRejectedError('invalid', `${req.currency} is not a currency of ${this.network.code}`);
    if (!isAddress(req.to, { strict: false })) throw new SendRejectedError('invalid', `Not an EVM address: ${req.to}`);
    const to = getAddress(req.to);
    const units = toUnits(req.amount, asset.decimals);
    const existing = await this.outgoingByRequest(req.id);
    if (existing) {
      if (existing.kind !== 'payout' || existing.currency !== asset.code || existing.to_address.toLowerCase() !== to.toLowerCase() ||
          !Decimal.parse(existing.amount).eq(Decimal.fromBaseUnits(units, asset.decimals))) {
        throw new SendRejectedError('invalid', `Send id ${req.id} was already used for a different transaction`);
      }
      await this.resume(existing);
      return { txid: existing.txid };
    }
    const call: Call = asset.contract
      ? { to: asset.contract, value: 0n, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, units] }) }
      : { to, value: units, data: '0x' };
    await this.checkChain();
    const hot = this.keys.hot;
    // Short of the token is the hot wallet's shortfall whatever the token's revert would say.
    if (asset.contract && (await this.tokenBalance(asset.contract, hot.address, 'pending')) < units) {
      throw new HotWalletShortError(asset.code, `The hot wallet ${hot.address} lacks ${asset.code} for this payout`);
    }
    const fees = await this.fees(req.priority);
    const gas = await this.estimate(hot.address, call);
    // Never sign what the hot wallet cannot pay for now: a stored transaction the node refuses
    // would hold up every later nonce.
    const balance = await this.rpc.balance(hot.address, 'pending');
    if (balance < call.value + gas * fees.maxFeePerGas) {
      throw new HotWalletShortError(this.native.code, `The hot wallet ${hot.address} lacks ${this.native.code} for this payout and its gas`);
    }
    const row = await this.signAndStore({
      requestId: req.id,
      kind: 'payout',
      account: hot,
      call,
      currency: asset.code,
      toAddress: to,
      amount: Decimal.fromBaseUnits(units, asset.decimals).toString(),
      priority: req.priority,
      fees,
      gas,
    });
    const refused = await this.firstBroadcast(row);
    if (refused) {
      if (/insufficient funds/i.test(refused.message)) throw new HotWalletShortError(this.native.code, refused.message);
      throw new SendRejectedError('rejected', refused.message);
    }
    return { txid: row.txid };
  }

  /**
   * The first broadcast of a freshly stored transaction. On a definite refusal of a transaction no
   * node ever accepted, forgets it and frees its nonce (when no later one was signed), so nothing
   * waits behind it, and returns the refusal. Any other node error is left to poll() to retry.
   */
  private async firstBroadcast(row: OutgoingRow): Promise<NodeError | null> {
    if (row.status !== 'signed') return null;
    try {
      await this.broadcast(row);
    } catch (err) {
      if (!(err instanceof NodeError)) throw err;
      if (REFUSED.test(err.message) && (await this.voidUnsent(row))) {
        this.log('warn', 'evm transaction refused by the node; discarded', { network: this.network.code, txid: row.txid, error: err.message });
        return err;
      }
      this.log('warn', 'evm broadcast failed; it will be retried', { network: this.network.code, txid: row.txid, error: err.message });
    }
    return null;
  }

  /** Deletes a stored transaction that was never accepted, if its nonce is the last one allocated;
   * the movements it carried (and sweeps waiting for them) are marked failed. */
  private async voidUnsent(row: OutgoingRow): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const n = await this.storage
        .forUpdate(
          trx
            .selectFrom('evm_nonces')
            .select('next_nonce')
            .where('network', '=', this.network.code)
            .where('address', '=', row.from_address),
        )
        .executeTakeFirst();
      if (!n || Number(n.next_nonce) !== Number(row.nonce) + 1) return false;
      const del = await trx.deleteFrom('evm_outgoing').where('id', '=', row.id).where('status', '=', 'signed').executeTakeFirst();
      if (Number(del.numDeletedRows) !== 1) return false;
      await trx
        .updateTable('evm_nonces')
        .set({ next_nonce: Number(row.nonce) })
        .where('network', '=', this.network.code)
        .where('address', '=', row.from_address)
        .execute();
      const carried = await trx.selectFrom('evm_movements').select('id').where('outgoing_id', '=', row.id).execute();
      if (carried.length) {
        const ids = carried.map((m) => m.id);
        const now = this.now();
        await trx.updateTable('evm_movements').set({ status: 'failed', outgoing_id: null, txid: null, updated_at: now }).where('id', 'in', ids).execute();
        await trx.updateTable('evm_movements').set({ status: 'failed', updated_at: now }).where('depends_on', 'in', ids).where('status', '=', 'waiting').execute();
      }
      return true;
    });
  }

  /** Broadcasts a stored transaction that the node may not have yet; a node error is left to poll(). */
  private async resume(row: OutgoingRow): Promise<void> {
    if (row.status !== 'signed' && row.status !== 'sent') return;
    try {
      await this.broadcast(row);
    } catch (err) {
      if (!(err instanceof NodeError)) throw err;
      this.log('warn', 'evm broadcast failed; it will be retried', { network: this.network.code, txid: row.txid, error: err.message });
    }
  }

  private async outgoingByRequest(requestId: string): Promise<OutgoingRow | undefined> {
    return this.db
      .selectFrom('evm_outgoing')
      .selectAll()
      .where('network', '=', this.network.code)
      .where('request_id', '=', requestId)
      .executeTakeFirst();
  }

  private tokenOf(contract: string): string {
    return this.tokenByContract.get(contract.toLowerCase())?.code ?? this.native.code;
  }

  private asset(code: string): Asset | undefined {
    const c = code.toUpperCase();
    if (this.native.code.toUpperCase() === c) return this.native;
    return this.tokens.find((t) => t.code.toUpperCase() === c);
  }

  private async fees(priority: Priority): Promise<Fees> {
    const latest = await this.rpc.header('latest');
    const baseFee = BigInt(latest?.baseFeePerGas ?? '0x0');
    let tip: bigint;
    try {
      tip = await this.rpc.maxPriorityFee();
    } catch {
      const gp = await this.rpc.gasPrice();
      tip = gp > baseFee ? gp - baseFee : 0n;
    }
    const maxPriorityFeePerGas = (tip * (PRIORITY_PERCENT[priority] ?? 100n)) / 100n;
    return { baseFee, maxPriorityFeePerGas, maxFeePerGas: baseFee * 2n + maxPriorityFeePerGas };
  }

  private async estimate(from: `0x${string}`, call: Call): Promise<bigint> {
    try {
      const gas = await this.rpc.estimateGas({ from, to: call.to, value: hex(call.value), data: call.data });
      return call.data === '0x' ? gas : (gas * 12n) / 10n; // contract calls get a 20% margin
    } catch (err) {
      if (err instanceof NodeError && !(err instanceof NodeUnreachableError)) {
        if (/insufficient funds|exceeds balance|insufficient balance/i.test(err.message)) {
          throw new HotWalletShortError(call.data === '0x' ? this.native.code : this.tokenOf(call.to), err.message);
        }
        if (err.code === 3 || /revert|gas required exceeds/i.test(err.message)) throw new SendRejectedError('reverted', err.message);
      }
      throw err;
    }
  }

  /**
   * Signs a transaction and stores it (with its nonce and raw bytes) in one database transaction;
   * `also` runs in the same transaction (movement records). Idempotent on `requestId`.
   */
  private async signAndStore(p: {
    requestId: string;
    kind: 'payout' | 'gas' | 'sweep';
    account: PrivateKeyAccount;
    call: Call;
    currency: string;
    toAddress: string;
    amount: string;
    priority: Priority;
    fees?: Fees;
    gas?: bigint;
    also?: (trx: Trx, row: OutgoingRow) => Promise<void>;
  }): Promise<OutgoingRow> {
    await this.checkChain();
    const from = p.account.address;
    const fees = p.fees ?? (await this.fees(p.priority));
    const gas = p.gas ?? (await this.estimate(from, p.call));
    const pending = await this.rpc.nonce(from, 'pending');
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.db.transaction().execute(async (trx) => {
          const dup = await trx
            .selectFrom('evm_outgoing')
            .selectAll()
            .where('network', '=', this.network.code)
            .where('request_id', '=', p.requestId)
            .executeTakeFirst();
          if (dup) return dup;
          const nonceRow = await this.storage
            .forUpdate(
              trx
                .selectFrom('evm_nonces')
                .select('next_nonce')
                .where('network', '=', this.network.code)
                .where('address', '=', from.toLowerCase()),
            )
            .executeTakeFirst();
          const nonce = Math.max(Number(nonceRow?.next_nonce ?? 0), pending);
          const raw = await p.account.signTransaction({
            type: 'eip1559',
            chainId: this.chainId,
            nonce,
            to: p.call.to,
            value: p.call.value,
            data: p.call.data,
            gas,
            maxFeePerGas: fees.maxFeePerGas,
            maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
          });
          const now = this.now();
          const row: OutgoingRow = {
            id: randomUUID(),
            network: this.network.code,
            request_id: p.requestId,
            kind: p.kind,
            from_address: from.toLowerCase(),
            to_address: p.toAddress,
            currency: p.currency,
            amount: p.amount,
            nonce,
            txid: keccak256(raw),
            raw,
            status: 'signed',
            block_number: null,
            confirmations: 0,
            error: null,
            broadcast_at: null,
            created_at: now,
            updated_at: now,
          };
          await trx.insertInto('evm_outgoing').values(row).execute();
          if (nonceRow) {
            await trx
              .updateTable('evm_nonces')
              .set({ next_nonce: nonce + 1 })
              .where('network', '=', this.network.code)
              .where('address', '=', from.toLowerCase())
              .execute();
          } else {
            await trx
              .insertInto('evm_nonces')
              .values({ network: this.network.code, address: from.toLowerCase(), next_nonce: nonce + 1 })
              .execute();
          }
          if (p.also) await p.also(trx, row);
          return row;
        });
      } catch (err) {
        // Another process took the nonce row or the request id first: read again.
        if (attempt < 3 && this.storage.isUniqueViolation(err)) continue;
        throw err;
      }
    }
  }

  // ---------------------------------------------------------------- sweeping

  /**
   * Moves funds from deposit addresses that received confirmed transfers to the hot wallet. A step
   * per call: a token sweep from an address without gas first gets gas from the hot wallet; a
   * later call, once that is mined, signs the token transfer with the deposit key. Every movement
   * is recorded in evm_movements. Run it periodically (the scanner's worker; same lock).
   */
  sweep(): Promise<void> {
    return this.exclusive(() => this.sweepOnce());
  }

  private async sweepOnce(): Promise<void> {
    if (!this.sweepPolicy.enabled) return;
    if (!(await this.holdLock())) return;
    await this.checkChain();
    // Amounts to move are read at the confirmation depth: what a reorganisation could still take
    // away is not swept (a transaction spending it could then never be mined).
    const safe = hex(Math.max(0, (await this.rpc.blockNumber()) - this.confirmations + 1));
    await this.advanceMovements(safe);
    const candidates = await this.db
      .selectFrom('evm_transfers')
      .select('to_address')
      .distinct()
      .where('network', '=', this.network.code)
      .where('status', '=', 'confirmed')
      .where('swept', '=', 0)
      .limit(50)
      .execute();
    for (const c of candidates) {
      try {
        await this.sweepAddress(c.to_address as `0x${string}`, safe);
      } catch (err) {
        if (!(err instanceof ChainError)) throw err;
        this.log('warn', 'evm sweep failed; retried next time', { network: this.network.code, address: c.to_address, error: err.message });
      }
    }
  }

  private async advanceMovements(safe: Hex): Promise<void> {
    const open = await this.db
      .selectFrom('evm_movements')
      .selectAll()
      .where('network', '=', this.network.code)
      .where('status', 'in', ['sent', 'waiting'])
      .orderBy('created_at')
      .execute();
    const status = new Map(open.map((m) => [m.id, m.status]));
    for (const m of open.filter((x) => x.status === 'sent')) {
      const r = m.txid ? await this.rpc.receipt(m.txid as Hex) : null;
      if (!r) continue;
      const s = r.status === '0x1' ? 'done' : 'failed';
      await this.setMovement(m.id, { status: s });
      status.set(m.id, s);
    }
    for (const m of open.filter((x) => x.status === 'waiting')) {
      try {
        await this.advanceWaiting(m, status, safe);
      } catch (err) {
        if (!(err instanceof ChainError)) throw err;
        this.log('warn', 'evm sweep failed; retried next time', { network: this.network.code, address: m.from_address, error: err.message });
      }
    }
  }

  /** A token sweep that waited for its gas: sign it with the deposit key once the gas is there. */
  private async advanceWaiting(m: EvmMovementsTable, status: Map<string, string>, safe: Hex): Promise<void> {
    const dep = m.depends_on ? (status.get(m.depends_on) ?? (await this.movementStatus(m.depends_on))) : 'done';
    if (dep === 'failed') await this.setMovement(m.id, { status: 'failed' });
    if (dep !== 'done') return;
    const token = this.asset(m.currency);
    if (!token?.contract) {
      await this.setMovement(m.id, { status: 'failed' });
      return;
    }
    const account = this.depositAccount(m.from_address);
    if (!account) return;
    const units = await this.sweepable(token, account.address, safe);
    if (units === 0n) {
      await this.setMovement(m.id, { status: 'failed', amount: '0' });
      return;
    }
    const call = this.tokenTransferCall(token, units);
    const plan = await this.gasPlan(account.address, call);
    if (plan.topUp > 0n) {
      // Gas prices rose while the gas was on its way: give up this attempt; the next sweep plans anew.
      await this.setMovement(m.id, { status: 'failed' });
      return;
    }
    const amount = Decimal.fromBaseUnits(units, token.decimals).toString();
    const row = await this.signAndStore({
      requestId: `sweep:${m.id}`,
      kind: 'sweep',
      account,
      call,
      currency: token.code,
      toAddress: this.hotWallet,
      amount,
      priority: 'recommended',
      fees: plan.fees,
      gas: plan.gas,
      also: async (trx, row) => {
        await trx
          .updateTable('evm_movements')
          .set({ status: 'sent', outgoing_id: row.id, txid: row.txid, amount, updated_at: this.now() })
          .where('id', '=', m.id)
          .execute();
      },
    });
    await this.firstBroadcast(row);
  }

  private async sweepAddress(address: `0x${string}`, safe: Hex): Promise<void> {
    const busy = await this.db
      .selectFrom('evm_movements')
      .select('id')
      .where('network', '=', this.network.code)
      .where((eb) => eb.or([eb('from_address', '=', address.toLowerCase()), eb('to_address', '=', address.toLowerCase())]))
      .where('status', 'in', ['waiting', 'sent'])
      .executeTakeFirst();
    if (busy) return;
    const account = this.depositAccount(address);
    if (!account) return;

    for (const token of this.tokens) {
      const units = await this.sweepable(token, account.address, safe);
      if (units === 0n) continue;
      const min = this.sweepPolicy.minToken[token.code] ?? this.sweepPolicy.minToken[token.code.toUpperCase()] ?? '0';
      if (Decimal.fromBaseUnits(units, token.decimals).lt(min)) continue;
      const call = this.tokenTransferCall(token, units);
      const plan = await this.gasPlan(account.address, call);
      const amount = Decimal.fromBaseUnits(units, token.decimals).toString();
      const sweepId = randomUUID();
      if (plan.topUp === 0n) {
        const row = await this.signAndStore({
          requestId: `sweep:${sweepId}`,
          kind: 'sweep',
          account,
          call,
          currency: token.code,
          toAddress: this.hotWallet,
          amount,
          priority: 'recommended',
          fees: plan.fees,
          gas: plan.gas,
          also: (trx, row) => this.insertMovement(trx, { id: sweepId, kind: 'sweep', currency: token.code, from: address, to: this.hotWallet, amount, row }),
        });
        await this.firstBroadcast(row);
        return;
      }
      // First the gas, from the hot wallet; the token transfer follows once it is mined.
      const gasId = randomUUID();
      const gasAmount = Decimal.fromBaseUnits(plan.topUp, this.native.decimals).toString();
      const row = await this.signAndStore({
        requestId: `gas:${gasId}`,
        kind: 'gas',
        account: this.keys.hot,
        call: { to: account.address, value: plan.topUp, data: '0x' },
        currency: this.native.code,
        toAddress: account.address,
        amount: gasAmount,
        priority: 'recommended',
        also: async (trx, row) => {
          await this.insertMovement(trx, { id: gasId, kind: 'gas', currency: this.native.code, from: this.hotWallet, to: address, amount: gasAmount, row });
          await this.insertMovement(trx, { id: sweepId, kind: 'sweep', currency: token.code, from: address, to: this.hotWallet, amount, row: null, dependsOn: gasId });
        },
      });
      await this.firstBroadcast(row);
      return;
    }

    const balance = await this.sweepable(this.native, account.address, safe);
    const fees = await this.fees('recommended');
    const fee = 21_000n * fees.maxFeePerGas;
    if (balance > fee && Decimal.fromBaseUnits(balance - fee, this.native.decimals).gte(this.sweepPolicy.minNative || '0')) {
      const value = balance - fee;
      const amount = Decimal.fromBaseUnits(value, this.native.decimals).toString();
      const id = randomUUID();
      const row = await this.signAndStore({
        requestId: `sweep:${id}`,
        kind: 'sweep',
        account,
        call: { to: this.hotWallet, value, data: '0x' },
        currency: this.native.code,
        toAddress: this.hotWallet,
        amount,
        priority: 'recommended',
        fees,
        gas: 21_000n,
        also: (trx, row) => this.insertMovement(trx, { id, kind: 'sweep', currency: this.native.code, from: address, to: this.hotWallet, amount, row }),
      });
      await this.firstBroadcast(row);
      return;
    }

    // Nothing (left) above the thresholds: this address is done until it receives again.
    await this.db
      .updateTable('evm_transfers')
      .set({ swept: 1, updated_at: this.now() })
      .where('network', '=', this.network.code)
      .where('to_address', '=', address.toLowerCase())
      .where('status', '=', 'confirmed')
      .execute();
  }

  /** Gas limit and fees for a deposit-signed call, and how much native coin it lacks for them. */
  private async gasPlan(from: `0x${string}`, call: Call): Promise<{ gas: bigint; fees: Fees; topUp: bigint }> {
    const fees = await this.fees('recommended');
    let gas: bigint;
    try {
      gas = await this.estimate(from, call);
    } catch (err) {
      if (!(err instanceof HotWalletShortError)) throw err;
      gas = 100_000n;
    }
    const balance = await this.rpc.balance(from);
    const need = gas * fees.maxFeePerGas;
    if (balance >= need) return { gas, fees, topUp: 0n };
    // Spend what is there if it still covers the current base fee and tip; otherwise top up.
    const affordable = balance / gas;
    if (affordable >= fees.baseFee + fees.maxPriorityFeePerGas && affordable > 0n) {
      return { gas, fees: { ...fees, maxFeePerGas: affordable }, topUp: 0n };
    }
    return { gas, fees, topUp: need - balance };
  }

  private tokenTransferCall(token: Asset, units: bigint): Call {
    return {
      to: token.contract!,
      value: 0n,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [this.hotWallet, units] }),
    };
  }

  /**
   * What may be swept from a deposit address: only confirmed funds. Bounded by the balance at the
   * confirmation depth, and by the latest balance less the transfers seen but not yet confirmed
   * (the first bound alone would count again what a recent sweep already moved).
   */
  private async sweepable(asset: Asset, who: `0x${string}`, safe: Hex): Promise<bigint> {
    const read = (tag: BlockTag) => (asset.contract ? this.tokenBalance(asset.contract, who, tag) : this.rpc.balance(who, tag));
    const atDepth = await read(safe);
    const latest = await read('latest');
    const pending = await this.db
      .selectFrom('evm_transfers')
      .select('amount')
      .where('network', '=', this.network.code)
      .where('to_address', '=', who.toLowerCase())
      .where('currency', '=', asset.code)
      .where('status', '=', 'pending')
      .execute();
    const unconfirmed = pending.reduce((sum, r) => sum + Decimal.parse(r.amount).toBaseUnits(asset.decimals), 0n);
    const settled = latest - unconfirmed;
    const units = atDepth < settled ? atDepth : settled;
    return units > 0n ? units : 0n;
  }

  private async tokenBalance(contract: `0x${string}`, who: `0x${string}`, tag: BlockTag = 'latest'): Promise<bigint> {
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [who] });
    const out = await this.rpc.ethCall({ to: contract, data }, tag);
    return out === '0x' ? 0n : BigInt(out);
  }

  /** The spending key of a deposit address, from the derivation path the gateway gave with it. */
  private depositAccount(address: string): PrivateKeyAccount | null {
    const checksummed = getAddress(address);
    const path = this.watched.get(checksummed.toLowerCase());
    const index = path === undefined ? null : parseDepositIndex(path, this.network.coin_type);
    if (index === null) {
      this.log('error', 'evm sweep: no derivation path recorded for a deposit address', { network: this.network.code, address: checksummed });
      return null;
    }
    const account = this.keys.deposit(index);
    if (account.address.toLowerCase() !== checksummed.toLowerCase()) {
      this.log('error', 'evm sweep: the recorded path does not derive the address (another seed?)', { network: this.network.code, address: checksummed });
      return null;
    }
    return account;
  }

  private async insertMovement(
    trx: Trx,
    m: { id: string; kind: 'gas' | 'sweep'; currency: string; from: string; to: string; amount: string; row: OutgoingRow | null; dependsOn?: string },
  ): Promise<void> {
    const now = this.now();
    await trx
      .insertInto('evm_movements')
      .values({
        id: m.id,
        network: this.network.code,
        kind: m.kind,
        currency: m.currency,
        from_address: m.from.toLowerCase(),
        to_address: m.to.toLowerCase(),
        amount: m.amount,
        outgoing_id: m.row?.id ?? null,
        depends_on: m.dependsOn ?? null,
        status: m.row ? 'sent' : 'waiting',
        txid: m.row?.txid ?? null,
        created_at: now,
        updated_at: now,
      })
      .execute();
  }

  private async setMovement(id: string, patch: { status: string; amount?: string }): Promise<void> {
    await this.db.updateTable('evm_movements').set({ ...patch, updated_at: this.now() }).where('id', '=', id).execute();
  }

  private async movementStatus(id: string): Promise<string | undefined> {
    const r = await this.db.selectFrom('evm_movements').select('status').where('id', '=', id).executeTakeFirst();
    return r?.status;
  }

  // ---------------------------------------------------------------- helpers

  /** poll() and sweep() of one driver never overlap. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => {});
    return run;
  }
}

function toUnits(amount: string, decimals: number): bigint {
  const d = Decimal.tryParse(amount);
  if (!d || d.isNegative()) throw new SendRejectedError('invalid', `Not a positive amount: ${amount}`);
  let units: bigint;
  try {
    units = d.toBaseUnits(decimals);
  } catch {
    throw new SendRejectedError('invalid', `More than ${decimals} decimal places: ${amount}`);
  }
  if (units <= 0n) throw new SendRejectedError('invalid', `Not a positive amount: ${amount}`);
  return units;
}

function range(from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = from; i <= to; i++) out.push(i);
  return out;
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
