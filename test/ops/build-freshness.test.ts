// `npm start` skips the build when it is up to date: the decision, on a folder of files whose
// modification times the test sets.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUILD_INPUTS, BUILD_OUTPUTS, buildIsUpToDate } from '../../src/ops/build-freshness.ts';

describe('build freshness', () => {
  let root: string;
  const put = (path: string, at: number) => {
    const p = join(root, path);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, 'x');
    utimesSync(p, at, at);
    for (let d = dirname(p); d.length > root.length; d = dirname(d)) utimesSync(d, at, at);
  };
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'satchel-build-'));
    put('src/page/app.tsx', 1000);
    put('src/dashboard-ui/app.tsx', 1000);
    put('widget/src/main.ts', 1000);
    put('src/contracts/payer.ts', 1000);
    put('vite.config.ts', 1000);
    for (const o of BUILD_OUTPUTS) put(o, 2000);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('up to date when every output is newer than every input', () => {
    expect(buildIsUpToDate(root)).toBe(true);
  });

  it('stale when a page, dashboard, widget or contract source or a vite config changed after the build', () => {
    for (const changed of ['src/page/app.tsx', 'src/dashboard-ui/app.tsx', 'widget/src/main.ts', 'src/contracts/payer.ts', 'vite.config.ts', 'src/page/new-file.tsx']) {
      put(changed, 3000);
      expect(buildIsUpToDate(root), changed).toBe(false);
      put(changed, 1000);
    }
  });

  it('stale when an output is missing (never built, or a build cut short)', () => {
    rmSync(join(root, 'dist/dashboard/index.html'));
    expect(buildIsUpToDate(root)).toBe(false);
  });

  it('server code is not a build input', () => {
    put('src/invoices/create.ts', 3000);
    expect(buildIsUpToDate(root)).toBe(true);
    expect(BUILD_INPUTS).not.toContain('src');
  });
});
