// Detection on a Bitcoin-family chain. Blocks are read in order after the stored cursor, every
// output is matched against an in-memory map of our scripts (so a block costs the same for ten
// watched addresses as for a million), and every input against our unspent coins. The mempool is
// followed once the scan has caught up: a payment is reported with 0 confirmations as soon as the
// node has it, again in its block, and then at each new confirmation up to the target. A mempool
// payment that leaves the mempool without being mined (replaced, double-spent, evicted) is
// reported dropped; a replacement that pays us again is a new payment under its own txid, reported
// before the old one is dropped, so the invoice never flaps. Recent block hashes are kept: when the
// chain no longer holds the cursor's block, the scan walks back to the fork point, and payments of
// orphaned blocks go back to the mempool if the node has them there, or are dropped otherwise
// (unless the new chain holds them again). What was reported is persisted after the sink accepted
// it; the sink is idempotent, so a crash replays at worst.
//
// Outputs to watch-only deposit addresses (kind `watch`: a merchant's extended public key, no key
// of the gateway) are followed and reported exactly like the others, but they are never our coins:
// they are not in the unspent set, so the merchant spending them from their own wallet is no
// foreign spend; the gateway simply stops looking at them.
import type { Kysely } from 'kysely';
import type { ChainSink } from '../contract.ts';
import { Decimal } from '../../money/decimal.ts';
import type { Storage } from '../../db/dialect.ts';
import type { NetworkDef } from '../../registry/index.ts';
import { btcDb, type BtcDB, type BtcOutputsTable } from './schema.ts';
import { BtcOutputs, coinKey as key, type Trx } from './outputs.ts';
import type { BitcoinNode, NodeBlock } from './node.ts';
import { NULL_TXID, parseRawTx, type ParsedTx } from './rawtx.ts';
import { FaultyNodeError } from '../errors.ts';
import { checkBehindCursor, HeadGuard } from '../head-guard.ts';
import { WatchedScripts } from './watched.ts';
import { familyWrite } from '../family-tables.ts';

export type BtcLog = (level: 'info' | 'warn' | 'error', msg: string, data?: Record<string, unknown>) => void;

export type { Watched } from './watched.ts';

interface Cursor {
  height: number;
  hash: string | null;
}

type Row = BtcOutputsTable;

export interface ScannerOptions {
  network: NetworkDef;
  storage: Storage;
  node: BitcoinNode;
  confirmations: number;
  decimals: number;
  /** Blocks read per request (default 10). */
  pollBatch: number;
  /** Batches per poll (default 20); the rest continues on the next poll. */
  maxBatches: number;
  startHeight: number | undefined;
  now: () => number;
  log: BtcLog;
  /** Whether a txid is one of our own transactions (a payout), for recording who spent a coin. */
  isOwnTx: (txid: string) => Promise<boolean>;
  /** Blocks the head may grow between two polls before the node is judged faulty. */
  maxHeadJump: number;
}

export class BtcScanner {
  /** scriptPubKey hex -> our address. */
  readonly watched = new WatchedScripts();
  /** Our coins not known to be spent ("txid:vout"); never a watch-only output. */
  private unspent: Set<string> | null = null;
  /** Mempool txids already looked at (matching or not), pruned to the node's mempool each poll. */
  private seenMempool = new Set<string>();
  private lastSaved: Cursor | null = null;
  private readonly db: Kysely<BtcDB>;
  private readonly outputs: BtcOutputs;
  private readonly code: string;
  private readonly keepBlocks: number;
  private readonly heads: HeadGuard;

  constructor(private readonly o: ScannerOptions) {
    this.db = btcDb(o.storage.db);
    this.code = o.network.code;
    this.outputs = new BtcOutputs(this.db, this.code, o.now);
    this.keepBlocks = Math.max(288, o.confirmations * 2);
    this.heads = new HeadGuard(o.maxHeadJump, this.keepBlocks);
  }

  /** Blocks per request and requests per poll (tests and benchmarks tune these). */
  limitBatches(pollBatch: number, maxBatches: number): void {
    this.o.pollBatch = Math.max(1, pollBatch);
    this.o.maxBatches = Math.max(1, maxBatches);
  }

  /** Forget in-memory state (another process may have scanned while this one did not hold the lock). */
  reset(): void {
    this.unspent = null;
    this.seenMempool = new Set();
  }

