// Watch-only deposit addresses: each merchant's current receiving material (merchant_custody)
// gives the next address of its own counter, and a small pool of addresses drawn ahead per material
// (QR codes included, on the pool thread) keeps a request as cheap as one from the seed's pool.
import type { DB } from '../db/schema.ts';
import type { NetworkDef } from '../registry/index.ts';
import { derivePooledWatch } from './address/pool-deriver.ts';
import { CustodyMissingError } from './errors.ts';
import { estimates, nextIndex, running, takeOrDerive, type AddressOwner, type AllocatedAddress, type AllocatorCtx, type Db } from './address-rows.ts';

/**
 * On a watch-only network: the next receiving address of the merchant's current material, never
 * one before (its own counter, `custody:<row id>`, so a change of material starts afresh and the
 * old material's addresses keep their owners). Deriving one is cheap (a child public key, or a
 * CREATE2 hash) but drawing its QR code is not, so each material has a small pool of its own
 * (source `custody:<row id>`), kept like the seed's. Throws CustodyMissingError when the merchant
 * has supplied none: the callers have checked the merchant's offer, so only a race can get here.
 */
export async function allocateWatchOnly(trx: Db, ctx: AllocatorCtx, network: NetworkDef, owner: AddressOwner, now: number): Promise<AllocatedAddress> {
  const watchOnly = ctx.chains.family(network.code)?.watchOnly;
  const material = await trx
    .selectFrom('merchant_custody')
    .select(['id', 'material'])
    .where('merchant_id', '=', owner.merchantId)
    .where('network', '=', network.code)
    .where('replaced_at', 'is', null)
    .executeTakeFirst();
  if (!watchOnly || !material) throw new CustodyMissingError(network.code);
  const source = custodySource(material.id);
  const { out, pooled } = await takeOrDerive(trx, ctx.storage, network.code, source, owner, now, async () => {
    const { rows: [row] } = await nextIndex(trx, { key: source });
    return watchOnly.deposit(network, material.material, material.id, Number(row!.next_index) - 1);
  });
  refillMaterialSoon(ctx, network, material, !pooled);
  return out;
}

/** The pool source, and the index counter, of a merchant's custody row. */
export function custodySource(custodyId: string): string {
  return `custody:${custodyId}`;
}

/** Addresses kept drawn ahead per material (a gateway may serve many merchants). */
const MATERIAL_POOL_TARGET = 64;
const MATERIAL_POOL_LOW = 16;
/** Addresses per job sent to the pool thread. */
const MATERIAL_CHUNK = 16;

/** How often a chunk is derived again when requests took its indexes meanwhile. */
const MATERIAL_CHUNK_TRIES = 4;

/**
 * Tops the pool of one material up to `target`, in small steps: derives the addresses that follow
 * the material's counter (and draws their QR codes) on the pool thread, then, in one transaction,
 * moves the counter past them and stores them, only if the counter has not moved meanwhile (a
 * request that found the pool empty derives an index itself). So the counter less the pool is
 * always exactly the addresses handed out (what `satchel merchant custody show` reports, and what
 * the merchant's wallet must look past: docs/custody.md, the gap limit), and a crash leaves no
 * gaps. Returns how many were added.
 */
export async function refillMaterialPool(
  ctx: AllocatorCtx,
  network: NetworkDef,
  material: { id: string; material: string },
  target = MATERIAL_POOL_TARGET,
  signal?: AbortSignal,
): Promise<number> {
  const watchOnly = ctx.chains.family(network.code)?.watchOnly;
  if (!watchOnly) return 0;
  const source = custodySource(material.id);
  const db = ctx.storage.db;
  const have = Number(
    (await db.selectFrom('address_pool').select((eb) => eb.fn.countAll<number | string>().as('n')).where('network', '=', network.code).where('source', '=', source).executeTakeFirstOrThrow()).n,
  );
  const est = estimates(ctx.storage);
  const key = `${network.code}|${source}`;
  est.set(key, have);
  let added = 0;
  let tries = 0;
  while (have + added < target && tries < MATERIAL_CHUNK_TRIES && !signal?.aborted) {
    const counter = await db.selectFrom('hd_counters').select('next_index').where('key', '=', source).executeTakeFirst();
    const start = Number(counter?.next_index ?? 0);
    const count = Math.min(MATERIAL_CHUNK, target - have - added);
    // Derived, and their QR codes drawn, on the pool thread.
    const rules = ctx.chains.families.addresses.rules(network.address_format);
    const made = await derivePooledWatch({ watchOnly, rules, network, material: material.material, custodyId: material.id, start, count });
    const rows: DB['address_pool'][] = made.map((m) => ({ network: network.code, source, ...m }));
    // Stored only while the material is current, its row locked so that a change of material
    // (which deletes the old material's pool) cannot pass this store unseen.
    const outcome = await ctx.storage.write(async (trx) => {
      const row = await ctx.storage.forUpdate(trx.selectFrom('merchant_custody').select('id').where('id', '=', material.id).where('replaced_at', 'is', null)).executeTakeFirst();
      if (!row) return 'replaced' as const;
      const moved = start === 0 && !counter
        ? await trx.insertInto('hd_counters').values({ key: source, next_index: count }).onConflict((oc) => oc.column('key').doNothing()).returning('key').executeTakeFirst()
        : await trx.updateTable('hd_counters').set({ next_index: start + count }).where('key', '=', source).where('next_index', '=', start).returning('key').executeTakeFirst();
      if (!moved) return 'taken' as const;
      await trx.insertInto('address_pool').values(rows).execute();
      return 'stored' as const;
    });
    if (outcome === 'replaced') break;
    if (outcome === 'taken') {
      tries++;
      continue;
    }
    tries = 0;
    added += rows.length;
    est.set(key, (est.get(key) ?? 0) + rows.length);
    await new Promise((r) => setImmediate(r));
  }
  return added;
}

function refillMaterialSoon(ctx: AllocatorCtx, network: NetworkDef, material: { id: string; material: string }, empty: boolean): void {
  const key = `${network.code}|${custodySource(material.id)}`;
  const est = estimates(ctx.storage);
  const left = (est.get(key) ?? 0) - 1;
  est.set(key, left);
  if (!empty && left >= MATERIAL_POOL_LOW) return;
  let m = running.get(ctx.storage);
  if (!m) running.set(ctx.storage, (m = new Map()));
  if (m.has(key)) return;
  const stop = new AbortController();
  const entry = { done: Promise.resolve(0), stop };
  m.set(key, entry);
  entry.done = new Promise<number>((resolve) => setImmediate(resolve, 0))
    .then(() => refillMaterialPool(ctx, network, material, MATERIAL_POOL_TARGET, stop.signal))
    .catch(() => 0)
    .finally(() => m.delete(key));
}

/** Tops up the pools of every current material of the watch-only networks (the worker's job). */
export async function refillMaterialPools(ctx: AllocatorCtx & { registry: { network(code: string): NetworkDef | undefined } }, signal?: AbortSignal): Promise<number> {
  const materials = await ctx.storage.db.selectFrom('merchant_custody').select(['id', 'network', 'material']).where('replaced_at', 'is', null).execute();
  let added = 0;
  for (const m of materials) {
    if (signal?.aborted) break;
    const network = ctx.registry.network(m.network);
    if (!network || ctx.chains.custodyMode(network.code) !== 'watch-only') continue;
    added += await refillMaterialPool(ctx, network, m, MATERIAL_POOL_TARGET, signal);
  }
  return added;
}
