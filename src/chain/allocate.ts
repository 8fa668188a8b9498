// Hands out deposit addresses: a fresh HD index each time, recorded so none is ever reused and
// every one can be recovered from the seed.
//
// Deriving an address (an elliptic-curve multiplication) and drawing its QR image cost more CPU
// than the rest of creating an invoice, so both are done ahead of need: `address_pool` holds
// addresses already derived, with their QR code. A request deletes one pool row in the same
// transaction that records the address's owner, so a crash either hands the address out with its
// invoice or leaves it in the pool, never both and never to two owners (the `addresses` primary
// key is a second guard). When the pool is empty the address is derived in the request, as before.
//
// Refilling reserves a range of indexes (one short transaction on `hd_counters`), derives them
// outside any transaction, on the pool thread (./address/pool-deriver.ts), and stores them. A crash between the two leaves those indexes unused,
// which is harmless: an index is never handed out twice, and gaps only mean addresses nobody uses.
// The pool keeps at most POOL_TARGET unused addresses ahead of the last one handed out.
import { sql, type Kysely, type Transaction } from 'kysely';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { DB } from '../db/schema.ts';
import type { Storage } from '../db/dialect.ts';
import type { NetworkDef } from '../registry/index.ts';
import { derivePooled, type PooledAddress } from './address/pool-deriver.ts';
import { recordSeed, seedRecorded } from './seed-record.ts';
import { estimates, nextIndex, running, takeOrDerive, type AddressOwner, type AllocatedAddress, type AllocatorCtx } from './address-rows.ts';
import { allocateWatchOnly } from './material-pool.ts';

export type { AddressOwner, AllocatedAddress, AllocatorCtx } from './address-rows.ts';
export { custodySource, refillMaterialPool, refillMaterialPools } from './material-pool.ts';

/** Addresses kept derived ahead per network (the worker tops the pool up to this). */
export const POOL_TARGET = 256;
/** Below this, a process that hands addresses out refills the pool itself (no worker running). */
export const POOL_LOW = 64;
/** Addresses derived per refill step; the event loop gets a turn between addresses. */
const CHUNK = 32;
/** Indexes reserved at once by a refill: several chunks, derived back to back. */
const BATCH = 4 * CHUNK;


const fingerprints = new WeakMap<Uint8Array, string>();

/** What a pool row must have been made from to be handed out for this network with this seed. */
function sourceOf(seed: Uint8Array, network: NetworkDef): string {
  let fp = fingerprints.get(seed);
  if (!fp) fingerprints.set(seed, (fp = bytesToHex(sha256(seed)).slice(0, 16)));
  return `${fp}:${network.address_format}:${network.coin_type}:${network.chain ?? 'main'}`;
}

function counterKey(network: NetworkDef): string {
  return `${network.address_format}:${network.coin_type}`;
}


export async function allocateAddress(
  trx: Kysely<DB> | Transaction<DB>,
  ctx: AllocatorCtx,
  network: NetworkDef,
  owner: AddressOwner,
  now: number,
): Promise<AllocatedAddress> {
  if (ctx.chains.custodyMode(network.code) === 'watch-only') return allocateWatchOnly(trx, ctx, network, owner, now);
  const seed = ctx.seed();
  const source = sourceOf(seed, network);
  const { out, pooled } = await takeOrDerive(trx, ctx.storage, network.code, source, owner, now, async () => {
    // The first index a database reserves binds it to this seed (./seed-record.ts).
    await recordSeed(trx, ctx.storage, seed, now);
    const { rows: [row] } = await nextIndex(trx, { key: counterKey(network) });
    return ctx.chains.families.addresses.deriver(network.address_format, seed, network.coin_type, network.chain)(Number(row!.next_index) - 1);
  });
  refillSoon(ctx, network, !pooled);
  return out;
}