  /** One scan step: blocks up to the node's head (bounded), then the mempool. Returns the cursor and head. */
  async poll(sink: ChainSink): Promise<{ height: number; head: number }> {
    if (!this.unspent) this.unspent = await this.outputs.unspentCoins();
    // The mempool is read BEFORE the head: a transaction missing from it then is either mined in a
    // block at or below the head (and found by the block scan) or really gone.
    const mempool = new Set(await this.o.node.mempool());
    const head = this.heads.check('getblockcount', await this.o.node.blockCount());
    let cursor = await this.loadCursor(head);
    if (cursor.height >= 0) checkBehindCursor('getblockcount', head, cursor.height, this.keepBlocks);
    // Another process scanned since this one last did: what it remembers may be stale.
    if (this.lastSaved && (this.lastSaved.height !== cursor.height || this.lastSaved.hash !== cursor.hash)) {
      this.reset();
      this.unspent = await this.outputs.unspentCoins();
    }
    if (cursor.height >= 0) {
      const onChain = cursor.height <= head ? await this.o.node.hashAt(cursor.height) : null;
      if (onChain !== cursor.hash) cursor = await this.rewind(cursor, head);
    }
    for (let i = 0; i < this.o.maxBatches && cursor.height < head; i++) {
      const next = await this.scanBatch(sink, cursor, Math.min(head, cursor.height + this.o.pollBatch));
      if (!next) break; // the chain moved under us: the next poll's cursor check sorts it out
      cursor = next;
    }
    if (cursor.height >= head) await this.followMempool(sink, mempool, cursor.height);
    this.lastSaved = cursor;
    await this.db.updateTable('scan_cursors').set({ node_height: head, updated_at: this.o.now() }).where('network', '=', this.code).execute();
    this.heads.commit(head);
    return { height: cursor.height, head };
  }

  // ---------------------------------------------------------------- blocks

  private async loadCursor(head: number): Promise<Cursor> {
    const row = await this.db.selectFrom('scan_cursors').select(['block_number', 'block_hash']).where('network', '=', this.code).executeTakeFirst();
    if (row) return { height: Number(row.block_number), hash: row.block_hash };
    const start = Math.max(0, Math.min(head + 1, this.o.startHeight ?? head - Math.max(this.o.confirmations, 10) + 1));
    const height = start - 1;
    const hash = height >= 0 ? await this.o.node.hashAt(height) : null;
    // A head the node cannot show a block below is made up: no cursor is saved from it.
    if (height >= 0 && !hash) throw new FaultyNodeError('getblockcount', `the node reports head ${head} but has no block ${height}`);
    await familyWrite(this.o.storage, this.db, async (trx) => {
      if (hash) await this.storeBlock(trx, height, hash);
      await trx
        .insertInto('scan_cursors')
        .values({ network: this.code, block_number: height, block_hash: hash, node_height: head, updated_at: this.o.now() })
        .onConflict((oc) => oc.column('network').doNothing())
        .execute();
    });
    return { height, hash };
  }

  /** Walks back to the last stored block still on the chain; later outputs become orphaned. */
  private async rewind(cursor: Cursor, head: number): Promise<Cursor> {
    let h = cursor.height;
    let hash: string | null = null;
    for (; h >= 0; h--) {
      const stored = await this.db.selectFrom('scan_blocks').select('hash').where('network', '=', this.code).where('number', '=', h).executeTakeFirst();
      const onChain = h <= head ? await this.o.node.hashAt(h) : null;
      if (!stored) {
        this.o.log('error', 'bitcoin reorganisation deeper than the stored block window', { network: this.code, height: h });
        hash = onChain;
        break;
      }
      if (onChain === stored.hash) {
        hash = stored.hash;
        break;
      }
    }
    this.o.log('warn', 'bitcoin chain reorganisation', { network: this.code, from: cursor.height, fork: h });
    const now = this.o.now();
    await familyWrite(this.o.storage, this.db, async (trx) => {
      await trx
        .updateTable('btc_outputs')
        .set({ status: 'orphaned', updated_at: now })
        .where('network', '=', this.code)
        .where('block_height', '>', h)
        .where('status', 'in', ['pending', 'confirmed'])
        .execute();
      // Spends in orphaned blocks are undone; our own stay reserved for our transaction.
      await trx
        .updateTable('btc_outputs')
        .set({ spent_txid: null, spent_by: null, spent_height: null, updated_at: now })
        .where('network', '=', this.code)
        .where('spent_height', '>', h)
        .where('spent_by', '=', 'foreign')
        .execute();
      await trx
        .updateTable('btc_outputs')
        .set({ spent_height: null, updated_at: now })
        .where('network', '=', this.code)
        .where('spent_height', '>', h)
        .execute();
      await trx.deleteFrom('scan_blocks').where('network', '=', this.code).where('number', '>', h).execute();
      await this.saveCursor(trx, { height: h, hash });
    });
    this.unspent = null;
    this.unspent = await this.outputs.unspentCoins();
    return { height: h, hash };
  }

