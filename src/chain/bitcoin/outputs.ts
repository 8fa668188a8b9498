// The outputs a Bitcoin-family scan found for us (btc_outputs): payments to deposit addresses,
// change of our own transactions, and who spent each of them (not for watch-only deposit
// addresses, whose outputs are the merchant's). The scanner decides what to report; this module
// reads and writes the rows.
import type { Kysely, Transaction } from 'kysely';
import type { BtcDB, BtcOutputsTable } from './schema.ts';

type Row = BtcOutputsTable;
export type Trx = Transaction<BtcDB>;

/** A coin's key: "txid:vout". */
export const coinKey = (txid: string, vout: number) => `${txid}:${vout}`;

export class BtcOutputs {
  constructor(
    private readonly db: Kysely<BtcDB>,
    private readonly code: string,
    private readonly now: () => number,
  ) {}

  async withStatus(statuses: string[]): Promise<Row[]> {
    return this.db.selectFrom('btc_outputs').selectAll().where('network', '=', this.code).where('status', 'in', statuses).execute();
  }

  /** Someone else's mempool spend of our coin that left the mempool unmined: the coin is ours to spend again. */
  async releaseDroppedSpends(mempool: Set<string>): Promise<void> {
    const held = await this.db
      .selectFrom('btc_outputs')
      .select(['txid', 'vout', 'spent_txid'])
      .where('network', '=', this.code)
      .where('spent_by', '=', 'foreign')
      .where('spent_height', 'is', null)
      .execute();
    for (const h of held) {
      if (h.spent_txid && mempool.has(h.spent_txid)) continue;
      await this.db
        .updateTable('btc_outputs')
        .set({ spent_txid: null, spent_by: null, updated_at: this.now() })
        .where('network', '=', this.code)
        .where('txid', '=', h.txid)
        .where('vout', '=', h.vout)
        .where('spent_height', 'is', null)
        .execute();
    }
  }

  async existing(found: Row[]): Promise<Map<string, Row>> {
    const out = new Map<string, Row>();
    const txids = [...new Set(found.map((f) => f.txid))];
    for (let i = 0; i < txids.length; i += 500) {
      const part = txids.slice(i, i + 500);
      const rows = await this.db.selectFrom('btc_outputs').selectAll().where('network', '=', this.code).where('txid', 'in', part).execute();
      for (const r of rows) out.set(coinKey(r.txid, r.vout), r);
    }
    return out;
  }

  async markSpent(trx: Trx, s: { coin: string; txid: string; height: number | null; by: string }): Promise<void> {
    const [txid, vout] = s.coin.split(':') as [string, string];
    await trx
      .updateTable('btc_outputs')
      .set({ spent_txid: s.txid, spent_by: s.by, spent_height: s.height, updated_at: this.now() })
      .where('network', '=', this.code)
      .where('txid', '=', txid)
      .where('vout', '=', Number(vout))
      .execute();
  }

  async upsert(trx: Trx, r: Row): Promise<void> {
    await trx
      .insertInto('btc_outputs')
      .values(r)
      .onConflict((oc) =>
        oc.columns(['network', 'txid', 'vout']).doUpdateSet({
          block_height: r.block_height,
          block_hash: r.block_hash,
          confirmations: r.confirmations,
          status: r.status,
          updated_at: r.updated_at,
        }),
      )
      .execute();
  }

  /** Our coins not known to be spent ("txid:vout"): outputs to watch-only addresses are the merchant's, never ours. */
  async unspentCoins(): Promise<Set<string>> {
    const rows = await this.db
      .selectFrom('btc_outputs')
      .select(['txid', 'vout'])
      .where('network', '=', this.code)
      .where('kind', '!=', 'watch')
      .where('spent_height', 'is', null)
      .where('status', '!=', 'dropped')
      .execute();
    return new Set(rows.map((r) => coinKey(r.txid, r.vout)));
  }
}
