// widget.js: `<script src="https://<gateway>/widget.js" async></script>` on the merchant's page.
// The gateway is wherever this script came from; only that origin's frames are listened to.
import { createSatchel } from './loader.ts';

type Win = Window & typeof globalThis;

const win = window as Win;
// Set for every classic script, async or injected by a tag manager. Guessing from other script
// tags could take another vendor's widget.js for the gateway, so there is no fallback.
const src = (document.currentScript as HTMLScriptElement | null)?.src;

if (!src) {
  console.error('Satchel: load widget.js with a <script src> tag from your gateway');
} else if (!win.Satchel) {
  // (Loaded twice, e.g. by a theme and a plugin: the first copy serves both.)
  const satchel = createSatchel(win, new URL('./', src).href);
  win.Satchel = { version: satchel.version, open: satchel.open, mount: satchel.mount };
  const start = () => {
    satchel.scan();
    // Single-page shops add declarative elements later.
    new MutationObserver(() => satchel.scan()).observe(document.documentElement, {
      childList: true,
      subtree: true,
      attributes: true,
      attributeFilter: ['data-satchel-invoice', 'data-satchel-mode', 'data-satchel-theme', 'data-satchel-lang'],
    });
    document.dispatchEvent(new Event('satchel:ready'));
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
}
