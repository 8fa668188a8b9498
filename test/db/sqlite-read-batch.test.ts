// SQLite's direct reads (src/db/sqlite.ts, runDirect): reads asked in one turn of the event loop run
// together in one read transaction, each with its own outcome; they never see a transaction's
// uncommitted writes, and always see what was committed before they were asked, by this process or
// by another connection (the CLI beside a running gateway).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openSqlite } from '../../src/db/sqlite.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { statement } from '../../src/db/statement.ts';
import type { Storage } from '../../src/db/storage.ts';

const byId = statement((db, p: { id: string }) => db.selectFrom('merchants').select(['id', 'name']).where('id', '=', p.id));
/** A read whose value is bad for SQLite (an object): it fails when it runs, not when it is built. */
const broken = statement((db, p: { id: unknown }) => db.selectFrom('merchants').select('id').where('id', '=', p.id as string));
const renamed = statement((db, p: { id: string; name: string }) => db.updateTable('merchants').set({ name: p.name }).where('id', '=', p.id).returning('name'));

describe('SQLite reads asked together', () => {
  let dir: string;
  let file: string;
  let storage: Storage;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'satchel-reads-'));
    file = join(dir, 'r.sqlite');
    storage = openSqlite(file);
    await migrateToLatest(storage);
    await storage.db
      .insertInto('merchants')
      .values(['a', 'b', 'c'].map((id) => ({ id, name: `name-${id}`, payment_key: 'k', payout_key: 'k', is_blocked: 0, created_at: 1 })))
      .execute();
  });
  afterAll(async () => {
    await storage?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('each caller gets its own row, and a failing read fails only its own caller', async () => {
    const results = await Promise.allSettled([byId(storage.db, { id: 'a' }), broken(storage.db, { id: { not: 'bindable' } }), byId(storage.db, { id: 'c' }), byId(storage.db, { id: 'zz' })]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    const rows = results.map((r) => (r.status === 'fulfilled' ? r.value.rows : null));
    expect(rows[0]).toEqual([{ id: 'a', name: 'name-a' }]);
    expect(rows[2]).toEqual([{ id: 'c', name: 'name-c' }]);
    expect(rows[3]).toEqual([]);
    // The connection is left outside any transaction: a write transaction begins normally.
    await storage.write((trx) => trx.updateTable('merchants').set({ name: 'name-a' }).where('id', '=', 'a').execute());
  });

  it('a read asked while a transaction is open waits for it and never sees its uncommitted rows', async () => {
    let reading!: Promise<unknown>;
    let seenInside: unknown;
    await storage.write(async (trx) => {
      await trx.updateTable('merchants').set({ name: 'uncommitted' }).where('id', '=', 'b').execute();
      reading = byId(storage.db, { id: 'b' });
      // The read cannot run while this transaction holds the connection.
      await new Promise((r) => setTimeout(r, 20));
      seenInside = await Promise.race([reading.then(() => 'answered'), Promise.resolve('waiting')]);
      await trx.updateTable('merchants').set({ name: 'committed' }).where('id', '=', 'b').execute();
    });
    expect(seenInside).toBe('waiting');
    expect(((await reading) as { rows: unknown[] }).rows).toEqual([{ id: 'b', name: 'committed' }]);
  });

  it('reads see what another connection committed before their batch ran', async () => {
    const other = new Database(file);
    try {
      other.pragma('busy_timeout = 5000');
      // A read runs at the end of the turn in which it was asked, with the others asked in it.
      const asked = byId(storage.db, { id: 'c' });
      other.prepare('update merchants set name = ? where id = ?').run('same-turn', 'c');
      expect((await asked).rows).toEqual([{ id: 'c', name: 'same-turn' }]);
      for (let i = 0; i < 5; i++) {
        other.prepare('update merchants set name = ? where id = ?').run(`cli-${i}`, 'c');
        const rows = await Promise.all([byId(storage.db, { id: 'a' }), byId(storage.db, { id: 'c' })]);
        expect(rows[1].rows).toEqual([{ id: 'c', name: `cli-${i}` }]);
      }
      // And another connection can write while the gateway reads: no read holds a lock between turns.
      const reads = Promise.all(Array.from({ length: 20 }, () => byId(storage.db, { id: 'a' })));
      await reads;
      other.prepare('update merchants set name = ? where id = ?').run('after', 'a');
      expect((await byId(storage.db, { id: 'a' })).rows).toEqual([{ id: 'a', name: 'after' }]);
    } finally {
      other.close();
    }
  });

  it('a statement that writes and returns rows is not run as a read', async () => {
    const [read, write] = await Promise.all([byId(storage.db, { id: 'b' }), renamed(storage.db, { id: 'b', name: 'renamed' })]);
    expect(write.rows).toEqual([{ name: 'renamed' }]);
    expect(read.rows).toHaveLength(1);
    expect((await byId(storage.db, { id: 'b' })).rows).toEqual([{ id: 'b', name: 'renamed' }]);
  });

  it('reads still waiting when the storage closes fail their callers, and nothing else fails', async () => {
    const closing = openSqlite(join(dir, 'closing.sqlite'));
    await migrateToLatest(closing);
    const reads = [byId(closing.db, { id: 'a' }), byId(closing.db, { id: 'b' })];
    await closing.close();
    const results = await Promise.allSettled(reads);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(String((results[0] as PromiseRejectedResult).reason)).toMatch(/not open/);
  });
});
