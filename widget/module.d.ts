// Types of `satchel/widget` (widget/src/module.ts, built to dist/widget/widget.mjs).
import type { SatchelHandle, SatchelOptions } from './satchel.d.ts';

export type { SatchelEvent, SatchelEventType, SatchelHandle, SatchelInvoice, SatchelMerchant, SatchelMode, SatchelOptions, SatchelTheme, SatchelWallet } from './satchel.d.ts';

export interface ModuleOptions extends SatchelOptions {
  /** The gateway's public URL (`SATCHEL_PUBLIC_URL`); needed only when `invoice` is a bare uuid. */
  gateway?: string;
}

/** Opens the invoice (its `url`, or a uuid with `{ gateway }`) in a modal. One modal at a time. */
export function open(invoice: string, options?: ModuleOptions): SatchelHandle;
/** Shows the invoice inside `element` (or the element a selector names) until the handle's `unmount()`. */
export function mount(element: Element | string, invoice: string, options?: ModuleOptions): SatchelHandle;
