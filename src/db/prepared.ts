// Hot read paths (invoice info, payer polls) run the same query shapes thousands of times a
// second; building and compiling them with Kysely each time costs more than running them. This
// compiles a shape once per database and afterwards only swaps the parameter values.
import { CompiledQuery, type Compilable, type Kysely } from 'kysely';
import type { DB } from './schema.ts';

const SENTINEL = '\u0000satchel-param-';

export function prepared<R, A extends string[]>(build: (db: Kysely<DB>, ...args: A) => Compilable<R>): (db: Kysely<DB>, ...args: A) => Promise<R[]> {
  const cache = new WeakMap<Kysely<DB>, { sql: string; params: unknown[]; slots: number[] }>();
  return async (db, ...args) => {
    let c = cache.get(db);
    if (!c) {
      const sentinels = args.map((_, i) => `${SENTINEL}${i}`) as A;
      const compiled = build(db, ...sentinels).compile();
      const params = [...compiled.parameters];
      const slots = params.map((p) => (typeof p === 'string' && p.startsWith(SENTINEL) ? Number(p.slice(SENTINEL.length)) : -1));
      c = { sql: compiled.sql, params, slots };
      cache.set(db, c);
    }
    const params = c.params.map((p, i) => (c!.slots[i]! >= 0 ? args[c!.slots[i]!] : p));
    const result = await db.executeQuery<R>(CompiledQuery.raw(c.sql, params));
    return result.rows;
  };
}
