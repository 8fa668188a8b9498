// The SQLite database stores API keys as the signing scheme needs them: its folder and every file
// of it (database, -wal, -shm) are readable by the gateway's user only.
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createContext } from '../../src/compose.ts';
import { createMerchant } from '../../src/merchants/store.ts';

const mode = (p: string) => statSync(p).mode & 0o777;

describe('data directory permissions', () => {
  let root = '';
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('a fresh data directory is 0700 and the database, its WAL and shared memory 0600', async () => {
    root = mkdtempSync(join(tmpdir(), 'satchel-perm-'));
    const dataDir = join(root, 'data');
    const config = loadConfig({ SATCHEL_DATA_DIR: dataDir, SATCHEL_CONFIG: '', LOG_LEVEL: 'silent' });
    const ctx = await createContext(config);
    try {
      await createMerchant(ctx.storage.db, 'Secret keeper');
      ctx.seed(); // generates hd-seed.secret in the same folder
      const db = join(dataDir, 'satchel.sqlite');
      expect(mode(dataDir)).toBe(0o700);
      for (const f of [db, `${db}-wal`, `${db}-shm`, join(dataDir, 'hd-seed.secret')]) {
        expect(existsSync(f), f).toBe(true);
        expect(mode(f), f).toBe(0o600);
      }
    } finally {
      await ctx.storage.close();
    }
  });

  it('files an older version left readable by others are narrowed to 0600', async () => {
    root = mkdtempSync(join(tmpdir(), 'satchel-perm-'));
    const db = join(root, 'satchel.sqlite');
    writeFileSync(db, '');
    chmodSync(db, 0o644);
    const ctx = await createContext(loadConfig({ SATCHEL_DATA_DIR: root, SATCHEL_CONFIG: '', SATCHEL_MNEMONIC: 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about' }));
    try {
      expect(mode(db)).toBe(0o600);
    } finally {
      await ctx.storage.close();
    }
  });
});