  /** Scans (cursor, to]; returns the new cursor, or null when nothing consistent could be read. */
  private async scanBatch(sink: ChainSink, cursor: Cursor, to: number): Promise<Cursor | null> {
    const hashes = (await this.o.node.hashes(cursor.height + 1, to)).filter((h): h is string => h !== null);
    const fetched = await this.o.node.blocks(hashes);
    const blocks: NodeBlock[] = [];
    let prev = cursor.hash;
    for (const b of fetched) {
      if (prev !== null && b.previousblockhash !== prev) break;
      blocks.push(b);
      prev = b.hash;
    }
    if (blocks.length === 0) return null;
    const found: Row[] = [];
    const spends: Array<{ coin: string; txid: string; height: number }> = [];
    const now = this.o.now();
    for (const b of blocks) {
      for (const tx of b.txs) this.match(tx.txid, parsed(tx.txid, tx.hex), b, now, found, spends);
    }
    const last = blocks[blocks.length - 1]!;
    const next = { height: last.height, hash: last.hash };
    await this.settle(sink, next, blocks, found, spends);
    return next;
  }

  private match(txid: string, tx: ParsedTx, block: NodeBlock | null, now: number, found: Row[], spends: Array<{ coin: string; txid: string; height: number | null }>): void {
    for (const input of tx.inputs) {
      if (input.txid === NULL_TXID) continue;
      const coin = key(input.txid, input.vout);
      if (this.unspent!.has(coin)) spends.push({ coin, txid, height: block?.height ?? null });
    }
    tx.outputs.forEach((out, vout) => {
      const w = this.watched.get(out.script);
      if (!w || out.sats <= 0n) return;
      found.push({
        network: this.code,
        txid,
        vout,
        address: w.address,
        kind: w.kind,
        amount: Decimal.fromBaseUnits(out.sats, this.o.decimals).toString(),
        block_height: block?.height ?? null,
        block_hash: block?.hash ?? null,
        confirmations: 0,
        status: block ? 'pending' : 'mempool',
        spent_txid: null,
        spent_by: null,
        spent_height: null,
        created_at: now,
        updated_at: now,
      });
    });
  }

  /**
   * Reports what changed up to `cursor` (outputs found in its blocks, new confirmation counts),
   * then persists it with the blocks and the cursor.
   */
  private async settle(
    sink: ChainSink,
    cursor: Cursor,
    blocks: NodeBlock[],
    found: Row[],
    spends: Array<{ coin: string; txid: string; height: number | null }>,
  ): Promise<void> {
    const tip = cursor.height;
    const open = await this.outputs.withStatus(['pending']);
    const rows = new Map<string, Row>(open.map((r) => [key(r.txid, r.vout), r]));
    const changed = new Map<string, Row>();
    const known = await this.outputs.existing(found);
    for (const f of found) {
      const k = key(f.txid, f.vout);
      const old = known.get(k);
      if (old && old.block_hash === f.block_hash && (old.status === 'pending' || old.status === 'confirmed')) continue;
      const row = { ...f, created_at: old?.created_at ?? f.created_at, spent_txid: old?.spent_txid ?? null, spent_by: old?.spent_by ?? null, spent_height: old?.spent_height ?? null };
      rows.set(k, row);
      changed.set(k, row);
    }
    const report: Row[] = [];
    for (const [k, r] of rows) {
      if (r.status !== 'pending' || r.block_height === null || Number(r.block_height) > tip) continue;
      const conf = tip - Number(r.block_height) + 1;
      if (conf === r.confirmations && !changed.has(k)) continue;
      const u = { ...r, confirmations: conf, status: conf >= this.o.confirmations ? 'confirmed' : 'pending', updated_at: this.o.now() };
      if (reported(u.kind)) report.push(u);
      changed.set(k, u);
    }
    report.sort((a, b) => Number(a.block_height) - Number(b.block_height) || a.txid.localeCompare(b.txid) || a.vout - b.vout);
    for (const r of report) await this.report(sink, r);
    const spent = await this.spentRows(spends);
    await familyWrite(this.o.storage, this.db, async (trx) => {
      for (const r of changed.values()) await this.outputs.upsert(trx, r);
      for (const s of spent) await this.outputs.markSpent(trx, s);
      for (const b of blocks) await this.storeBlock(trx, b.height, b.hash);
      await trx.deleteFrom('scan_blocks').where('network', '=', this.code).where('number', '<', tip - this.keepBlocks).execute();
      await this.saveCursor(trx, cursor);
    });
    for (const r of changed.values()) if (r.spent_txid === null && isCoin(r.kind)) this.unspent!.add(key(r.txid, r.vout));
    for (const s of spent) this.unspent!.delete(s.coin);
  }

  // ---------------------------------------------------------------- mempool

