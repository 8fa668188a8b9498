// Hands out deposit addresses: a fresh HD index each time, recorded so none is ever reused and
// every one can be recovered from the seed.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { NetworkDef } from '../registry/index.ts';
import { deriveAddress } from './address/index.ts';

export async function allocateAddress(
  trx: Kysely<DB> | Transaction<DB>,
  seed: Uint8Array,
  network: NetworkDef,
  owner: { kind: 'invoice' | 'wallet'; id: string },
  now: number,
): Promise<{ address: string; path: string }> {
  const counterKey = `${network.address_format}:${network.coin_type}`;
  const row = await trx
    .insertInto('hd_counters')
    .values({ key: counterKey, next_index: 1 })
    .onConflict((oc) => oc.column('key').doUpdateSet({ next_index: sql<number>`hd_counters.next_index + 1` }))
    .returning('next_index')
    .executeTakeFirstOrThrow();
  const index = Number(row.next_index) - 1;
  const { address, path } = deriveAddress(network.address_format, seed, network.coin_type, index, network.chain);
  await trx
    .insertInto('addresses')
    .values({ address, network: network.code, path, owner_kind: owner.kind, owner_id: owner.id, created_at: now })
    .execute();
  return { address, path };
}
