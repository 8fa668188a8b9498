// Which networks' nodes are faulty now: a node that answered what no sane node says (a
// FaultyNodeError from any family: an impossible height, a head that jumped or fell back beyond
// its window, a malformed value, an answer over the size cap). Chains.poll records each round's
// outcome here; the state is a table (node_faults) so that /readyz and /metrics of any process,
// one that never scans included, show it. A warning names the network when it turns faulty and
// when it recovers, once per change, not once per failed round.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { ChainLog } from './contract.ts';
import type { FaultyNodeError } from './errors.ts';

export interface NodeFault {
  network: string;
  reason: string;
  since: number;
  updatedAt: number;
}

/** How often a process that found a node sane looks again whether another process recorded it faulty. */
const RECHECK_MS = 5000;

export class NodeFaults {
  /** What this process last recorded per network (absent: not known, a row may be left from before). */
  private readonly state = new Map<string, 'faulty' | 'sane'>();
  /** When this process last made sure no row is left for a sane network. */
  private readonly checked = new Map<string, number>();

  constructor(
    private readonly db: Kysely<DB>,
    private readonly now: () => number,
    private readonly log: ChainLog,
  ) {}

  /** A round of `network` failed with the node's fault. */
  async faulty(network: string, err: FaultyNodeError): Promise<void> {
    const now = this.now();
    await this.db
      .insertInto('node_faults')
      .values({ network, reason: err.message, since: now, updated_at: now })
      .onConflict((oc) => oc.column('network').doUpdateSet({ reason: err.message, updated_at: now }))
      .execute();
    if (this.state.get(network) !== 'faulty') {
      this.log('warn', 'chain node faulty: nothing is scanned on this network until it answers sanely', { network, reason: err.message });
    }
    this.state.set(network, 'faulty');
  }

  /** A round of `network` completed: its node answered sanely. */
  async sane(network: string): Promise<void> {
    const now = this.now();
    // Another process may have recorded a fault since (it took the scanner lock in between): looked
    // at again every few seconds, a read, so that a sane round costs no write.
    if (this.state.get(network) === 'sane' && now - (this.checked.get(network) ?? 0) < RECHECK_MS) return;
    this.checked.set(network, now);
    const row = await this.db.selectFrom('node_faults').select('network').where('network', '=', network).executeTakeFirst();
    if (row) {
      await this.db.deleteFrom('node_faults').where('network', '=', network).execute();
      this.log('warn', 'chain node recovered: scanning resumes from the last scanned block', { network });
    }
    this.state.set(network, 'sane');
  }
}

/** The networks whose node is faulty now, by network code. */
export async function listNodeFaults(db: Kysely<DB>): Promise<NodeFault[]> {
  const rows = await db.selectFrom('node_faults').selectAll().orderBy('network').execute();
  return rows.map((r) => ({ network: r.network, reason: r.reason, since: Number(r.since), updatedAt: Number(r.updated_at) }));
}