  private async followMempool(sink: ChainSink, mempool: Set<string>, tip: number): Promise<void> {
    const fresh = [...mempool].filter((t) => !this.seenMempool.has(t));
    const raw = await this.o.node.rawTxs(fresh);
    const now = this.o.now();
    const found: Row[] = [];
    const spends: Array<{ coin: string; txid: string; height: number | null }> = [];
    for (const [txid, hex] of raw) this.match(txid, parsed(txid, hex), null, now, found, spends);
    // Transactions the node dropped meanwhile are looked at again if they come back.
    const seen = new Set<string>();
    for (const t of this.seenMempool) if (mempool.has(t)) seen.add(t);
    for (const t of raw.keys()) seen.add(t);
    this.seenMempool = seen;

    const known = await this.outputs.existing(found);
    const arrived: Row[] = [];
    for (const f of found) {
      const old = known.get(key(f.txid, f.vout));
      if (old && old.status !== 'dropped') continue; // already reported (or already in a block)
      arrived.push({ ...f, created_at: old?.created_at ?? f.created_at });
    }
    const open = await this.outputs.withStatus(['mempool', 'orphaned']);
    const back: Row[] = [];
    const gone: Row[] = [];
    for (const r of open) {
      if (mempool.has(r.txid)) {
        if (r.status === 'orphaned') back.push({ ...r, status: 'mempool', block_height: null, block_hash: null, confirmations: 0, updated_at: now });
      } else {
        gone.push({ ...r, status: 'dropped', confirmations: 0, updated_at: now });
      }
    }
    for (const r of [...arrived, ...back]) if (reported(r.kind)) await this.report(sink, r);
    for (const r of gone) if (reported(r.kind)) await sink.dropped(this.code, r.txid, r.vout);
    const spent = await this.spentRows(spends);
    await this.outputs.releaseDroppedSpends(mempool);
    if (arrived.length + back.length + gone.length + spent.length === 0) return;
    if (gone.length) this.o.log('info', 'bitcoin payments left the mempool unmined', { network: this.code, txids: gone.map((r) => r.txid), tip });
    await familyWrite(this.o.storage, this.db, async (trx) => {
      for (const r of [...arrived, ...back, ...gone]) await this.outputs.upsert(trx, r);
      for (const s of spent) await this.outputs.markSpent(trx, s);
    });
    // Coins spent in the mempool stay in `unspent` until the spend is mined (then its height is recorded).
    for (const r of arrived) if (isCoin(r.kind)) this.unspent!.add(key(r.txid, r.vout));
  }

  // ---------------------------------------------------------------- storage

  private async report(sink: ChainSink, r: Row): Promise<void> {
    await sink.transfer({
      network: this.code,
      currency: this.o.network.currencies.find((c) => c.native)!.code,
      txid: r.txid,
      index: r.vout,
      from: null,
      to: r.address,
      amount: r.amount,
      blockHeight: r.block_height === null ? null : Number(r.block_height),
      blockHash: r.block_hash,
      confirmations: r.confirmations,
    });
  }

  private async spentRows(spends: Array<{ coin: string; txid: string; height: number | null }>) {
    const out: Array<{ coin: string; txid: string; height: number | null; by: 'own' | 'foreign' }> = [];
    for (const s of spends) out.push({ ...s, by: (await this.o.isOwnTx(s.txid)) ? 'own' : 'foreign' });
    for (const s of out) {
      if (s.by === 'foreign') this.o.log('error', 'bitcoin: a coin of the gateway was spent by a transaction it did not sign', { network: this.code, coin: s.coin, txid: s.txid, alarm: 'foreign_spend' });
    }
    return out;
  }

  private async storeBlock(trx: Kysely<BtcDB> | Trx, height: number, hash: string): Promise<void> {
    await trx
      .insertInto('scan_blocks')
      .values({ network: this.code, number: height, hash })
      .onConflict((oc) => oc.columns(['network', 'number']).doUpdateSet({ hash }))
      .execute();
  }

  private async saveCursor(trx: Trx, c: Cursor): Promise<void> {
    this.lastSaved = c;
    await trx.updateTable('scan_cursors').set({ block_number: c.height, block_hash: c.hash, updated_at: this.o.now() }).where('network', '=', this.code).execute();
  }
}

/** Payments to an address handed out (the gateway's own, or watch-only) are reported; change is not. */
function reported(kind: string): boolean {
  return kind === 'deposit' || kind === 'watch';
}

/** Whether an output is the gateway's coin (spendable by its seed, its spends followed). */
function isCoin(kind: string): boolean {
  return kind === 'deposit' || kind === 'change';
}

/** A transaction the node gave, parsed; bytes that are no transaction are the node's fault. */
function parsed(txid: string, hex: string): ParsedTx {
  try {
    return parseRawTx(hex);
  } catch (err) {
    throw new FaultyNodeError('getblock', `transaction ${txid} is not a transaction: ${(err as Error).message}`);
  }
}
