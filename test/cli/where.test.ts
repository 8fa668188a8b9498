// The CLI reads the gateway's configuration (the config file named by SATCHEL_CONFIG, DATABASE_URL)
// and, when a read finds nothing, says which database it looked in: the usual cause of "my
// merchants are gone" is a command run against another database than the gateway's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runCli } from '../../src/cli/main.ts';
import { backends } from '../helpers/backends.ts';
import { TEST_MNEMONIC } from '../helpers/gateway.ts';
import { ROOT } from '../helpers/spawn.ts';

const run = promisify(execFile);
const pg = (await backends()).find((b) => b.name === 'postgres');

describe('which database the CLI read', () => {
  let dir: string;
  const drops: Array<() => Promise<void>> = [];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'satchel-where-'));
  });
  afterAll(async () => {
    for (const d of drops) await d();
    rmSync(dir, { recursive: true, force: true });
  });

  it('merchant list on the data folder of the config file named by SATCHEL_CONFIG', { timeout: 60_000 }, async () => {
    const dataDir = join(dir, 'from-file');
    const file = join(dir, 'satchel.config.json');
    writeFileSync(file, JSON.stringify({ data_dir: dataDir }));
    const { SATCHEL_DATA_DIR: _unset, ...inherited } = process.env as Record<string, string>;
    const env = { ...inherited, SATCHEL_CONFIG: file, SATCHEL_MNEMONIC: TEST_MNEMONIC, DATABASE_URL: '' };
    const r = await run(process.execPath, [join(ROOT, 'bin/satchel.js'), 'merchant', 'list'], { env, cwd: ROOT });
    expect(r.stdout.trim()).toBe(`No merchants in ${join(dataDir, 'satchel.sqlite')}.`);
  });

  it.skipIf(!pg)('user list and payouts list --stuck on the config file\'s PostgreSQL database, its password never shown', { timeout: 60_000 }, async () => {
    const db = await pg!.create();
    drops.push(db.drop);
    const withPassword = db.databaseUrl!.replace('postgres@', 'postgres:s3cret@');
    const file = join(dir, 'pg.config.json');
    writeFileSync(file, JSON.stringify({ database_url: withPassword, data_dir: join(dir, 'unused') }));
    const saved = { ...process.env };
    Object.assign(process.env, { SATCHEL_CONFIG: file, SATCHEL_MNEMONIC: TEST_MNEMONIC });
    delete process.env.DATABASE_URL;
    const lines: string[] = [];
    const out = { log: (s: string) => lines.push(s), error: (s: string) => lines.push(s) };
    try {
      expect(await runCli(['user', 'list'], out)).toBe(0);
      expect(await runCli(['payouts', 'list', '--stuck'], out)).toBe(0);
    } finally {
      process.env = saved;
    }
    const shown = withPassword.replace('s3cret', '***');
    expect(lines).toEqual([`No dashboard users in ${shown}.`, `No stuck payouts in ${shown}.`]);
  });
});
