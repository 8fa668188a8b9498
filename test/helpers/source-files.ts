// The repository's source files under a folder, as paths from the repository root: what the
// architecture tests read (TypeScript and JavaScript, declaration files left out).
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(REPO_ROOT, dir))) {
    const path = `${dir}/${name}`;
    if (statSync(join(REPO_ROOT, path)).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|tsx|js)$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}
