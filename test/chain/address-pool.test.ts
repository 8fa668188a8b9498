// Deposit addresses derived ahead (src/chain/allocate.ts): handed out in the transaction that
// records their owner, never twice, none lost by a rollback, the same addresses as derived inline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mnemonicToSeedSync } from '@scure/bip39';
import { loadConfig } from '../../src/config.ts';
import type { Ctx } from '../../src/context.ts';
import { createContext } from '../../src/compose.ts';
import { allocateAddress, pooledCount, POOL_TARGET, refillAddressPool, stopRefills } from '../../src/chain/allocate.ts';
import { deriveAddress } from '../helpers/addresses.ts';
import { qrDataUrl } from '../../src/qr/png.ts';
import { poolThreadJobs } from '../../src/chain/address/pool-deriver.ts';
import { backends } from '../helpers/backends.ts';
import { TEST_MNEMONIC } from '../helpers/gateway.ts';
import { SeedMismatchError } from '../../src/chain/seed-record.ts';

describe.each(await backends())('address pool on $name', (backend) => {
  let dir: string;
  let db: Awaited<ReturnType<(typeof backend)['create']>>;
  let ctx: Ctx;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'satchel-pool-'));
    db = await backend.create();
    ctx = await createContext(loadConfig({ SATCHEL_DATA_DIR: dir, SATCHEL_MNEMONIC: TEST_MNEMONIC, ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}) }));
  });
  afterAll(async () => {
    await ctx?.storage.close();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('hands out pooled addresses in index order, each with its QR code, as inline derivation would', async () => {
    const tron = ctx.registry.network('TRON')!;
    const seed = mnemonicToSeedSync(TEST_MNEMONIC);
    // Empty pool: derived in the request (index 0), no QR drawn yet.
    const first = await ctx.storage.write((trx) => allocateAddress(trx, ctx, tron, { kind: 'invoice', id: 'inv-0', merchantId: 'm' }, 1));
    expect(first).toEqual({ ...deriveAddress('tron', seed, 195, 0), qr: null });
    const jobs = poolThreadJobs();
    await refillAddressPool(ctx, tron);
    expect(await pooledCount(ctx, tron)).toBeGreaterThanOrEqual(POOL_TARGET);
    // Derived on the pool thread, not on the thread that serves requests.
    expect(poolThreadJobs()).toBeGreaterThan(jobs);
    const second = await ctx.storage.write((trx) => allocateAddress(trx, ctx, tron, { kind: 'invoice', id: 'inv-1', merchantId: 'm' }, 2));
    const { address, path } = deriveAddress('tron', seed, 195, 1);
    expect(second).toEqual({ address, path, qr: await qrDataUrl(address) });
    const rows = await ctx.storage.db.selectFrom('addresses').selectAll().where('network', '=', 'TRON').orderBy('created_at').execute();
    expect(rows.map((r) => [r.address, r.owner_id])).toEqual([[first.address, 'inv-0'], [address, 'inv-1']]);
  });

  it('gives an address back to the pool when the transaction that took it rolls back', async () => {
    const eth = ctx.registry.network('ETH')!;
    await refillAddressPool(ctx, eth);
    const before = await pooledCount(ctx, eth);
    let taken = '';
    await expect(
      ctx.storage.write(async (trx) => {
        taken = (await allocateAddress(trx, ctx, eth, { kind: 'invoice', id: 'rolled-back', merchantId: 'm' }, 3)).address;
        throw new Error('the invoice insert failed');
      }),
    ).rejects.toThrow('the invoice insert failed');
    expect(await pooledCount(ctx, eth)).toBe(before);
    expect(await ctx.storage.db.selectFrom('addresses').select('address').where('address', '=', taken).execute()).toEqual([]);
    const next = await ctx.storage.write((trx) => allocateAddress(trx, ctx, eth, { kind: 'invoice', id: 'kept', merchantId: 'm' }, 4));
    expect(next.address).toBe(taken);
  });

  it('never hands one address to two owners, with concurrent takers and refills', async () => {
    const bsc = ctx.registry.network('BSC') ?? ctx.registry.network('ETH')!;
    await refillAddressPool(ctx, bsc);
    const owners = Array.from({ length: 120 }, (_, i) => `conc-${i}`);
    const refills = [refillAddressPool(ctx, bsc, Infinity, POOL_TARGET * 2), refillAddressPool(ctx, bsc, Infinity, POOL_TARGET * 2)];
    const got = await Promise.all(owners.map((id) => ctx.storage.write((trx) => allocateAddress(trx, ctx, bsc, { kind: 'invoice', id, merchantId: 'm' }, 5))));
    await Promise.all(refills);
    expect(new Set(got.map((g) => g.address)).size).toBe(owners.length);
    const pooled = await ctx.storage.db.selectFrom('address_pool').select('address').where('network', '=', bsc.code).execute();
    const given = new Set(got.map((g) => g.address));
    expect(pooled.filter((p) => given.has(p.address))).toEqual([]);
    // Every pooled address is distinct and none was recorded for an owner.
    expect(new Set(pooled.map((p) => p.address)).size).toBe(pooled.length);
  });

  it('keeps up under a stream of takers: every reserved index is handed out or pooled, none skipped', async () => {
    const tron = ctx.registry.network('TRON')!;
    const key = `${tron.address_format}:${tron.coin_type}`;
    const counter = async () => Number((await ctx.storage.db.selectFrom('hd_counters').select('next_index').where('key', '=', key).executeTakeFirst())?.next_index ?? 0);
    await refillAddressPool(ctx, tron);
    const start = await counter();
    const given: string[] = [];
    // Takers keep draining while a refill (which reserves its next batch ahead) runs.
    const refilling = refillAddressPool(ctx, tron, Infinity, POOL_TARGET);
    for (let round = 0; round < 6; round++) {
      const batch = await Promise.all(Array.from({ length: 60 }, (_, i) => ctx.storage.write((trx) => allocateAddress(trx, ctx, tron, { kind: 'invoice', id: `stream-${round}-${i}`, merchantId: 'm' }, 5))));
      given.push(...batch.map((g) => g.address));
    }
    await refilling;
    // Background refills started by the takers: wait until they are done.
    for (let i = 0; i < 100 && (await pooledCount(ctx, tron)) < POOL_TARGET; i++) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 200));
    expect(new Set(given).size).toBe(360);
    const end = await counter();
    const pooled = await pooledCount(ctx, tron);
    // Indexes from the first pool fill to now: all either pooled or handed out (none lost).
    const recorded = Number((await ctx.storage.db.selectFrom('addresses').select((eb) => eb.fn.countAll<number>().as('n')).where('network', '=', tron.code).executeTakeFirstOrThrow()).n);
    expect(end).toBe(recorded + pooled);
    expect(end).toBeGreaterThanOrEqual(start);
  });

  it('a background refill told to stop (shutdown) reserves nothing more and ends with the chunk it is storing', async () => {
    const polygon = ctx.registry.network('POLYGON')!;
    // An empty pool: the first taker derives inline and starts a background refill to the target.
    await ctx.storage.write((trx) => allocateAddress(trx, ctx, polygon, { kind: 'invoice', id: 'stop-0', merchantId: 'm' }, 7));
    // Under way: its first chunk is stored.
    for (let i = 0; i < 2000 && (await pooledCount(ctx, polygon)) === 0; i++) await new Promise((r) => setTimeout(r, 2));
    expect(await pooledCount(ctx, polygon)).toBeGreaterThan(0);
    await stopRefills(ctx.storage);
    const stopped = await pooledCount(ctx, polygon);
    // It ended with the chunk it was storing, well short of the target, and adds nothing later.
    expect(stopped).toBeLessThan(POOL_TARGET);
    await new Promise((r) => setTimeout(r, 300));
    expect(await pooledCount(ctx, polygon)).toBe(stopped);
    // A later refill fills it as usual.
    await refillAddressPool(ctx, polygon);
    expect(await pooledCount(ctx, polygon)).toBeGreaterThanOrEqual(POOL_TARGET);
  });

  it('never hands out an address for another seed: the database is bound to the one it started with', async () => {
    const tron = ctx.registry.network('TRON')!;
    const otherMnemonic = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
    await expect(createContext(loadConfig({ SATCHEL_DATA_DIR: dir, SATCHEL_MNEMONIC: otherMnemonic, ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}) }))).rejects.toBeInstanceOf(SeedMismatchError);
    // Reached without the start check: neither the pool (made from the first seed) nor a fresh
    // index hands anything out.
    const other = { ...ctx, seed: () => mnemonicToSeedSync(otherMnemonic) };
    expect(await pooledCount(other, tron)).toBe(0);
    const before = await ctx.storage.db.selectFrom('addresses').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
    await expect(ctx.storage.write((trx) => allocateAddress(trx, other, tron, { kind: 'invoice', id: 'other-seed', merchantId: 'm' }, 6))).rejects.toBeInstanceOf(SeedMismatchError);
    const after = await ctx.storage.db.selectFrom('addresses').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });
});
