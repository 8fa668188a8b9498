// The seed record: which HD seed a database's deposit addresses derive from. The database already
// counts the indexes it handed out (hd_counters); this ties those counts to one seed, so that a
// gateway started with another mnemonic on the same database is refused instead of deriving
// addresses of a second wallet beside the first (and a copied database keeps the tie, being one
// more table).
//
// What is stored is a fingerprint: the first 8 bytes of a SHA-256 of the seed's BIP-32 master
// public key, under a label of its own. A public key reveals nothing of the private key or the
// phrase, and its truncated hash even less; it only tells two seeds apart.
//
// It is written on first use, in the transaction that first reserves an index (a database that
// never handed out an address is bound to no seed), and checked at every start.
import { HDKey } from '@scure/bip32';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Storage } from '../db/dialect.ts';
import { ConfigError } from '../config.ts';
import type { NetworkDef } from '../registry/index.ts';
import type { AddressFormats } from './address/index.ts';

const RECORD_ID = 'hd';
const LABEL = utf8ToBytes('satchel seed record v1:');

/** The configured seed is not the one this database's addresses derive from (a setting to change). */
export class SeedMismatchError extends ConfigError {
  constructor(
    readonly recorded: string,
    readonly configured: string,
  ) {
    super(
      `This database's deposit addresses derive from another HD seed (fingerprint ${recorded}) than the configured one (${configured}). ` +
        'Configure the mnemonic this database was created with (SATCHEL_MNEMONIC_FILE, SATCHEL_MNEMONIC, or hd-seed.secret in SATCHEL_DATA_DIR); ' +
        'running it with another seed would mix two wallets. A new seed needs a new database.',
    );
  }
}

const fingerprints = new WeakMap<Uint8Array, string>();

/** The seed's fingerprint (16 hex digits); see the file's opening comment. */
export function seedFingerprint(seed: Uint8Array): string {
  let fp = fingerprints.get(seed);
  if (!fp) {
    const root = HDKey.fromMasterSeed(seed);
    const pub = root.publicKey;
    root.wipePrivateData();
    if (!pub) throw new Error('BIP-32 master key has no public key');
    fingerprints.set(seed, (fp = bytesToHex(sha256(concatBytes(LABEL, pub))).slice(0, 16)));
  }
  return fp;
}

/** Storages known to record this process's seed (read at start or written and committed). */
const confirmed = new WeakMap<Storage, string>();

/** The fingerprint the database records, or null when it has handed out no address yet. */
export async function recordedFingerprint(db: Kysely<DB> | Transaction<DB>): Promise<string | null> {
  const row = await db.selectFrom('seed_record').select('fingerprint').where('id', '=', RECORD_ID).executeTakeFirst();
  return row?.fingerprint ?? null;
}

/**
 * At start: refuses (SeedMismatchError) a database that records another seed. The seed is derived
 * only when the database records one or has handed out addresses, so a gateway that never hands
 * out an address never needs it.
 *
 * A database from before the record (addresses, no record) is judged by its oldest address: derived
 * again from the configured seed at its recorded path, it must come out the same; then the record
 * is written at once.
 */
export async function checkSeedRecord(
  storage: Storage,
  seed: () => Uint8Array,
  registry: { network(code: string): NetworkDef | undefined },
  addresses: AddressFormats,
): Promise<void> {
  const recorded = await recordedFingerprint(storage.db);
  if (recorded === null) {
    const oldest = await storage.db.selectFrom('addresses').select(['network', 'address', 'path']).orderBy('created_at').limit(1).executeTakeFirst();
    const def = oldest && registry.network(oldest.network);
    if (!oldest || !def) return;
    const mine = seedFingerprint(seed());
    const again = rederive(addresses, def, seed(), oldest.path);
    if (again !== null && again !== oldest.address) throw new SeedMismatchError(`(none; its address ${oldest.address} is not derived from the configured seed)`, mine);
    if (again !== null) {
      await storage.write((trx) => recordSeed(trx, storage, seed(), Date.now()));
      confirmed.set(storage, mine);
    }
    return;
  }
  const mine = seedFingerprint(seed());
  if (recorded !== mine) throw new SeedMismatchError(recorded, mine);
  confirmed.set(storage, mine);
}

/** The address at `path` derived from `seed`, or null when the path is not one this network derives. */
function rederive(addresses: AddressFormats, def: NetworkDef, seed: Uint8Array, path: string): string | null {
  const derive = addresses.deriver(def.address_format, seed, def.coin_type, def.chain);
  // The index is one of the path's numbers (which one depends on the format): the one whose
  // derivation gives back the same path.
  for (const n of new Set((path.match(/\d+/g) ?? []).map(Number))) {
    if (!Number.isSafeInteger(n) || n >= 0x80000000) continue;
    try {
      const d = derive(n);
      if (d.path === path) return d.address;
    } catch {
      // not an index this format accepts
    }
  }
  return null;
}

/**
 * Inside the transaction that reserves an HD index: records the seed if the database has none yet,
 * and refuses (SeedMismatchError, rolling the reservation back) when it records another. Costs
 * nothing once the record is known to hold this seed.
 */
export async function recordSeed(trx: Transaction<DB> | Kysely<DB>, storage: Storage, seed: Uint8Array, now: number): Promise<void> {
  const mine = seedFingerprint(seed);
  if (confirmed.get(storage) === mine) return;
  await trx
    .insertInto('seed_record')
    .values({ id: RECORD_ID, fingerprint: mine, created_at: now })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  const recorded = await recordedFingerprint(trx);
  if (recorded !== mine) throw new SeedMismatchError(recorded ?? '(none)', mine);
}

/** After a transaction that called recordSeed committed: later reservations skip the check. */
export function seedRecorded(storage: Storage, seed: Uint8Array): void {
  confirmed.set(storage, seedFingerprint(seed));
}
