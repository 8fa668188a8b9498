// Whatever differs between SQLite and PostgreSQL is decided inside src/db/ (src/db/differences.ts
// and the storage itself): no other source file asks which of them it runs on. And writes go one
// way: through Storage.write (or relaxedWrite), never a transaction opened on the Kysely itself.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from './helpers/source-files.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const files = sourceFiles;

/** What reads which database is behind the storage: its `kind`, or a comparison with a database's name. */
const ASKS_WHICH = [/\bstorage\s*\??\.\s*kind\b/, /\bkind\s*[!=]==?\s*['"](sqlite|postgres)['"]/, /['"](sqlite|postgres)['"]\s*[!=]==?\s*\w*kind\b/, /\bDialectKind\b/, /\bStorage\s*\[\s*['"]kind['"]\s*\]/];

/** A transaction opened on the Kysely rather than through the storage. */
const OWN_TRANSACTION = [/\.transaction\(\)/, /\.startTransaction\(\)/];

function offenders(patterns: RegExp[]): string[] {
  const out: string[] = [];
  for (const f of files('src').filter((f) => !f.startsWith('src/db/'))) {
    readFileSync(join(ROOT, f), 'utf8').split('\n').forEach((line, i) => {
      if (patterns.some((re) => re.test(line))) out.push(`${f}:${i + 1}: ${line.trim()}`);
    });
  }
  return out;
}

describe('database differences', () => {
  it('are decided in src/db/ only: no other file of src/ reads which database it runs on', () => {
    expect(offenders(ASKS_WHICH)).toEqual([]);
  });

  it('writes go through the storage: no file of src/ outside src/db/ opens a transaction on the Kysely', () => {
    expect(offenders(OWN_TRANSACTION)).toEqual([]);
  });

  it('the check catches what it is meant to catch', () => {
    const lines = ["if (ctx.storage.kind === 'postgres') {", "unlock = storage.kind === 'sqlite' ? a : b;", "return kind === 'postgres' ? q.forUpdate() : q;", "function f(k: DialectKind) {}"];
    for (const line of lines) expect(ASKS_WHICH.some((re) => re.test(line))).toBe(true);
    expect(ASKS_WHICH.some((re) => re.test("if (row.kind !== 'payout') return;"))).toBe(false);
  });
});
