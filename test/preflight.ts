// Runs first in `npm test`: names every system package the suite needs that this machine lacks,
// and the line that installs them, instead of letting a browser or node test fail deep inside the
// run. The list itself lives in .ci/system-packages, which README.md's test line and .ci/run
// install from, so the three cannot disagree.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PG_ADMIN_URL, probePg } from './helpers/backends.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const PACKAGES_FILE = '.ci/system-packages';

/** The Debian packages the suite needs, one a line in .ci/system-packages. */
export function systemPackages(root = ROOT): string[] {
  return readFileSync(join(root, PACKAGES_FILE), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

/** The file each package is recognised by: the path the tests start it from (the same variables
 * let a machine point them elsewhere: playwright.config.ts, test/chain/bitcoin/litecoind.ts and test/helpers/monero-rig.ts). */
export function binaryOf(pkg: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const table: Record<string, string> = {
    chromium: env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    litecoind: env.SATCHEL_LITECOIND ?? '/usr/bin/litecoind',
    monero: env.SATCHEL_MONEROD ?? '/usr/bin/monerod',
  };
  return table[pkg];
}

export interface Missing {
  pkg: string;
  binary: string;
}

export function missingPackages(opts: { packages?: string[]; env?: NodeJS.ProcessEnv; exists?: (path: string) => boolean } = {}): Missing[] {
  const exists = opts.exists ?? existsSync;
  const out: Missing[] = [];
  for (const pkg of opts.packages ?? systemPackages()) {
    const binary = binaryOf(pkg, opts.env);
    if (binary === undefined) throw new Error(`test/preflight.ts does not know which file ${pkg} installs: add it to binaryOf`);
    if (!exists(binary)) out.push({ pkg, binary });
  }
  return out;
}

/** What the preflight prints when something is missing (empty when nothing is). */
export function report(missing: Missing[]): string {
  if (missing.length === 0) return '';
  return [
    'The tests need system packages this machine does not have:',
    ...missing.map((m) => `  ${m.pkg} (${m.binary} not found)`),
    'Install them (Debian) and run the tests again:',
    `  apt-get update && apt-get install -y ${missing.map((m) => m.pkg).join(' ')}`,
    `(or install the whole list at once: apt-get update && apt-get install -y $(cat ${PACKAGES_FILE}) && npm test)`,
  ].join('\n');
}

async function main(): Promise<number> {
  let code = 0;
  const text = report(missingPackages());
  if (text) {
    console.error(text);
    code = 1;
  }
  // PostgreSQL stays optional (its tests are skipped) unless the run says it is required.
  if (process.env.SATCHEL_TEST_PG === 'required' && !(await probePg())) {
    console.error(`SATCHEL_TEST_PG=required, but no PostgreSQL answers at ${new URL(PG_ADMIN_URL).host} (SATCHEL_TEST_PG_URL).`);
    code = 1;
  }
  return code;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.exitCode = await main();
}
