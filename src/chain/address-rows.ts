// What both kinds of address pool share (./allocate.ts for the seed's, ./material-pool.ts for a
// merchant's watch-only material): the allocator's view of the gateway, the statements a request
// runs to take a pooled address or reserve an index and record the address's owner, and this
// process's bookkeeping of refills under way and pool sizes.
import type { Kysely, Transaction } from 'kysely';
import { sql } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Storage } from '../db/dialect.ts';
import type { AddressFormats } from './address/index.ts';
import { statement } from '../db/statement.ts';
import { writesInWith } from '../db/differences.ts';
import type { ChainFamily } from './family.ts';
import type { CustodyMode } from './network-settings.ts';

export type Db = Kysely<DB> | Transaction<DB>;

export interface AllocatorCtx {
  storage: Storage;
  seed: () => Uint8Array;
  /** The address formats of the chain families, each network's custody and its family. */
  chains: {
    readonly families: { readonly addresses: AddressFormats };
    custodyMode(code: string): CustodyMode;
    family(code: string): ChainFamily | undefined;
  };
}

/** Who a deposit address is handed out to. */
export interface AddressOwner {
  kind: 'invoice' | 'wallet';
  id: string;
  /** The merchant: on a watch-only network the address derives from this merchant's material. */
  merchantId: string;
}

export interface AllocatedAddress {
  address: string;
  path: string;
  /** data:image/png;base64 QR code of the address, when the pool had it drawn already. */
  qr: string | null;
}

// The statements a request runs, compiled once (db/statement.ts).
// SQLite (one writer at a time: no concurrent taker to skip).
export const takePooled = statement((db, p: { network: string; source: string }) =>
  db
    .deleteFrom('address_pool')
    .where('network', '=', p.network)
    .where('source', '=', p.source)
    .where('idx', '=', db.selectFrom('address_pool').select('idx').where('network', '=', p.network).where('source', '=', p.source).orderBy('idx').limit(1))
    .returning(['address', 'path', 'qr']),
);
export const nextIndex = statement((db, p: { key: string }) =>
  db
    .insertInto('hd_counters')
    .values({ key: p.key, next_index: 1 })
    .onConflict((oc) => oc.column('key').doUpdateSet({ next_index: sql<number>`hd_counters.next_index + 1` }))
    .returning('next_index'),
);
/**
 * PostgreSQL: the pool row taken and the address recorded in one statement (a round trip less per
 * invoice); the insert runs even when the delete found nothing, inserting nothing. SQLite allows no
 * data-modifying WITH, and its statements cost no round trip: there the two run one after the other.
 */
export const takeAndRecord = statement((db, p: { network: string; source: string; kind: string; id: string; now: number }) => {
  const first = db.selectFrom('address_pool').select('idx').where('network', '=', p.network).where('source', '=', p.source).orderBy('idx').limit(1).forUpdate().skipLocked();
  return db
    .with('taken', (q) =>
      q.deleteFrom('address_pool').where('network', '=', p.network).where('source', '=', p.source).where('idx', '=', first).returning(['address', 'path', 'qr']),
    )
    .with('recorded', (q) =>
      q
        .insertInto('addresses')
        .columns(['address', 'network', 'path', 'owner_kind', 'owner_id', 'created_at'])
        .expression((eb) =>
          eb
            .selectFrom('taken')
            .select(['taken.address', sql<string>`${p.network}::text`.as('network'), 'taken.path', sql<string>`${p.kind}::text`.as('owner_kind'), sql<string>`${p.id}::text`.as('owner_id'), sql<number>`${p.now}::bigint`.as('created_at')]),
        ),
    )
    .selectFrom('taken')
    .select(['taken.address', 'taken.path', 'taken.qr']);
});
export const recordAddress = statement((db, p: { address: string; network: string; path: string; kind: string; id: string; now: number }) =>
  db.insertInto('addresses').values({ address: p.address, network: p.network, path: p.path, owner_kind: p.kind, owner_id: p.id, created_at: p.now }),
);

// One refill at a time per network and storage in this process, and what this process last
// counted in each pool (minus what it handed out since), so that a request costs no count query.
export const running = new WeakMap<Storage, Map<string, { done: Promise<number>; stop: AbortController }>>();
const counted = new WeakMap<Storage, Map<string, number>>();

export function estimates(storage: Storage): Map<string, number> {
  let m = counted.get(storage);
  if (!m) counted.set(storage, (m = new Map()));
  return m;
}

/**
 * Hands out an address of `source`'s pool to `owner`, or, when the pool is empty, the one `derive`
 * makes (from an index it reserves), and records its owner: in the same transaction, so a crash
 * hands it out with its owner or not at all. Returns the address and whether it came from the pool.
 */
export async function takeOrDerive(
  trx: Db,
  storage: Storage,
  network: string,
  source: string,
  owner: AddressOwner,
  now: number,
  derive: () => Promise<{ address: string; path: string }>,
): Promise<{ out: AllocatedAddress; pooled: boolean }> {
  const combined = writesInWith(storage);
  const { rows: [pooled] } = combined
    ? await takeAndRecord(trx, { network, source, kind: owner.kind, id: owner.id, now })
    : await takePooled(trx, { network, source });
  const out: AllocatedAddress = pooled ? { address: pooled.address, path: pooled.path, qr: pooled.qr } : { ...(await derive()), qr: null };
  if (!pooled || !combined) await recordAddress(trx, { address: out.address, network, path: out.path, kind: owner.kind, id: owner.id, now });
  return { out, pooled: !!pooled };
}
