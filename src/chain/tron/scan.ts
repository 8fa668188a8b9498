// Detection for the `tron` driver. Each poll reads the head (and the solidified head when the
// node serves /walletsolidity), then the blocks after the stored cursor: up to `pollBatch` blocks
// in one /wallet/getblockbylimitnext, and for each block that has transactions one
// /wallet/gettransactioninfobyblocknum. TRX payments are the blocks' successful TransferContracts;
// TRC-20 payments are the `Transfer` logs of known token contracts in the infos of successful
// calls (a REVERTed or failed call is never credited, whatever its logs say). Both are matched
// against an in-memory set of watched addresses, so the cost per block does not depend on how many
// addresses are watched. Zero-value transfers are ignored (address-poisoning spam).
//
// Reorganisations: recent block ids are stored; a block that does not link to the previous one
// (or a cursor block that left the chain) walks back to the fork point, and the transfers of the
// orphaned blocks are reported `dropped` unless the new chain has them again. A payment is final
// once its block is solidified, or `confirmations` deep when the node has no solidity API.
import type { Kysely, Transaction } from 'kysely';
import type { ChainSink, IncomingTransfer } from '../contract.ts';
import { Decimal } from '../../money/decimal.ts';
import { accountIdHex, fromHexAddress } from './address.ts';
import type { TronApi, TronBlock, TronTxInfo } from './api.ts';
import type { TronDB, TronTransfersTable } from './schema.ts';

export const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

export interface TronToken {
  code: string;
  /** base58 */
  contract: string;
  decimals: number;
}

export interface Cursor {
  number: number;
  hash: string | null;
}

/** The chain as one poll sees it. */
export interface ChainView {
  head: number;
  headTime: number;
  /** Highest final block: the solidified head, or head - confirmations + 1. */
  final: number;
  /** Timestamp of the final block (what expirations are judged against). */
  finalTime: number;
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

export interface ScannerOptions {
  network: string;
  api: TronApi;
  db: Kysely<TronDB>;
  native: { code: string; decimals: number };
  tokens: TronToken[];
  confirmations: number;
  /** Watched deposit addresses (base58), shared with the driver. */
  watched: ReadonlySet<string>;
  now: () => number;
  pollBatch: number;
  maxBatchesPerPoll: number;
  startBlock?: number;
  /** Our own TRX transfers to deposit addresses (activation, energy money) are not payments. */
  isOwnTransaction: (txids: string[]) => Promise<Set<string>>;
  log: (level: 'info' | 'warn' | 'error', msg: string, data?: Record<string, unknown>) => void;
}

type Trx = Transaction<TronDB>;

export function blockNumber(b: TronBlock): number {
  return b.block_header.raw_data.number ?? 0;
}

export class TronScanner {
  private readonly tokenById = new Map<string, TronToken>();
  private readonly keepBlocks: number;
  /** null: not known yet; false: the node does not serve the solidity API. */
  private solidity: boolean | null = null;

  constructor(private readonly o: ScannerOptions) {
    for (const t of o.tokens) this.tokenById.set(accountIdHex(t.contract), t);
    this.keepBlocks = Math.max(256, o.confirmations * 2);
  }

  /** Head, and what is final, as the node says now. */
  async view(): Promise<ChainView> {
    const head = await this.o.api.nowBlock();
    const headNum = blockNumber(head);
    const headTime = head.block_header.raw_data.timestamp ?? 0;
    if (this.solidity !== false) {
      const solid = await this.o.api.solidNowBlock();
      if (solid) {
        this.solidity = true;
        return { head: headNum, headTime, final: blockNumber(solid), finalTime: solid.block_header.raw_data.timestamp ?? 0 };
      }
      if (this.solidity === null) this.o.log('info', 'tron node serves no solidity API: finality by confirmations', { network: this.o.network });
      this.solidity = false;
    }
    const final = headNum - this.o.confirmations + 1;
    const fb = final >= 0 ? await this.o.api.blockByNum(final) : null;
    return { head: headNum, headTime, final, finalTime: fb?.block_header.raw_data.timestamp ?? 0 };
  }

