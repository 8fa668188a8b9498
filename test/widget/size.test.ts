// The loader runs on every page of a merchant's shop: it stays <= 4 KB gzipped (1 KB = 1024 bytes),
// never loads the payment page's code, and never posts a message (only the page does, to one origin).
// Reads the build in dist/widget (`npx vite build --config widget/vite.config.ts`).
import { existsSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';

const dist = new URL('../../dist/widget/', import.meta.url).pathname;
const built = existsSync(dist + 'widget.js');
if (!built) console.warn('size.test.ts: dist/widget/widget.js not found, skipping; run `npx vite build --config widget/vite.config.ts`');

describe.skipIf(!built)('dist/widget', () => {
  const code = () => readFileSync(dist + 'widget.js', 'utf8');

  test('widget.js <= 4 KB gzipped', () => {
    const size = gzipSync(readFileSync(dist + 'widget.js'), { level: 9 }).length;
    console.info('widget.js (gzip):', size);
    expect(size).toBeLessThanOrEqual(4 * 1024);
  });

  test('one classic script: no module syntax, no further scripts or chunks', () => {
    expect(code()).not.toMatch(/\bimport\s*\(|^\s*import\s|^\s*export\s/m);
    expect(code()).not.toMatch(/createElement\(["']script["']\)/);
    expect(code()).not.toContain('preact');
  });

  test('never posts a message', () => {
    expect(code()).not.toContain('postMessage');
  });

  test('its typings are published beside it', () => {
    expect(readFileSync(dist + 'widget.d.ts', 'utf8')).toBe(readFileSync(new URL('../../widget/satchel.d.ts', import.meta.url), 'utf8'));
  });
});
