// The seed record (src/chain/seed-record.ts): a database remembers which HD seed its addresses
// derive from, from the first address it hands out, and refuses to start with another one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mnemonicToSeedSync } from '@scure/bip39';
import { bytesToHex } from '@noble/hashes/utils.js';
import { loadConfig } from '../../src/config.ts';
import { createContext } from '../../src/compose.ts';
import { stopRefills } from '../../src/chain/allocate.ts';
import { SeedMismatchError, seedFingerprint } from '../../src/chain/seed-record.ts';
import { createMerchant } from '../../src/merchants/store.ts';
import { createInvoice } from '../../src/invoices/create.ts';
import { createInvoiceOp } from '../../src/contracts/merchant-api/invoices.ts';
import { paramsFor } from '../../src/http/signed-api.ts';
import { backends } from '../helpers/backends.ts';
import { TEST_MNEMONIC } from '../helpers/gateway.ts';

const OTHER = 'legal winner thank year wave sausage worth useful legal winner thank yellow';

describe.each(await backends())('seed record on $name', (backend) => {
  let dir: string;
  let db: Awaited<ReturnType<(typeof backend)['create']>>;
  const env = (mnemonic: string) => loadConfig({ SATCHEL_DATA_DIR: dir, SATCHEL_MNEMONIC: mnemonic, LOG_LEVEL: 'silent', ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}) });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'satchel-seed-'));
    db = await backend.create();
  });
  afterAll(async () => {
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is written with the first address handed out, and a different mnemonic is then refused at start', async () => {
    const ctx = await createContext(env(TEST_MNEMONIC));
    try {
      // Nothing handed out yet: the database is bound to no seed.
      expect(await ctx.storage.db.selectFrom('seed_record').selectAll().execute()).toEqual([]);
      const m = await createMerchant(ctx.storage.db, 'Seed shop');
      await createInvoice(ctx, m, paramsFor(ctx, createInvoiceOp, { amount: '10', currency: 'USDT', network: 'TRON', order_id: 'seed-1' }));
      const rows = await ctx.storage.db.selectFrom('seed_record').select(['id', 'fingerprint']).execute();
      const seed = mnemonicToSeedSync(TEST_MNEMONIC);
      expect(rows).toEqual([{ id: 'hd', fingerprint: seedFingerprint(seed) }]);
      // Eight bytes of a hash of the public master key: nothing of the seed itself.
      expect(rows[0]!.fingerprint).toMatch(/^[0-9a-f]{16}$/);
      expect(bytesToHex(seed)).not.toContain(rows[0]!.fingerprint);
    } finally {
      await stopRefills(ctx.storage);
      await ctx.storage.close();
    }

    const refused = createContext(env(OTHER));
    await expect(refused).rejects.toBeInstanceOf(SeedMismatchError);
    await expect(refused).rejects.toThrow(/another HD seed .*Configure the mnemonic this database was created with \(SATCHEL_MNEMONIC_FILE, SATCHEL_MNEMONIC/);

    // The right mnemonic starts as before.
    const again = await createContext(env(TEST_MNEMONIC));
    await again.storage.close();
  });

  it('a database from before the record is judged by its oldest address, then recorded', async () => {
    const old = await createContext(env(TEST_MNEMONIC));
    await old.storage.db.deleteFrom('seed_record').execute();
    await old.storage.close();

    await expect(createContext(env(OTHER))).rejects.toBeInstanceOf(SeedMismatchError);
    const ctx = await createContext(env(TEST_MNEMONIC));
    try {
      expect(await ctx.storage.db.selectFrom('seed_record').select('fingerprint').execute()).toEqual([{ fingerprint: seedFingerprint(mnemonicToSeedSync(TEST_MNEMONIC)) }]);
    } finally {
      await ctx.storage.close();
    }
  });
});
