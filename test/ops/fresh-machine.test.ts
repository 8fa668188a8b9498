// What a fresh machine meets first: README.md's two commands, the system packages the suite
// needs (one list, .ci/system-packages, used by README, .ci/run and npm test's preflight) and a
// dependency tree without engine warnings on the Node version the README names.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PACKAGES_FILE, binaryOf, missingPackages, report, systemPackages } from '../preflight.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const read = (p: string): string => readFileSync(join(ROOT, p), 'utf8');
const INSTALL = `$(cat ${PACKAGES_FILE})`;

describe('fresh machine', () => {
  it('README has exactly two commands for a fresh machine; its test line installs the list and runs npm test', () => {
    const intro = read('README.md').split('## Where to read on')[0]!;
    const blocks = [...intro.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
    expect(blocks).toEqual(['npm install && npm start', `apt-get update && apt-get install -y ${INSTALL} && npm test`]);
  });

  it('.ci/run installs from the same list and runs the same npm test', () => {
    const run = read('.ci/run');
    expect(run).toContain(`apt-get install -y -q ${INSTALL}`);
    expect(run).toContain('test/preflight.ts');
    expect(run.trim().endsWith('npm test')).toBe(true);
  });

  it('npm test starts with the preflight, before the typecheck', () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.test!.startsWith('tsx test/preflight.ts && npm run typecheck')).toBe(true);
  });

  it('the list names chromium, litecoind and monero, and the preflight knows the file each one installs', () => {
    const pkgs = systemPackages();
    expect(pkgs).toEqual(expect.arrayContaining(['chromium', 'litecoind', 'monero']));
    for (const p of pkgs) expect(binaryOf(p, {}), p).toMatch(/^\//);
    expect(binaryOf('chromium', {})).toBe('/usr/bin/chromium');
  });

  it('names each missing package and prints the install line', () => {
    const missing = missingPackages({ env: {}, exists: (path) => path !== '/usr/bin/litecoind' });
    expect(missing).toEqual([{ pkg: 'litecoind', binary: '/usr/bin/litecoind' }]);
    const text = report(missing);
    expect(text).toContain('litecoind (/usr/bin/litecoind not found)');
    expect(text).toContain('apt-get install -y litecoind');
    expect(text).not.toMatch(/chromium/);
    expect(report(missingPackages({ env: {}, exists: () => true }))).toBe('');
  });

  it('the preflight exits non-zero and names the package when its binary is missing', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'test/preflight.ts')], {
      cwd: ROOT,
      env: { ...process.env, CHROMIUM_PATH: '/nonexistent/chromium', SATCHEL_TEST_PG: '' },
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('chromium (/nonexistent/chromium not found)');
    expect(r.stderr).toContain('apt-get install -y chromium');
  });

  it('no locked package requires a newer Node than the README names (npm would warn EBADENGINE)', () => {
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { engines?: { node?: string } }> };
    const tooNew = Object.entries(lock.packages)
      .filter(([, p]) => /^\s*>=\s*(2[1-9]|[3-9]\d)/.test(p.engines?.node ?? ''))
      .map(([name, p]) => `${name} ${p.engines?.node}`);
    expect(tooNew).toEqual([]);
  });
});
