// Every API test runs on SQLite and again on PostgreSQL. With SATCHEL_TEST_PG=required (CI), a
// missing PostgreSQL fails the run instead of skipping it.
import pg from 'pg';
import { randomBytes } from 'node:crypto';

export const PG_ADMIN_URL = process.env.SATCHEL_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface Backend {
  name: 'sqlite' | 'postgres';
  /** Creates a fresh database; returns its DATABASE_URL (undefined for SQLite) and a dropper. */
  create(): Promise<{ databaseUrl?: string; drop(): Promise<void> }>;
}

let pgAvailable: Promise<boolean> | undefined;

export async function probePg(): Promise<boolean> {
  const c = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => {});
  }
}

const sqlite: Backend = {
  name: 'sqlite',
  async create() {
    return { databaseUrl: undefined, drop: async () => {} };
  },
};

const postgres: Backend = {
  name: 'postgres',
  async create() {
    const name = `satchel_test_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const url = new URL(PG_ADMIN_URL);
    url.pathname = `/${name}`;
    return {
      databaseUrl: url.toString(),
      async drop() {
        const a = new pg.Client({ connectionString: PG_ADMIN_URL });
        await a.connect();
        await a.query(`drop database if exists ${name} with (force)`);
        await a.end();
      },
    };
  },
};

/** The backends to run on: SQLite always; PostgreSQL when reachable (or required). */
export async function backends(): Promise<Backend[]> {
  pgAvailable ??= probePg();
  const ok = await pgAvailable;
  if (!ok && process.env.SATCHEL_TEST_PG === 'required') {
    throw new Error(`PostgreSQL is required (SATCHEL_TEST_PG=required) but not reachable at ${PG_ADMIN_URL}`);
  }
  return ok ? [sqlite, postgres] : [sqlite];
}
