// The messages the payment page, running in the widget's iframe, posts to the widget on the
// merchant's page. Declared here once: the page (src/page/embed.ts) builds them, the widget
// (widget/src/loader.ts) reads them.

export const EMBED_SOURCE = 'satchel';
export const EMBED_VERSION = 1;

/** What the page reports: its own state, its height, and the payer's requests to the widget. */
export type EmbedMessageType =
  | 'loaded'
  | 'status'
  | 'paid'
  | 'expired'
  | 'error'
  | 'resize'
  | 'open-wallet'
  | 'close-request';

export interface EmbedMessage<P = unknown> {
  source: typeof EMBED_SOURCE;
  version: typeof EMBED_VERSION;
  /** The widget's id for this frame (a merchant's page may hold several). */
  instance: string;
  type: string;
  payload: P;
}

/** A message as it arrives, before the receiver has checked it is one of ours. */
export type UncheckedEmbedMessage = { [K in keyof EmbedMessage]?: unknown };
