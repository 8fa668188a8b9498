// What an account-model driver (EVM, TRON) has told the sink about transfers into watched
// addresses: after each batch of blocks it reports the new transfers and the new confirmation
// counts, and once caught up with the head the transfers whose block left the chain (`dropped`),
// then persists all of it with the block trail in one database transaction. The sink is
// idempotent, so a crash between the two replays at worst.
import type { ChainSink, IncomingTransfer } from './contract.ts';
import { BlockTrail, type BlockTrailOptions, type Cursor, type ScanTransfersTable, type TrailBlock } from './reorg.ts';

/** A transfer found in a block. */
export interface SeenTransfer {
  currency: string;
  txid: string;
  idx: number;
  from: string | null;
  /** As stored (the family's canonical form). */
  to: string;
  amount: string;
  block: number;
  blockHash: string;
}

/** The confirmations to report for a pending transfer at `tip`, and whether that makes it final;
 * null when nothing changed since `row` was reported. */
export type Progress = (row: ScanTransfersTable, tip: number) => { conf: number; final: boolean } | null;

/** The block trail's settings, with the family's own block type `B` in place of a trail block. */
export interface ReportedTransfersOptions<B> extends Omit<BlockTrailOptions, 'block'> {
  /** The chain's block at a height, as the family's API gives it (null when it has none). */
  header(n: number): Promise<B | null>;
  /** What the trail keeps of a block. */
  trailBlock(b: B): TrailBlock;
  /** The address as the sink sees it, from its stored form. */
  displayAddress: (stored: string) => string;
}

export class ReportedTransfers<B> {
  /** The scanned chain the transfers are reported from: its cursor, recent blocks and forks. */
  readonly trail: BlockTrail;

  constructor(private readonly o: ReportedTransfersOptions<B>) {
    this.trail = new BlockTrail({
      ...o,
      block: async (n) => {
        const b = await o.header(n);
        return b ? o.trailBlock(b) : null;
      },
    });
  }

  /**
   * Reports to the sink what changed up to `cursor` (new transfers, new confirmation counts and,
   * once caught up with the head, transfers whose block left the chain), then persists it; the
   * cursor moves only when blocks were processed. `progress` says what a pending transfer's depth is.
   */
  async settle(sink: ChainSink, cursor: Cursor, blocks: B[], found: SeenTransfer[], caughtUp: boolean, progress: Progress): Promise<void> {
    const { trail } = this;
    const { network } = this.o;
    const tip = cursor.number;
    const open = await trail.db
      .selectFrom('scan_transfers')
      .selectAll()
      .where('network', '=', network)
      .where('status', 'in', ['pending', 'orphaned'])
      .execute();
    const key = (txid: string, idx: number) => `${txid}:${idx}`;
    const rows = new Map<string, ScanTransfersTable>(open.map((r) => [key(r.txid, r.idx), r]));
    const changed = new Map<string, ScanTransfersTable>();
    const now = this.o.now();

    if (found.length) {
      const known = await trail.db
        .selectFrom('scan_transfers')
        .selectAll()
        .where('network', '=', network)
        .where('txid', 'in', [...new Set(found.map((f) => f.txid))])
        .execute();
      for (const r of known) rows.set(key(r.txid, r.idx), r);
    }
    for (const f of found) {
      const k = key(f.txid, f.idx);
      const old = rows.get(k);
      if (old && old.block_hash === f.blockHash && (old.status === 'pending' || old.status === 'confirmed')) continue;
      const row: ScanTransfersTable = {
        network,
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

    const report: ScanTransfersTable[] = [];
    const drop: ScanTransfersTable[] = [];
    for (const [k, r] of rows) {
      if (r.status === 'pending' && Number(r.block_number) <= tip) {
        const p = progress(r, tip);
        if (p) {
          const u = { ...r, confirmations: p.conf, status: p.final ? 'confirmed' : 'pending', updated_at: now };
          report.push(u);
          changed.set(k, u);
        }
      } else if (r.status === 'orphaned' && caughtUp) {
        const u = { ...r, status: 'dropped', confirmations: 0, updated_at: now };
        drop.push(u);
        changed.set(k, u);
      }
    }

    for (const r of drop) await sink.dropped(network, r.txid, r.idx);
    report.sort((a, b) => Number(a.block_number) - Number(b.block_number) || a.idx - b.idx);
    for (const r of report) await sink.transfer(this.toIncoming(r));

    await trail.write(async (trx) => {
      for (const r of changed.values()) {
        await trx
          .insertInto('scan_transfers')
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
      if (blocks.length) await trail.advance(trx, blocks.map(this.o.trailBlock), cursor);
    });
  }

  private toIncoming(r: ScanTransfersTable): IncomingTransfer {
    return {
      network: this.o.network,
      currency: r.currency,
      txid: r.txid,
      index: r.idx,
      from: r.from_address,
      to: this.o.displayAddress(r.to_address),
      amount: r.amount,
      blockHeight: Number(r.block_number),
      blockHash: r.block_hash,
      confirmations: r.confirmations,
    };
  }
}
