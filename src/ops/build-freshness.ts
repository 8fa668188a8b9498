// `npm start` builds the payer page, widget and dashboard only when their sources changed since
// the last build: a rebuild costs tens of seconds on a small machine, and a restart of an
// unchanged checkout should not pay it. Run as a script, it builds (quietly) when stale.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What the build reads: the browser code (both apps and their shared kit), what it imports from
 * the server's contracts, the page's static files, the build configurations and the locked
 * dependencies. */
export const BUILD_INPUTS = [
  'src/page',
  'src/dashboard-ui',
  'src/ui-kit',
  'widget',
  'src/contracts',
  'public',
  'vite.config.ts',
  'package-lock.json',
];

/** What the build writes; one missing means there is no complete build. */
export const BUILD_OUTPUTS = ['dist/page/index.html', 'dist/widget/widget.js', 'dist/widget/widget.mjs', 'dist/dashboard/index.html'];

/** The newest modification time under `path` (a file or a folder), or 0 when absent. */
function newest(path: string): number {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let best = st.mtimeMs; // a deleted file shows only as its folder's change
  for (const name of readdirSync(path)) {
    if (name === 'node_modules') continue;
    best = Math.max(best, newest(join(path, name)));
  }
  return best;
}

/** True when every output exists and none is older than the newest input. */
export function buildIsUpToDate(root: string, inputs: readonly string[] = BUILD_INPUTS, outputs: readonly string[] = BUILD_OUTPUTS): boolean {
  let oldestOutput = Infinity;
  for (const o of outputs) {
    const p = join(root, o);
    if (!existsSync(p)) return false;
    oldestOutput = Math.min(oldestOutput, statSync(p).mtimeMs);
  }
  const newestInput = Math.max(0, ...inputs.map((i) => newest(join(root, i))));
  return newestInput <= oldestOutput;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
  if (!buildIsUpToDate(root)) {
    console.log('Building the payer page, widget and dashboard (their sources changed)...');
    const r = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    process.exitCode = r.status ?? 1;
  }
}
