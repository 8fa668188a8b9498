// Copies a whole Satchel database into an empty PostgreSQL one (`satchel db copy`): the way from
// the embedded SQLite file to PostgreSQL without losing a row, an address index or the seed record.
//
// The tables come from the databases' own catalogues, not from a list kept here, so a table a
// later migration adds is copied without anyone remembering to add it. Both sides are read and
// written inside one transaction each: the source is a consistent snapshot, and the target either
// receives everything, verified, or nothing (a failed check rolls it back and it stays empty, ready
// for another attempt). Rows move a chunk at a time, so memory does not grow with a table's size.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from './schema.ts';
import type { Storage } from './storage.ts';
import { migrateToLatest } from './migrate.ts';

/** The target is not a PostgreSQL database, or is the source itself. */
export class CopyTargetError extends Error {}

/** The target already holds Satchel rows: copying into it would mix two gateways' data. */
export class CopyTargetNotEmptyError extends Error {
  constructor(readonly tables: string[]) {
    super(`The target database already holds Satchel data (in ${tables.join(', ')})`);
  }
}

/** The copy does not match its source (or a check the caller added failed); nothing was written. */
export class CopyVerifyError extends Error {
  constructor(readonly problems: string[]) {
    super(`The copy failed its checks: ${problems.join('; ')}`);
  }
}

export interface CopiedTable {
  table: string;
  rows: number;
}

export interface CopyOptions {
  /** Rows read and written at a time (capped by PostgreSQL's limit on parameters per statement). */
  chunkRows?: number;
  /** More checks on the filled target, inside its transaction; any problem returned rolls it back. */
  verify?: (target: Transaction<DB>) => Promise<string[]>;
  /** Called after each table. */
  progress?: (table: CopiedTable) => void;
}

interface TableShape {
  name: string;
  columns: string[];
}

// Tables are queried by names read from the catalogue, which Kysely's typed builder cannot know.
type AnyDb = Kysely<any> | Transaction<any>;

async function shapes(db: Kysely<DB>): Promise<TableShape[]> {
  const tables = await db.introspection.getTables();
  return tables.filter((t) => !t.isView).map((t) => ({ name: t.name, columns: t.columns.map((c) => c.name) }));
}

/**
 * The tables in an order that inserts every referenced row before the rows that reference it
 * (PostgreSQL checks foreign keys on each insert).
 */
async function insertOrder(target: Kysely<DB>, names: string[]): Promise<string[]> {
  const { rows } = await sql<{ child: string; parent: string }>`
    select c.conrelid::regclass::text as child, c.confrelid::regclass::text as parent
    from pg_constraint c
    where c.contype = 'f' and c.connamespace = current_schema()::regnamespace`.execute(target);
  const parents = new Map<string, Set<string>>(names.map((n) => [n, new Set()]));
  for (const r of rows) if (r.child !== r.parent) parents.get(unquote(r.child))?.add(unquote(r.parent));
  const out: string[] = [];
  const placed = new Set<string>();
  const visit = (n: string, path: Set<string>) => {
    if (placed.has(n) || path.has(n)) return;
    path.add(n);
    for (const p of parents.get(n) ?? []) if (parents.has(p)) visit(p, path);
    placed.add(n);
    out.push(n);
  };
  for (const n of [...names].sort()) visit(n, new Set());
  return out;
}

function unquote(name: string): string {
  return name.startsWith('"') ? name.slice(1, -1).replace(/""/g, '"') : name;
}

async function count(db: AnyDb, table: string): Promise<number> {
  const r = await db.selectFrom(table).select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
  return Number(r.n);
}

/**
 * Reads `table` a chunk at a time in a stable order: by rowid on SQLite, by the physical row id
 * (ctid) on PostgreSQL; both are stable inside the snapshot the source transaction reads.
 */
async function* chunks(src: Transaction<DB>, kind: Storage['kind'], table: TableShape, size: number): AsyncGenerator<Record<string, unknown>[]> {
  const cols = sql.join(table.columns.map((c) => sql.id(c)));
  let after: unknown = null;
  for (;;) {
    const q =
      kind === 'sqlite'
        ? sql<Record<string, unknown>>`select rowid as "__satchel_key", ${cols} from ${sql.id(table.name)}
            ${after === null ? sql`` : sql`where rowid > ${after}`} order by rowid limit ${size}`
        : sql<Record<string, unknown>>`select ctid::text as "__satchel_key", ${cols} from ${sql.id(table.name)}
            ${after === null ? sql`` : sql`where ctid > ${after}::tid`} order by ctid limit ${size}`;
    const { rows } = await q.execute(src);
    if (rows.length === 0) return;
    after = rows[rows.length - 1]!.__satchel_key;
    yield rows;
    if (rows.length < size) return;
  }
}

