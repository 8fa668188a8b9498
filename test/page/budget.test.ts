// The payer page's initial download: JS <= 30 KB and CSS <= 8 KB gzipped (1 KB = 1024 bytes).
// Reads the build in dist/page; `npm test` builds before running vitest.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';

const dist = new URL('../../dist/page/', import.meta.url).pathname;
const built = existsSync(join(dist, 'index.html'));
if (!built) console.warn('budget.test.ts: dist/page/index.html not found, skipping; run `npx vite build` first');

const JS_BUDGET = 30 * 1024;
const CSS_BUDGET = 8 * 1024;

function initialAssets() {
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  const refs = (pattern: RegExp) => [...html.matchAll(pattern)].map((m) => m[1]!.replace(/^\//, ''));
  const entries = refs(/<script[^>]*type="module"[^>]*src="([^"]+)"/g);
  const preloads = refs(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g);
  const styles = refs(/<link[^>]*rel="stylesheet"[^>]*href="([^"]+)"/g);
  // Static imports of the entry (and theirs) are fetched before it runs, whether preloaded or not.
  const js = new Set<string>();
  const visit = (file: string) => {
    if (js.has(file)) return;
    js.add(file);
    const code = readFileSync(join(dist, file), 'utf8');
    for (const [, spec] of code.matchAll(/(?:^|[;}\s])import\s*(?:[\w${},\s*]+from\s*)?["'](\.\/[^"']+)["']/g)) {
      visit(join(file, '..', spec!));
    }
  };
  [...entries, ...preloads].forEach(visit);
  return { html, entries, js: [...js], styles };
}

const gz = (file: string) => gzipSync(readFileSync(join(dist, file))).length;

describe.skipIf(!built)('dist/page budget', () => {
  test('initial JavaScript <= 30 KB gzipped', () => {
    const { entries, js } = initialAssets();
    expect(entries).toHaveLength(1);
    const sizes = js.map((file) => [file, gz(file)] as const);
    const total = sizes.reduce((sum, [, size]) => sum + size, 0);
    console.info('initial JS (gzip):', sizes, 'total', total);
    expect(total).toBeLessThanOrEqual(JS_BUDGET);
  });

  test('CSS <= 8 KB gzipped', () => {
    const { styles } = initialAssets();
    expect(styles.length).toBeGreaterThan(0);
    const total = styles.reduce((sum, file) => sum + gz(file), 0);
    console.info('CSS (gzip):', total);
    expect(total).toBeLessThanOrEqual(CSS_BUDGET);
  });

  test('one request for JavaScript before the first render, which the browser does not paint before', () => {
    const { html, js } = initialAssets();
    // No runtime chunk beside the entry (the CommonJS interop qrcode needs stays in its lazy chunk).
    expect(js).toHaveLength(1);
    expect(html).not.toContain('modulepreload');
    // The page has nothing to show before the entry has run (vite.config.ts adds the attribute).
    expect(html).toMatch(/<script type="module" blocking="render" [^>]*src="\/assets\/index-[^"]+\.js"><\/script>/);
  });

  test('qrcode and the other languages are not in the initial JavaScript', () => {
    const { js } = initialAssets();
    const initial = js.map((file) => readFileSync(join(dist, file), 'utf8')).join('\n');
    expect(initial).not.toContain('Скопировано'); // Russian
    expect(initial).not.toContain('Kopyalandı'); // Turkish
    expect(initial).not.toMatch(/Invalid hex color|Bad data/); // qrcode internals
    expect(initial).not.toContain('a9059cbb'); // paying from a browser wallet (ERC-20 transfer)
    expect(initial).not.toContain('wallet_switchEthereumChain');
    expect(initial).toContain('Copied'); // English is bundled
  });

  test('index.html works under the strict CSP: no inline script or style', () => {
    const { html } = initialAssets();
    for (const [, attrs, body] of html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)) {
      expect(attrs).toMatch(/src="/);
      expect(body!.trim()).toBe('');
    }
    expect(html).not.toMatch(/<style|\sstyle=|\son\w+=/i);
  });

  test('icons for every listed currency and a generic one', () => {
    for (const code of ['BTC', 'LTC', 'DOGE', 'ETH', 'BNB', 'POL', 'AVAX', 'TRX', 'TON', 'SOL', 'XMR', 'USDT', 'USDC', 'generic']) {
      const svg = readFileSync(join(dist, 'icons', `${code}.svg`), 'utf8');
      expect(svg).toMatch(/^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
      expect(svg).not.toMatch(/<script|\son\w+=|href="(?!#)/i);
    }
  });
});
