// Migration 021 on a database as the previous version left it: every row of the per-family scan
// tables (evm_, tron_, btc_ cursors, blocks, transfers and outgoing transactions) is in the shared
// scan tables afterwards, exactly (amounts as the same decimal text), and the old tables are gone.
// On SQLite and on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { openStorage, type Storage } from '../../src/db/dialect.ts';
import { migrateToLatest, migrateUpTo } from '../../src/db/migrate.ts';
import { backends } from '../helpers/backends.ts';

const T = 1_700_000_000_000;
const EVM_AMOUNT = '123456789.123456789012345678';
const TRON_AMOUNT = '0.000001';
const inputs = [{ txid: 'ab'.repeat(32), vout: 1, amount: '0.12345678', path: "m/84'/0'/0'/0/7" }];

/** One row in each per-family table, as migrations 004, 007 and 008 shaped them. */
async function fillFamilyTables(db: Kysely<any>): Promise<void> {
  for (const [f, network, block] of [['evm', 'ETH', 9_007_199_254_740_000], ['tron', 'TRON', 60_000_000]] as const) {
    await db.insertInto(`${f}_cursors`).values({ network, block_number: block, block_hash: `${f}-head`, updated_at: T }).execute();
    await db.insertInto(`${f}_blocks`).values([
      { network, number: block - 1, hash: `${f}-b1`, parent_hash: `${f}-b0` },
      { network, number: block, hash: `${f}-head`, parent_hash: `${f}-b1` },
    ]).execute();
    await db.insertInto(`${f}_transfers`).values({
      network, txid: `${f}-t1`, idx: 3, currency: 'USDT', to_address: `${f}-to`, from_address: null, amount: f === 'evm' ? EVM_AMOUNT : TRON_AMOUNT,
      block_number: block, block_hash: `${f}-head`, confirmations: 2, status: 'pending', swept: 1, created_at: T, updated_at: T + 1,
    }).execute();
  }
  await db.insertInto('evm_outgoing').values({
    id: 'evm-o1', network: 'ETH', request_id: 'payout-1', kind: 'payout', from_address: '0xfrom', to_address: '0xto', currency: 'ETH', amount: EVM_AMOUNT,
    nonce: 41, txid: '0xevmtx', raw: '0xraw', status: 'sent', block_number: null, confirmations: 0, error: null, broadcast_at: T, created_at: T, updated_at: T,
  }).execute();
  await db.insertInto('tron_outgoing').values([1, 2].map((attempt) => ({
    id: `tron-o${attempt}`, network: 'TRON', request_id: 'payout-2', attempt, kind: 'payout', from_address: 'Tfrom', to_address: 'Tto', currency: 'USDT', amount: TRON_AMOUNT,
    txid: `trontx${attempt}`, raw: 'raw', expiration: T + 60_000, status: attempt === 1 ? 'expired' : 'mined', block_number: attempt === 1 ? null : 60_000_000,
    confirmations: attempt === 1 ? 0 : 5, error: attempt === 1 ? 'expired' : null, broadcast_at: T, created_at: T, updated_at: T,
  }))).execute();
  await db.insertInto('btc_cursors').values({ network: 'BTC', height: 870_000, hash: 'btc-head', node_height: 870_002, updated_at: T }).execute();
  await db.insertInto('btc_blocks').values({ network: 'BTC', height: 870_000, hash: 'btc-head' }).execute();
  await db.insertInto('btc_outgoing').values({
    id: 'btc-o1', network: 'BTC', request_id: 'payout-3', attempt: 0, to_address: 'bc1qto', amount: '0.1', fee: '0.00000141', fee_rate: '1.005', vsize: 141,
    inputs: JSON.stringify(inputs), change_address: 'bc1qchange', change_amount: '0.02345537', txid: 'btctx', raw: 'btcraw', status: 'confirmed',
    block_height: 870_000, confirmations: 3, error: null, broadcast_at: T, broadcast_height: 869_999, created_at: T, updated_at: T + 2,
  }).execute();
}

const list = await backends();

