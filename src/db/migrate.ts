import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import type { Storage } from './dialect.ts';
import * as m001 from './migrations/001_foundation.ts';
import * as m002 from './migrations/002_lifecycle.ts';
import * as m003 from './migrations/003_money_out.ts';
import * as m004 from './migrations/004_evm.ts';
import * as m005 from './migrations/005_hardening.ts';
import * as m006 from './migrations/006_order_ids.ts';
import * as m007 from './migrations/007_bitcoin.ts';
import * as m008 from './migrations/008_tron.ts';
import * as m009 from './migrations/009_merchant_profiles.ts';
import * as m010 from './migrations/010_dashboard.ts';
import * as m011 from './migrations/011_chain_scans.ts';
import * as m012 from './migrations/012_merchant_defaults.ts';
import * as m013 from './migrations/013_address_pool.ts';
import * as m014 from './migrations/014_merchant_language.ts';
import * as m015 from './migrations/015_webhook_claim_order.ts';
import * as m016 from './migrations/016_seed_record.ts';
import * as m017 from './migrations/017_invoice_rate_quotes.ts';
import * as m018 from './migrations/018_refund_key.ts';
import * as m019 from './migrations/019_chain_incidents.ts';
import * as m020 from './migrations/020_node_faults.ts';
import * as m021 from './migrations/021_scan_tables.ts';
import * as m022 from './migrations/022_merchant_custody.ts';
import * as m023 from './migrations/023_unmatched_payments.ts';
import * as m024 from './migrations/024_payment_comment.ts';
import * as m025 from './migrations/025_account_scans.ts';
import * as m026 from './migrations/026_dashboard_language.ts';
import * as m027 from './migrations/027_recurrences.ts';
import * as m028 from './migrations/028_recurrence_allowances.ts';
import * as m029 from './migrations/029_recurrence_emails.ts';
import * as m030 from './migrations/030_allowance_amount.ts';

// Listed in code (not read from a folder) so that bundlers and tsx resolve them the same way.
const migrations: Record<string, Migration> = {
  '001_foundation': m001,
  '002_lifecycle': m002,
  '003_money_out': m003,
  '004_evm': m004,
  '005_hardening': m005,
  '006_order_ids': m006,
  '007_bitcoin': m007,
  '008_tron': m008,
  '009_merchant_profiles': m009,
  '010_dashboard': m010,
  '011_chain_scans': m011,
  '012_merchant_defaults': m012,
  '013_address_pool': m013,
  '014_merchant_language': m014,
  '015_webhook_claim_order': m015,
  '016_seed_record': m016,
  '017_invoice_rate_quotes': m017,
  '018_refund_key': m018,
  '019_chain_incidents': m019,
  '020_node_faults': m020,
  '021_scan_tables': m021,
  '022_merchant_custody': m022,
  '023_unmatched_payments': m023,
  '024_payment_comment': m024,
  '025_account_scans': m025,
  '026_dashboard_language': m026,
  '027_recurrences': m027,
  '028_recurrence_allowances': m028,
  '029_recurrence_emails': m029,
  '030_allowance_amount': m030,
};

class StaticProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations;
  }
}

function migrator(storage: Storage): Migrator {
  // Capabilities land in any order, so a database may have run 004 before 003 exists.
  return new Migrator({ db: storage.db, provider: new StaticProvider(), allowUnorderedMigrations: true });
}

function applied(results: readonly { status: string; migrationName: string }[] | undefined): string[] {
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

export async function migrateToLatest(storage: Storage): Promise<string[]> {
  const { error, results } = await migrator(storage).migrateToLatest();
  if (error) throw error;
  return applied(results);
}

/** Runs the migrations up to and including `name` (one of the list above), and no later one: a
 * database as an older version left it, for testing what a later migration does to its rows. */
export async function migrateUpTo(storage: Storage, name: string): Promise<string[]> {
  if (!(name in migrations)) throw new Error(`No migration named ${name}`);
  const { error, results } = await migrator(storage).migrateTo(name);
  if (error) throw error;
  return applied(results);
}