  async poll(sink: ChainSink, view: ChainView): Promise<void> {
    let cursor = await this.loadCursor(view.head);
    if (cursor.number >= 0) {
      const b = cursor.number <= view.head ? await this.o.api.blockByNum(cursor.number) : null;
      if (!b || b.blockID !== cursor.hash) cursor = await this.rewind(cursor, view.head);
    }
    let batches = 0;
    let progressed = false;
    while (cursor.number < view.head && batches < this.o.maxBatchesPerPoll) {
      const to = Math.min(view.head, cursor.number + this.o.pollBatch);
      const next = await this.scanBatch(sink, cursor, to, view);
      batches++;
      if (!next) break; // the chain moved under us: the next poll's cursor check sorts it out
      cursor = next;
      progressed = true;
    }
    if (!progressed) await this.settle(sink, cursor, [], [], view, cursor.number >= view.head);
  }

  private async loadCursor(head: number): Promise<Cursor> {
    const row = await this.o.db.selectFrom('tron_cursors').select(['block_number', 'block_hash']).where('network', '=', this.o.network).executeTakeFirst();
    if (row) return { number: Number(row.block_number), hash: row.block_hash };
    const start = Math.max(0, Math.min(head + 1, this.o.startBlock ?? head - Math.max(this.o.confirmations, 128)));
    const number = start - 1;
    const b = number >= 0 ? await this.o.api.blockByNum(number) : null;
    const cursor = { number, hash: b?.blockID ?? null };
    await this.o.db.transaction().execute(async (trx) => {
      if (b) await this.storeBlocks(trx, [b]);
      await trx
        .insertInto('tron_cursors')
        .values({ network: this.o.network, block_number: number, block_hash: cursor.hash, updated_at: this.o.now() })
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
      const stored = await this.o.db.selectFrom('tron_blocks').select('hash').where('network', '=', this.o.network).where('number', '=', k).executeTakeFirst();
      const onChain = k <= head ? await this.o.api.blockByNum(k) : null;
      if (!stored) {
        this.o.log('error', 'tron reorganisation deeper than the stored block window', { network: this.o.network, block: k });
        hash = onChain?.blockID ?? null;
        break;
      }
      if (onChain && onChain.blockID === stored.hash) {
        hash = stored.hash;
        break;
      }
    }
    this.o.log('warn', 'tron chain reorganisation', { network: this.o.network, from: cursor.number, fork: k });
    const fork = { number: k, hash };
    await this.o.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('tron_transfers')
        .set({ status: 'orphaned', updated_at: this.o.now() })
        .where('network', '=', this.o.network)
        .where('block_number', '>', k)
        .where('status', 'in', ['pending', 'confirmed'])
        .execute();
      await trx.deleteFrom('tron_blocks').where('network', '=', this.o.network).where('number', '>', k).execute();
      await this.saveCursor(trx, fork);
    });
    return fork;
  }

  /** Scans (cursor, to]; returns the new cursor, or null when nothing consistent could be read. */
  private async scanBatch(sink: ChainSink, cursor: Cursor, to: number, view: ChainView): Promise<Cursor | null> {
    const fetched = await this.o.api.blocks(cursor.number + 1, to + 1);
    fetched.sort((a, b) => blockNumber(a) - blockNumber(b));
    const blocks: TronBlock[] = [];
    let prev = cursor.hash;
    let expect = cursor.number + 1;
    for (const b of fetched) {
      if (blockNumber(b) !== expect || (prev !== null && b.block_header.raw_data.parentHash !== prev)) break;
      blocks.push(b);
      prev = b.blockID;
      expect++;
    }
    // Transaction infos (logs, results) of the blocks that have transactions; they must be the
    // infos of exactly these transactions, or the block changed between the two calls.
    const infos = new Map<number, TronTxInfo[]>();
    await mapLimit(blocks.filter((b) => b.transactions?.length), 8, async (b) => {
      infos.set(blockNumber(b), await this.o.api.txInfosByBlock(blockNumber(b)));
    });
    for (let i = 0; i < blocks.length; i++) {
      const b = blocks[i]!;
      const ids = new Set((b.transactions ?? []).map((t) => t.txID));
      const got = infos.get(blockNumber(b)) ?? [];
      if (got.length !== ids.size || got.some((x) => !ids.has(x.id) || (x.blockNumber !== undefined && x.blockNumber !== blockNumber(b)))) {
        blocks.length = i;
        break;
      }
    }
    if (blocks.length === 0) return null;
    const last = blocks[blocks.length - 1]!;
    const found = await this.extract(blocks, infos);
    const next = { number: blockNumber(last), hash: last.blockID };
    await this.settle(sink, next, blocks, found, view, next.number >= view.head);
    return next;
  }