describe.each(list)('migration 021 (scan tables) on $name', (backend) => {
  let db: Awaited<ReturnType<(typeof backend)['create']>>;
  let storage: Storage;

  beforeAll(async () => {
    db = await backend.create();
    storage = db.databaseUrl ? openStorage({ databaseUrl: db.databaseUrl }) : openStorage({ sqlitePath: ':memory:' });
    const ran = await migrateUpTo(storage, '020_node_faults');
    expect(ran).toContain('020_node_faults');
    expect(ran).not.toContain('021_scan_tables');
    await fillFamilyTables(storage.db as unknown as Kysely<any>);
    expect(await migrateToLatest(storage)).toContain('021_scan_tables');
  });
  afterAll(async () => {
    await storage?.close();
    await db?.drop();
  });

  it('keeps every cursor and recent block, keyed by network', async () => {
    expect(await storage.db.selectFrom('scan_cursors').selectAll().orderBy('network').execute()).toEqual([
      { network: 'BTC', block_number: 870_000, block_hash: 'btc-head', node_height: 870_002, updated_at: T },
      { network: 'ETH', block_number: 9_007_199_254_740_000, block_hash: 'evm-head', node_height: null, updated_at: T },
      { network: 'TRON', block_number: 60_000_000, block_hash: 'tron-head', node_height: null, updated_at: T },
    ]);
    const blocks = await storage.db.selectFrom('scan_blocks').selectAll().orderBy('network').orderBy('number').execute();
    expect(blocks.map((b) => [b.network, Number(b.number), b.hash, b.parent_hash])).toEqual([
      ['BTC', 870_000, 'btc-head', null],
      ['ETH', 9_007_199_254_739_999, 'evm-b1', 'evm-b0'],
      ['ETH', 9_007_199_254_740_000, 'evm-head', 'evm-b1'],
      ['TRON', 59_999_999, 'tron-b1', 'tron-b0'],
      ['TRON', 60_000_000, 'tron-head', 'tron-b1'],
    ]);
  });

  it('keeps every reported transfer, its amount the same decimal text', async () => {
    const rows = await storage.db.selectFrom('scan_transfers').selectAll().orderBy('network').execute();
    expect(rows).toEqual([
      { network: 'ETH', txid: 'evm-t1', idx: 3, currency: 'USDT', to_address: 'evm-to', from_address: null, amount: EVM_AMOUNT, block_number: 9_007_199_254_740_000, block_hash: 'evm-head', confirmations: 2, status: 'pending', swept: 1, created_at: T, updated_at: T + 1 },
      { network: 'TRON', txid: 'tron-t1', idx: 3, currency: 'USDT', to_address: 'tron-to', from_address: null, amount: TRON_AMOUNT, block_number: 60_000_000, block_hash: 'tron-head', confirmations: 2, status: 'pending', swept: 1, created_at: T, updated_at: T + 1 },
    ]);
  });

  it('keeps every signed transaction: the nonce, the attempts and expiration, bitcoin\'s fee details as JSON', async () => {
    const rows = await storage.db.selectFrom('scan_outgoing').selectAll().orderBy('id').execute();
    expect(rows.map((r) => r.id)).toEqual(['btc-o1', 'evm-o1', 'tron-o1', 'tron-o2']);
    const [btc, evm, tron1, tron2] = rows;
    expect(evm).toEqual({
      id: 'evm-o1', network: 'ETH', request_id: 'payout-1', attempt: 0, kind: 'payout', from_address: '0xfrom', to_address: '0xto', currency: 'ETH', amount: EVM_AMOUNT,
      txid: '0xevmtx', raw: '0xraw', status: 'sent', block_number: null, confirmations: 0, error: null, broadcast_at: T, broadcast_height: null,
      nonce: 41, expiration: null, data: null, created_at: T, updated_at: T,
    });
    expect(tron1).toMatchObject({ request_id: 'payout-2', attempt: 1, status: 'expired', error: 'expired', expiration: T + 60_000, nonce: null, data: null, amount: TRON_AMOUNT });
    expect(tron2).toMatchObject({ request_id: 'payout-2', attempt: 2, status: 'mined', block_number: 60_000_000, confirmations: 5, txid: 'trontx2', from_address: 'Tfrom' });
    expect(btc).toMatchObject({
      network: 'BTC', request_id: 'payout-3', attempt: 0, kind: 'payout', from_address: null, currency: null, to_address: 'bc1qto', amount: '0.1', txid: 'btctx',
      raw: 'btcraw', status: 'confirmed', block_number: 870_000, confirmations: 3, broadcast_at: T, broadcast_height: 869_999, nonce: null, expiration: null, updated_at: T + 2,
    });
    expect(JSON.parse(btc!.data!)).toEqual({ fee: '0.00000141', fee_rate: '1.005', vsize: 141, inputs, change_address: 'bc1qchange', change_amount: '0.02345537' });
  });

  it('drops the per-family tables it emptied, and keeps the ones it did not take', async () => {
    const tables = new Set((await storage.db.introspection.getTables()).map((t) => t.name));
    for (const f of ['evm', 'tron', 'btc']) {
      for (const t of ['cursors', 'blocks', 'outgoing']) expect(tables.has(`${f}_${t}`), `${f}_${t}`).toBe(false);
    }
    expect(tables.has('evm_transfers') || tables.has('tron_transfers')).toBe(false);
    for (const kept of ['evm_nonces', 'evm_movements', 'tron_movements', 'btc_outputs', 'btc_change']) expect(tables.has(kept), kept).toBe(true);
  });
});
