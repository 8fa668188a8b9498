// How far each `bitcoin-core` network has been scanned and how far behind its node it is, from the
// stored cursors: readable by an API process that never scans (for /readyz and /metrics). The
// networks are those whose cursor records the node's height, which only this family's scan does.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { ScanStatus } from '../family.ts';

export async function bitcoinScanStatus(db: Kysely<DB>): Promise<ScanStatus[]> {
  const rows = await db.selectFrom('scan_cursors').selectAll().where('node_height', 'is not', null).orderBy('network').execute();
  return rows.map((r) => {
    const height = Number(r.block_number);
    const nodeHeight = r.node_height === null ? null : Number(r.node_height);
    return { network: r.network, height, nodeHeight, lag: nodeHeight === null ? null : Math.max(0, nodeHeight - height), updatedAt: Number(r.updated_at) };
  });
}
