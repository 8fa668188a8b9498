// The hosted payment page (/pay/{uuid}, /pay/wallet/{uuid}). The widget has its own config.
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import preact from '@preact/preset-vite';
import { sharedHead } from './src/ui-kit/head.ts';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The entry script blocks rendering until it has run (`blocking="render"`; Vite drops attributes it
 * does not know from the source tag). The page has nothing to show before it: without this the
 * browser lays out and paints the empty page first, main-thread work that delays the invoice by as
 * much. Browsers without the attribute ignore it. A failed script unblocks rendering (the
 * <noscript> text or an empty page, as before).
 */
function renderBlockingEntry(): Plugin {
  return {
    name: 'satchel-render-blocking-entry',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html) {
        const tag = '<script type="module" crossorigin src=';
        if (html.split(tag).length !== 2) throw new Error(`index.html: expected exactly one ${tag}`);
        return html.replace(tag, '<script type="module" blocking="render" crossorigin src=');
      },
    },
  };
}

// `SATCHEL_API_URL=http://localhost:8080 npx vite` serves the page with a running gateway's API.
const api = process.env.SATCHEL_API_URL;

export default defineConfig({
  root: here('./src/page'),
  base: '/',
  publicDir: here('./public'),
  plugins: [preact(), sharedHead(), renderBlockingEntry()],
  server: api ? { proxy: { '/api': api, '/simulator': api } } : {},
  build: {
    outDir: here('./dist/page'),
    emptyOutDir: true,
    assetsDir: 'assets',
    // Every browser that runs this page's ES modules supports modulepreload natively enough;
    // the polyfill would only add bytes to the entry chunk.
    modulePreload: { polyfill: false },
    // Icons are few and small; keep every asset a file so the CSP needs no data: beyond images.
    assetsInlineLimit: 0,
    rolldownOptions: {
      // The entry exports nothing, so shared code may live in it: lazy chunks import from the
      // entry rather than from a separate common chunk that would cost the first load a request
      // and compress worse.
      preserveEntrySignatures: false,
      output: { codeSplitting: { groups: [{ name: 'index', tags: ['$initial'] }] } },
    },
  },
});
