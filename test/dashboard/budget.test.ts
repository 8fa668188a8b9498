// The dashboard's first download and its languages, from the build in dist/dashboard: the initial
// JavaScript stays within 60 KB gzipped (1 KB = 1024 bytes), English is in it, and every other
// language is a chunk of its own that the initial script does not contain, fetched only when
// chosen. `npm test` builds before running vitest; without a build this is skipped.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { PAGE_LANGUAGES } from '../../src/contracts/payer.ts';
import type { Messages } from '../../src/dashboard-ui/i18n/en.ts';

const dist = new URL('../../dist/dashboard/', import.meta.url).pathname;
const built = existsSync(join(dist, 'index.html'));
if (!built) console.warn('budget.test.ts: dist/dashboard/index.html not found, skipping; run `npm run build` first');

const JS_BUDGET = 60 * 1024;

function initialJs(): string[] {
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  const entries = [...html.matchAll(/<script[^>]*type="module"[^>]*src="\/dashboard\/([^"]+)"/g)].map((m) => m[1]!);
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const code = readFileSync(join(dist, file), 'utf8');
    for (const [, spec] of code.matchAll(/(?:^|[;}\s])import\s*(?:[\w${},\s*]+from\s*)?["'](\.\/[^"']+)["']/g)) visit(join(file, '..', spec!));
  };
  entries.forEach(visit);
  return [...seen];
}

describe.skipIf(!built)('dist/dashboard budget and language chunks', () => {
  test('initial JavaScript <= 60 KB gzipped, English included', () => {
    const files = initialJs();
    expect(files.length).toBeGreaterThan(0);
    const code = files.map((f) => readFileSync(join(dist, f), 'utf8')).join('\n');
    expect(gzipSync(code).length).toBeLessThanOrEqual(JS_BUDGET);
    expect(code).toContain('Waiting for payment');
  });

  test('each other language is one chunk of its own, not in the initial script', async () => {
    const initial = initialJs().map((f) => readFileSync(join(dist, f), 'utf8')).join('\n');
    const chunks = readdirSync(join(dist, 'assets')).filter((f) => f.endsWith('.js'));
    for (const code of PAGE_LANGUAGES.filter((c) => c !== 'en')) {
      const m = ((await import(`../../src/dashboard-ui/i18n/${code}.ts`)) as { default: Messages }).default;
      const marker = m.labels.invoice.wrong_amount[1]; // a sentence only this language has
      expect(initial, code).not.toContain(marker);
      const holding = chunks.filter((f) => readFileSync(join(dist, 'assets', f), 'utf8').includes(marker));
      expect(holding, code).toHaveLength(1);
      expect(holding[0], code).toMatch(new RegExp(`^${code}-[\\w-]+\\.js$`));
      // Every word of the dashboard in that language (labels, audit sentences, the views' forms,
      // notices and headings, and what the server sends as codes: the readiness findings, custody
      // warnings, refused inputs): 12.6 to 16.3 KB gzipped today.
      expect(gzipSync(readFileSync(join(dist, 'assets', holding[0]!))).length, code).toBeLessThan(18 * 1024);
    }
  });
});
