// SQLite's group commit (src/db/sqlite.ts): writes that arrive together share one transaction and
// one durable commit, but each keeps its own outcome: a failing write undoes only its own rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from '../../src/db/sqlite.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import type { Storage } from '../../src/db/storage.ts';

describe('SQLite group commit', () => {
  let dir: string;
  let storage: Storage;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'satchel-group-'));
    storage = openSqlite(join(dir, 'g.sqlite'));
    await migrateToLatest(storage);
  });
  afterAll(async () => {
    await storage?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const merchant = (id: string) => ({ id, name: id, payment_key: 'k', payout_key: 'k', is_blocked: 0, created_at: 1 });

  it('keeps each write\u2019s outcome: a failure undoes its own rows, not its neighbours\u2019', async () => {
    const writes = ['m-1', 'm-2', 'm-3', 'm-4'].map((id) =>
      storage.write(async (trx) => {
        await trx.insertInto('merchants').values(merchant(id)).execute();
        if (id === 'm-2') throw new Error('second write fails after its insert');
        // A write sees its own rows before the shared commit.
        const seen = await trx.selectFrom('merchants').select('id').where('id', '=', id).executeTakeFirst();
        return seen?.id;
      }),
    );
    const results = await Promise.allSettled(writes);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason.message).toBe('second write fails after its insert');
    expect(results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<string>).value)).toEqual(['m-1', 'm-3', 'm-4']);
    const stored = await storage.db.selectFrom('merchants').select('id').where('id', 'like', 'm-%').orderBy('id').execute();
    expect(stored.map((r) => r.id)).toEqual(['m-1', 'm-3', 'm-4']);
  });

  it('a write that fails on a constraint leaves the others of its batch committed', async () => {
    const writes = ['d-1', 'm-1', 'd-2'].map((id) => storage.write((trx) => trx.insertInto('merchants').values(merchant(id)).execute()));
    const results = await Promise.allSettled(writes);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(storage.isUniqueViolation((results[1] as PromiseRejectedResult).reason)).toBe(true);
    const stored = await storage.db.selectFrom('merchants').select('id').where('id', 'like', 'd-%').orderBy('id').execute();
    expect(stored.map((r) => r.id)).toEqual(['d-1', 'd-2']);
  });
});