/** Addresses of `network` waiting in the pool (made from the current seed). */
export async function pooledCount(ctx: AllocatorCtx, network: NetworkDef): Promise<number> {
  const r = await ctx.storage.db
    .selectFrom('address_pool')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('network', '=', network.code)
    .where('source', '=', sourceOf(ctx.seed(), network))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/**
 * Tops the pool of `network` up to `target` when it holds fewer than `below`; returns how many
 * addresses it added. Several processes may refill at once: each reserves its own indexes.
 * Once `signal` aborts (the process shuts down), it reserves nothing more and ends when the chunk
 * it is storing is stored; what it reserved and did not store stays unused (a gap of indexes).
 */
export async function refillAddressPool(ctx: AllocatorCtx, network: NetworkDef, below = POOL_TARGET, target = POOL_TARGET, signal?: AbortSignal): Promise<number> {
  // A watch-only network's addresses come from the merchants' materials (refillMaterialPools).
  if (ctx.chains.custodyMode(network.code) === 'watch-only') return 0;
  const seed = ctx.seed();
  const source = sourceOf(seed, network);
  const have = await pooledCount(ctx, network);
  estimates(ctx.storage).set(network.code, have);
  if (have >= below) return 0;
  // Rows derived from another seed or format can never be handed out (a material's rows are its own).
  await ctx.storage.db.deleteFrom('address_pool').where('network', '=', network.code).where('source', '<>', source).where('source', 'not like', 'custody:%').execute();
  const est = estimates(ctx.storage);
  let added = 0;
  // Until this process's count, which requests count down as they take addresses, reaches the
  // target (at most a few targets' worth per call, so a refill under endless load still ends).
  // Indexes are reserved a batch at a time and every chunk of the batch is sent to the pool
  // thread at once, so the thread derives the next chunk while this one is being stored.
  // Indexes reserved and not yet stored in the pool.
  let inFlight = 0;
  const wanted = () => (signal?.aborted ? 0 : Math.min(BATCH, target - (est.get(network.code) ?? 0) - inFlight, 4 * target - added - inFlight));
  // Reserves k indexes and sends their chunks to the pool thread as soon as the reservation is
  // committed; the chunks are stored later, in order.
  const startBatch = async (k: number): Promise<Array<Promise<PooledAddress[]>>> => {
    inFlight += k;
    const reserved = await ctx.storage.write(async (trx) => {
      await recordSeed(trx, ctx.storage, seed, Date.now());
      return trx
        .insertInto('hd_counters')
        .values({ key: counterKey(network), next_index: k })
        .onConflict((oc) => oc.column('key').doUpdateSet({ next_index: sql<number>`hd_counters.next_index + ${k}` }))
        .returning('next_index')
        .executeTakeFirstOrThrow();
    });
    seedRecorded(ctx.storage, seed);
    const first = Number(reserved.next_index) - k;
    const chunks: Array<Promise<PooledAddress[]>> = [];
    for (let start = first; start < first + k; start += CHUNK) {
      const count = Math.min(CHUNK, first + k - start);
      chunks.push(derivePooled({ rules: ctx.chains.families.addresses.rules(network.address_format), seed, coinType: network.coin_type, chain: network.chain ?? 'main', start, count }));
    }
    // A failed chunk fails the refill at its turn; the chunks after it must not go unhandled.
    for (const chunk of chunks) chunk.catch(() => {});
    return chunks;
  };
  // The next batch is reserved, and sent to the thread, while this one is being stored: the
  // thread then finds work waiting instead of idling through the stores and the reservation.
  let next: Promise<Array<Promise<PooledAddress[]>>> | null = wanted() > 0 ? startBatch(wanted()) : null;
  try {
    while (next && !signal?.aborted) {
      const chunks = await next;
      // Ahead only while the pool stays short of the target once these land (a reservation that
      // ends up unused leaves a gap of indexes: harmless, but pointless).
      next = wanted() > 0 ? startBatch(wanted()) : null;
      next?.catch(() => {});
      for (const chunk of chunks) {
        if (signal?.aborted) break;
        const rows: DB['address_pool'][] = (await chunk).map((d) => ({ network: network.code, source, ...d }));
        await ctx.storage.write((trx) => trx.insertInto('address_pool').values(rows).execute());
        added += rows.length;
        inFlight -= rows.length;
        est.set(network.code, (est.get(network.code) ?? 0) + rows.length);
      }
      if (!next && wanted() > 0) next = startBatch(wanted());
    }
  } finally {
    // A batch started ahead whose turn never came (a store failed, or shutdown): its indexes stay
    // unused.
    await next?.catch(() => {});
  }
  return added;
}

/** Tops up every pool that holds addresses for the current seed (the worker's job). */
export async function refillAddressPools(ctx: AllocatorCtx & { registry: { network(code: string): NetworkDef | undefined } }, signal?: AbortSignal): Promise<number> {
  const pools = await ctx.storage.db.selectFrom('address_pool').select('network').distinct().where('source', 'not like', 'custody:%').execute();
  let added = 0;
  for (const { network: code } of pools) {
    if (signal?.aborted) break;
    const network = ctx.registry.network(code);
    if (network) added += await refill(ctx, network, POOL_TARGET, signal);
  }
  return added;
}


function refill(ctx: AllocatorCtx, network: NetworkDef, below: number, signal?: AbortSignal): Promise<number> {
  let m = running.get(ctx.storage);
  if (!m) running.set(ctx.storage, (m = new Map()));
  const busy = m.get(network.code);
  if (busy) return busy.done;
  const stop = new AbortController();
  const done = refillAddressPool(ctx, network, below, POOL_TARGET, signal ? AbortSignal.any([signal, stop.signal]) : stop.signal).finally(() => m.delete(network.code));
  m.set(network.code, { done, stop });
  return done;
}

/**
 * Before a storage closes (shutdown): the refills under way on it, started by requests or the
 * worker, stop (see refillAddressPool), and this waits until each has ended.
 */
export async function stopRefills(storage: Storage): Promise<void> {
  const m = running.get(storage);
  if (!m) return;
  const under = [...m.values()];
  for (const r of under) r.stop.abort();
  await Promise.allSettled(under.map((r) => r.done));
}

/**
 * After a request took an address: refill in the background (after the request) when the pool
 * was empty or this process's count says it runs low. Failures (a closed database) are left to
 * the next request or the worker.
 */
function refillSoon(ctx: AllocatorCtx, network: NetworkDef, empty: boolean): void {
  const est = estimates(ctx.storage);
  const left = (est.get(network.code) ?? 0) - 1;
  est.set(network.code, left);
  if (!empty && left >= POOL_LOW) return;
  if (running.get(ctx.storage)?.has(network.code)) return;
  setImmediate(() => void refill(ctx, network, POOL_LOW).catch(() => {}));
}
