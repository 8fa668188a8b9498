import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import type { Storage } from './dialect.ts';
import * as m001 from './migrations/001_foundation.ts';

// Listed in code (not read from a folder) so that bundlers and tsx resolve them the same way.
const migrations: Record<string, Migration> = {
  '001_foundation': m001,
};

class StaticProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations;
  }
}

export async function migrateToLatest(storage: Storage): Promise<string[]> {
  const migrator = new Migrator({ db: storage.db, provider: new StaticProvider() });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