  private async extract(blocks: TronBlock[], infos: Map<number, TronTxInfo[]>): Promise<Found[]> {
    const found: Found[] = [];
    const watched = this.o.watched;
    for (const b of blocks) {
      const n = blockNumber(b);
      for (const tx of b.transactions ?? []) {
        const c = tx.raw_data.contract?.[0];
        if (!c || c.type !== 'TransferContract' || tx.raw_data.contract.length !== 1) continue;
        if ((tx.ret?.[0]?.contractRet ?? 'SUCCESS') !== 'SUCCESS') continue;
        const v = c.parameter.value as { to_address?: string; owner_address?: string; amount?: number };
        let to: string;
        try {
          to = fromHexAddress(String(v.to_address ?? ''));
        } catch {
          continue;
        }
        if (!watched.has(to)) continue;
        const amount = BigInt(v.amount ?? 0);
        if (amount <= 0n) continue;
        found.push({
          currency: this.o.native.code,
          txid: tx.txID,
          idx: 0,
          from: safeAddress(String(v.owner_address ?? '')),
          to,
          amount: Decimal.fromBaseUnits(amount, this.o.native.decimals).toString(),
          block: n,
          blockHash: b.blockID,
        });
      }
      for (const info of infos.get(n) ?? []) {
        // A failed or reverted call changes no balance, whatever logs a node may show for it.
        if (info.result === 'FAILED' || (info.receipt?.result ?? 'SUCCESS') !== 'SUCCESS') continue;
        (info.log ?? []).forEach((log, idx) => {
          const token = this.tokenById.get(log.address.toLowerCase().replace(/^41/, ''));
          const topics = log.topics ?? [];
          if (!token || topics.length !== 3 || topics[0]!.toLowerCase() !== TRANSFER_TOPIC || (log.data ?? '').length !== 64) return;
          const to = safeAddress(topics[2]!.slice(24));
          if (!to || !watched.has(to)) return;
          const value = BigInt(`0x${log.data}`);
          if (value <= 0n) return; // zero-value transfers are address-poisoning spam
          found.push({
            currency: token.code,
            txid: info.id,
            idx,
            from: safeAddress(topics[1]!.slice(24)),
            to,
            amount: Decimal.fromBaseUnits(value, token.decimals).toString(),
            block: n,
            blockHash: b.blockID,
          });
        });
      }
    }
    const natives = found.filter((f) => f.currency === this.o.native.code).map((f) => f.txid);
    if (natives.length === 0) return found;
    const ours = await this.o.isOwnTransaction(natives);
    return found.filter((f) => !(f.currency === this.o.native.code && ours.has(f.txid)));
  }

  /** Confirmations to report: at least `confirmations` once final, below it until then. */
  private reported(block: number, tip: number, view: ChainView): { conf: number; final: boolean } {
    const depth = tip - block + 1;
    const final = block <= view.final && block <= tip;
    return { conf: final ? Math.max(depth, this.o.confirmations) : Math.min(depth, this.o.confirmations - 1), final };
  }

