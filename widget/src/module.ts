// `import { open, mount } from 'satchel/widget'`: the loader as an ES module for single-page shops
// (React, Vue, ...). Bundled into the shop's own code, it cannot learn the gateway from its own
// URL as widget.js does: the gateway is where the invoice's `url` points, or, for a bare uuid,
// the `gateway` option. Nothing is set on `window` and no element is scanned: only what is called.
import type { SatchelHandle, SatchelOptions } from '../satchel.d.ts';
import { createSatchel } from './loader.ts';

export type { SatchelEvent, SatchelHandle, SatchelInvoice, SatchelMerchant, SatchelOptions, SatchelWallet } from '../satchel.d.ts';

export interface ModuleOptions extends SatchelOptions {
  /** The gateway's public URL (`SATCHEL_PUBLIC_URL`); needed only when `invoice` is a bare uuid. */
  gateway?: string;
}

type Loader = ReturnType<typeof createSatchel>;

// One loader per gateway and window, made on first use: "one modal at a time" holds per gateway.
const loaders = new WeakMap<Window, Map<string, Loader>>();

function loaderFor(invoice: string, gateway: string | undefined): Loader {
  let base: string;
  if (gateway !== undefined) base = new URL('./', new URL(gateway.endsWith('/') ? gateway : `${gateway}/`)).href;
  else {
    const at = invoice.indexOf('/pay/');
    if (!/^https?:\/\//.test(invoice) || at < 0) throw new TypeError(`Satchel: "${invoice}" is not an invoice url; pass { gateway } with a bare uuid`);
    base = invoice.slice(0, at + 1);
  }
  let perWindow = loaders.get(window);
  if (!perWindow) loaders.set(window, (perWindow = new Map()));
  let loader = perWindow.get(base);
  if (!loader) perWindow.set(base, (loader = createSatchel(window as Window & typeof globalThis, base)));
  return loader;
}

/** Opens the invoice (its `url`, or a uuid with `{ gateway }`) in a modal. */
export function open(invoice: string, options: ModuleOptions = {}): SatchelHandle {
  const { gateway, ...rest } = options;
  return loaderFor(invoice, gateway).open(invoice, rest);
}

/** Shows the invoice inside `element` until the handle's `unmount()`. */
export function mount(element: Element | string, invoice: string, options: ModuleOptions = {}): SatchelHandle {
  const { gateway, ...rest } = options;
  return loaderFor(invoice, gateway).mount(element, invoice, rest);
}
