// `satchel user ...` as an operator runs it: a real process on the gateway's database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { TEST_MNEMONIC } from '../helpers/gateway.ts';
import { ROOT } from '../helpers/spawn.ts';
import { openStorage, type Storage } from '../../src/db/dialect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { createMerchant } from '../../src/merchants/store.ts';
import { linkUser, setPasswordWithLink } from '../../src/dashboard/users.ts';
import { userCli } from '../../src/cli/users.ts';

const run = promisify(execFile);

describe('satchel user', () => {
  let dir: string;
  let env: Record<string, string>;
  let storage: Storage;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'satchel-cli-users-'));
    env = { ...(process.env as Record<string, string>), SATCHEL_DATA_DIR: dir, SATCHEL_MNEMONIC: TEST_MNEMONIC, SATCHEL_PUBLIC_URL: 'https://pay.example.test', LOG_LEVEL: 'silent', DATABASE_URL: '' };
    storage = openStorage({ sqlitePath: join(dir, 'satchel.sqlite') });
    await migrateToLatest(storage);
  });
  afterAll(async () => {
    await storage?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The same command in this process (a real process costs seconds; one test spawns one). */
  const satchel = async (action: string, ...args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await userCli(action, args, { log: (s) => out.push(s), error: (s) => err.push(s) }, env);
    return { code, out: out.join('\n') + '\n', err: err.join('\n') + '\n' };
  };

  const spawned = async (...args: string[]) => {
    try {
      const r = await run(process.execPath, [join(ROOT, 'bin/satchel.js'), 'user', ...args], { env, cwd: ROOT });
      return { code: 0, out: r.stdout, err: r.stderr };
    } catch (e) {
      const x = e as { code: number; stdout: string; stderr: string };
      return { code: x.code, out: x.stdout, err: x.stderr };
    }
  };

  it('creates a user with a one-time link, lists, resets and disables', { timeout: 120_000 }, async () => {
    const m = await createMerchant(storage.db, 'Corner shop');
    const created = await spawned('create', '--merchant', m.id, '--email', 'Owner@Corner.example', '--role', 'owner', '--json');
    expect(created.code).toBe(0);
    const out = JSON.parse(created.out) as { email: string; role: string; link: string };
    expect(out).toMatchObject({ email: 'owner@corner.example', role: 'owner' });
    expect(out.link).toMatch(/^https:\/\/pay\.example\.test\/dashboard\/set-password#[\w-]{43}$/);
    const token = out.link.split('#')[1]!;
    await setPasswordWithLink(storage, token, 'a long enough password', Date.now());

    const taken = await satchel('create', '--merchant', m.id, '--email', 'owner@corner.example', '--role', 'viewer');
    expect(taken.code).toBe(2);
    expect(taken.err.trim()).toBe('A user with the email owner@corner.example already exists.');
    expect((await satchel('create', '--merchant', m.id, '--email', 'v@corner.example', '--role', 'boss')).err.trim()).toBe('The role must be owner, viewer or admin.');
    expect((await satchel('create', '--email', 'x@corner.example', '--role', 'owner')).err.trim()).toBe('An owner or viewer needs a merchant.');

    const list = await satchel('list');
    expect(list.out).toMatch(/owner@corner\.example\s+owner\s+active/);

    const reset = await satchel('reset-password', '--email', 'owner@corner.example');
    expect(reset.code).toBe(0);
    const newToken = /#([\w-]{43})/.exec(reset.out)![1]!;
    expect(await linkUser(storage.db, newToken, Date.now())).not.toBeNull();

    expect((await satchel('disable', '--email', 'owner@corner.example')).out.trim()).toBe('owner@corner.example disabled');
    expect(await linkUser(storage.db, newToken, Date.now())).toBeNull();
    expect((await satchel('list', '--json')).out).toContain('"disabled":true');
    expect((await satchel('disable', '--email', 'nobody@corner.example')).err.trim()).toBe('No user nobody@corner.example.');
  });
});