  private async settle(sink: ChainSink, cursor: Cursor, blocks: TronBlock[], found: Found[], view: ChainView, caughtUp: boolean): Promise<void> {
    const tip = cursor.number;
    const open = await this.o.db.selectFrom('tron_transfers').selectAll().where('network', '=', this.o.network).where('status', 'in', ['pending', 'orphaned']).execute();
    const key = (txid: string, idx: number) => `${txid}:${idx}`;
    const rows = new Map<string, TronTransfersTable>(open.map((r) => [key(r.txid, r.idx), r]));
    const changed = new Map<string, TronTransfersTable>();
    const now = this.o.now();
    if (found.length) {
      const known = await this.o.db
        .selectFrom('tron_transfers')
        .selectAll()
        .where('network', '=', this.o.network)
        .where('txid', 'in', [...new Set(found.map((f) => f.txid))])
        .execute();
      for (const r of known) rows.set(key(r.txid, r.idx), r);
    }
    for (const f of found) {
      const k = key(f.txid, f.idx);
      const old = rows.get(k);
      if (old && old.block_hash === f.blockHash && (old.status === 'pending' || old.status === 'confirmed')) continue;
      const row: TronTransfersTable = {
        network: this.o.network,
        txid: f.txid,
        idx: f.idx,
        currency: f.currency,
        to_address: f.to,
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
    const report: TronTransfersTable[] = [];
    const drop: TronTransfersTable[] = [];
    for (const [k, r] of rows) {
      if (r.status === 'pending' && Number(r.block_number) <= tip) {
        const { conf, final } = this.reported(Number(r.block_number), tip, view);
        if (conf !== r.confirmations || final) {
          const u = { ...r, confirmations: conf, status: final ? 'confirmed' : 'pending', updated_at: now };
          report.push(u);
          changed.set(k, u);
        }
      } else if (r.status === 'orphaned' && caughtUp) {
        const u = { ...r, status: 'dropped', confirmations: 0, updated_at: now };
        drop.push(u);
        changed.set(k, u);
      }
    }
    for (const r of drop) await sink.dropped(this.o.network, r.txid, r.idx);
    report.sort((a, b) => Number(a.block_number) - Number(b.block_number) || a.idx - b.idx);
    for (const r of report) await sink.transfer(this.toIncoming(r));

    await this.o.db.transaction().execute(async (trx) => {
      for (const r of changed.values()) {
        await trx
          .insertInto('tron_transfers')
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
        await trx.deleteFrom('tron_blocks').where('network', '=', this.o.network).where('number', '<', tip - this.keepBlocks).execute();
        await this.saveCursor(trx, cursor);
      }
    });
  }

  private toIncoming(r: TronTransfersTable): IncomingTransfer {
    return {
      network: this.o.network,
      currency: r.currency,
      txid: r.txid,
      index: r.idx,
      from: r.from_address,
      to: r.to_address,
      amount: r.amount,
      blockHeight: Number(r.block_number),
      blockHash: r.block_hash,
      confirmations: r.confirmations,
    };
  }

  private async storeBlocks(trx: Trx, blocks: TronBlock[]): Promise<void> {
    for (const b of blocks) {
      const parent = b.block_header.raw_data.parentHash;
      await trx
        .insertInto('tron_blocks')
        .values({ network: this.o.network, number: blockNumber(b), hash: b.blockID, parent_hash: parent })
        .onConflict((oc) => oc.columns(['network', 'number']).doUpdateSet({ hash: b.blockID, parent_hash: parent }))
        .execute();
    }
  }

  private async saveCursor(trx: Trx, c: Cursor): Promise<void> {
    await trx.updateTable('tron_cursors').set({ block_number: c.number, block_hash: c.hash, updated_at: this.o.now() }).where('network', '=', this.o.network).execute();
  }
}

function safeAddress(hex: string): string | null {
  try {
    return fromHexAddress(hex.length > 42 ? hex.slice(-40) : hex);
  } catch {
    return null;
  }
}

async function mapLimit<T>(items: T[], limit: number, fn: (t: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