async function copyTable(src: Transaction<DB>, kind: Storage['kind'], dst: Transaction<DB>, table: TableShape, chunkRows: number): Promise<number> {
  // PostgreSQL takes at most 65535 parameters in one statement.
  const size = Math.max(1, Math.min(chunkRows, Math.floor(60_000 / table.columns.length)));
  const cols = sql.join(table.columns.map((c) => sql.id(c)));
  let copied = 0;
  for await (const rows of chunks(src, kind, table, size)) {
    const values = sql.join(rows.map((r) => sql`(${sql.join(table.columns.map((c) => r[c] ?? null))})`));
    // OVERRIDING SYSTEM VALUE: an identity column takes the copied value, not a new one.
    await sql`insert into ${sql.id(table.name)} (${cols}) overriding system value values ${values}`.execute(dst);
    copied += rows.length;
  }
  return copied;
}

/** Sequences behind serial and identity columns continue after the highest copied value. */
async function advanceSequences(dst: Transaction<DB>): Promise<void> {
  const { rows } = await sql<{ table_name: string; column_name: string; seq: string | null }>`
    select table_name, column_name, pg_get_serial_sequence(format('%I', table_name), column_name) as seq
    from information_schema.columns
    where table_schema = current_schema() and (column_default like 'nextval(%' or is_identity = 'YES')`.execute(dst);
  for (const r of rows) {
    if (!r.seq) continue;
    await sql`select setval(${r.seq}::regclass, coalesce((select max(${sql.id(r.column_name)}) from ${sql.id(r.table_name)}), 0) + 1, false)`.execute(dst);
  }
}

/**
 * Copies every table of `source` into `target` (PostgreSQL), migrating the target first. Refuses a
 * target holding any Satchel row. Checks each table's row count, and the caller's `verify`, before
 * committing; throws CopyVerifyError (target left empty) when a check fails.
 */
export async function copyDatabase(source: Storage, target: Storage, opts: CopyOptions = {}): Promise<CopiedTable[]> {
  if (target.kind !== 'postgres') throw new CopyTargetError('The target must be a PostgreSQL database (a postgres:// URL)');
  await migrateToLatest(source);
  await migrateToLatest(target);
  const from = await shapes(source.db);
  const to = new Map((await shapes(target.db)).map((t) => [t.name, t]));
  const schemaProblems: string[] = [];
  for (const t of from) {
    const there = to.get(t.name);
    if (!there) schemaProblems.push(`table ${t.name} is missing in the target`);
    else for (const c of t.columns) if (!there.columns.includes(c)) schemaProblems.push(`column ${t.name}.${c} is missing in the target`);
  }
  if (schemaProblems.length) throw new CopyVerifyError(schemaProblems);
  const byName = new Map(from.map((t) => [t.name, t]));
  const order = await insertOrder(target.db, [...byName.keys()]);
  const chunkRows = opts.chunkRows ?? 1000;

  return source.db.transaction().execute((src) =>
    target.db.transaction().execute(async (dst) => {
      // Two copies into the same target at once: the second waits, then finds it full.
      await sql`select pg_advisory_xact_lock(hashtext('satchel:db-copy'))`.execute(dst);
      const full: string[] = [];
      for (const name of to.keys()) {
        const { rows } = await sql<{ one: number }>`select 1 as one from ${sql.id(name)} limit 1`.execute(dst);
        if (rows.length > 0) full.push(name);
      }
      if (full.length) throw new CopyTargetNotEmptyError(full.sort());

      const copied: CopiedTable[] = [];
      for (const name of order) {
        const rows = await copyTable(src, source.kind, dst, byName.get(name)!, chunkRows);
        copied.push({ table: name, rows });
        opts.progress?.({ table: name, rows });
      }
      await advanceSequences(dst);

      const problems: string[] = [];
      for (const { table, rows } of copied) {
        const [inSource, inTarget] = [await count(src, table), await count(dst, table)];
        if (inSource !== rows || inTarget !== rows) problems.push(`table ${table}: ${inSource} rows in the source, ${rows} copied, ${inTarget} in the target`);
      }
      if (opts.verify) problems.push(...(await opts.verify(dst)));
      if (problems.length) throw new CopyVerifyError(problems);
      return copied;
    }),
  );
}
