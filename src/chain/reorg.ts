// The scanned chain as an account-model driver (EVM, TRON) remembers it: how far it has read (the
// cursor), the hashes of the recent blocks it read, and the walk back to the fork point when the
// chain reorganised under it. Every family's networks share the scan tables (scan_cursors,
// scan_blocks, scan_transfers), each row keyed by network, so the rule is written once.
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { ChainLog } from './contract.ts';
import { FaultyNodeError } from './errors.ts';
import type { Storage } from '../db/storage.ts';
import { checkBehindCursor } from './head-guard.ts';

/** How many recent blocks are remembered, so how deep a reorganisation the scan can undo. */
export function reorgWindow(confirmations: number): number {
  return Math.max(256, confirmations * 2);
}

export type { ScanCursorsTable, ScanBlocksTable, ScanTransfersTable } from '../db/tables/scan.ts';

export type ScanTrx = Transaction<DB>;

export interface Cursor {
  number: number;
  hash: string | null;
}

/** A block as the trail stores it. */
export interface TrailBlock {
  number: number;
  hash: string;
  parentHash: string;
}

export interface BlockTrailOptions {
  /** The family, as log lines name it (its ChainFamily name). */
  family: string;
  network: string;
  db: Kysely<DB>;
  /** The same storage, through which the trail writes (`write`). */
  storage: Storage;
  confirmations: number;
  now: () => number;
  log: ChainLog;
  /** First block to scan when the network never was (default head - max(confirmations, 128)). */
  startBlock?: number;
  /** The chain's block at a height (null when it has none). */
  block(n: number): Promise<TrailBlock | null>;
}

export class BlockTrail {
  readonly db: Kysely<DB>;
  private readonly keepBlocks: number;

  constructor(private readonly o: BlockTrailOptions) {
    this.db = o.db;
    this.keepBlocks = reorgWindow(o.confirmations);
  }

  /** Runs `fn` in the storage's write transaction (`Storage.write`), seen with the scan tables. */
  write<R>(fn: (trx: Transaction<DB>) => Promise<R>): Promise<R> {
    return this.o.storage.write(fn);
  }

  /**
   * The cursor to continue from: the stored one if it is still on the chain, else the fork point
   * (later transfers are marked orphaned). A network never scanned starts a little below the head.
   */
  async resume(head: number): Promise<Cursor> {
    const cursor = await this.load(head);
    if (cursor.number < 0) return cursor;
    checkBehindCursor('head', head, cursor.number, this.keepBlocks);
    const b = cursor.number <= head ? await this.o.block(cursor.number) : null;
    return !b || b.hash !== cursor.hash ? this.rewind(cursor, head) : cursor;
  }

  private async load(head: number): Promise<Cursor> {
    const row = await this.db
      .selectFrom('scan_cursors')
      .select(['block_number', 'block_hash'])
      .where('network', '=', this.o.network)
      .executeTakeFirst();
    if (row) return { number: Number(row.block_number), hash: row.block_hash };
    const start = Math.max(0, Math.min(head + 1, this.o.startBlock ?? head - Math.max(this.o.confirmations, 128)));
    const number = start - 1;
    const b = number >= 0 ? await this.o.block(number) : null;
    // A head the node cannot show a block below is made up: no cursor is saved from it.
    if (number >= 0 && !b) throw new FaultyNodeError('head', `the node reports head ${head} but has no block ${number}`);
    const cursor = { number, hash: b?.hash ?? null };
    await this.write(async (trx) => {
      if (b) await this.storeBlocks(trx, [b]);
      await trx
        .insertInto('scan_cursors')
        .values({ network: this.o.network, block_number: number, block_hash: cursor.hash, updated_at: this.o.now() })
        .onConflict((oc) => oc.column('network').doNothing())
        .execute();
    });
    return cursor;
  }

  /** Finds the last stored block still on the chain; marks later transfers orphaned. */
  private async rewind(cursor: Cursor, head: number): Promise<Cursor> {
    const family = this.o.family;
    let k = cursor.number;
    let hash: string | null = null;
    for (; k >= 0; k--) {
      const stored = await this.db
        .selectFrom('scan_blocks')
        .select('hash')
        .where('network', '=', this.o.network)
        .where('number', '=', k)
        .executeTakeFirst();
      const onChain = k <= head ? await this.o.block(k) : null;
      if (!stored) {
        // Deeper than the remembered window: accept the chain as it is from here.
        this.o.log('error', `${family} reorganisation deeper than the stored block window`, { network: this.o.network, block: k });
        hash = onChain?.hash ?? null;
        break;
      }
      if (onChain && onChain.hash === stored.hash) {
        hash = stored.hash;
        break;
      }
    }
    const fork: Cursor = { number: k, hash };
    this.o.log('warn', `${family} chain reorganisation`, { network: this.o.network, from: cursor.number, fork: k });
    await this.write(async (trx) => {
      await trx
        .updateTable('scan_transfers')
        .set({ status: 'orphaned', updated_at: this.o.now() })
        .where('network', '=', this.o.network)
        .where('block_number', '>', k)
        .where('status', 'in', ['pending', 'confirmed'])
        .execute();
      await trx.deleteFrom('scan_blocks').where('network', '=', this.o.network).where('number', '>', k).execute();
      await this.saveCursor(trx, fork);
    });
    return fork;
  }

  /** Records the blocks just processed, forgets the ones below the window, moves the cursor. */
  async advance(trx: ScanTrx, blocks: TrailBlock[], cursor: Cursor): Promise<void> {
    await this.storeBlocks(trx, blocks);
    await trx
      .deleteFrom('scan_blocks')
      .where('network', '=', this.o.network)
      .where('number', '<', cursor.number - this.keepBlocks)
      .execute();
    await this.saveCursor(trx, cursor);
  }

  private async storeBlocks(trx: ScanTrx, blocks: TrailBlock[]): Promise<void> {
    for (const b of blocks) {
      await trx
        .insertInto('scan_blocks')
        .values({ network: this.o.network, number: b.number, hash: b.hash, parent_hash: b.parentHash })
        .onConflict((oc) => oc.columns(['network', 'number']).doUpdateSet({ hash: b.hash, parent_hash: b.parentHash }))
        .execute();
    }
  }

  private async saveCursor(trx: ScanTrx, c: Cursor): Promise<void> {
    await trx
      .updateTable('scan_cursors')
      .set({ block_number: c.number, block_hash: c.hash, updated_at: this.o.now() })
      .where('network', '=', this.o.network)
      .execute();
  }
}
