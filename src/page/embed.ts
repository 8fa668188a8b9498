// Messaging with the widget when the page runs inside its iframe:
// ?embed=modal|inline&instance=<id>&origin=<parent origin> (read by route.ts).
// Messages go only to that exact origin, and only messages from it with the same instance id are read.
// Loaded only on embedded pages, so standalone payers do not download it.
import { effect, type Signal } from '@preact/signals';
import type { Payable } from './api.ts';
import { translate, type Messages } from './i18n/index.ts';
import type { EmbedConfig } from './route.ts';
import { asTheme, type Theme } from '../ui-kit/theme.ts';
import { EMBED_SOURCE, EMBED_VERSION, type EmbedMessage, type EmbedMessageType, type UncheckedEmbedMessage } from '../contracts/embed.ts';

export { readEmbedConfig, type EmbedConfig, type EmbedMode } from './route.ts';

export type { EmbedMessage } from '../contracts/embed.ts';
export type OutgoingType = EmbedMessageType;

export interface IncomingMessage {
  type: string;
  payload: unknown;
}

export interface Embed {
  config: EmbedConfig;
  post(type: OutgoingType, payload?: unknown): void;
  /** Calls `handler` for each accepted message from the parent; returns an unsubscribe function. */
  listen(handler: (message: IncomingMessage) => void): () => void;
  /** Reports `{height}` to the parent whenever the element's height changes. */
  observeHeight(element: Element): () => void;
}

export function createEmbed(config: EmbedConfig, win: Window = window): Embed {
  const parent = win.parent;

  function post(type: OutgoingType, payload: unknown = null) {
    if (!parent || parent === win) return;
    const message: EmbedMessage = { source: EMBED_SOURCE, version: EMBED_VERSION, instance: config.instance, type, payload };
    parent.postMessage(message, config.origin);
  }

  function listen(handler: (message: IncomingMessage) => void) {
    const onMessage = (event: MessageEvent) => {
      if (event.origin !== config.origin) return;
      if (event.source !== null && event.source !== parent) return;
      const data: unknown = event.data;
      if (!data || typeof data !== 'object') return;
      const { source, instance, type, payload } = data as UncheckedEmbedMessage;
      if (source !== EMBED_SOURCE || instance !== config.instance || typeof type !== 'string') return;
      handler({ type, payload });
    };
    win.addEventListener('message', onMessage);
    return () => win.removeEventListener('message', onMessage);
  }

  function observeHeight(element: Element) {
    let last = -1;
    const report = () => {
      const height = Math.ceil(element.getBoundingClientRect().height);
      if (height === last) return;
      last = height;
      post('resize', { height });
    };
    const { ResizeObserver: Observer, MutationObserver: Mutations } = win as Window & typeof globalThis;
    // Browsers pause ResizeObserver in a cross-origin frame that is off screen or hidden (an inline
    // widget below the fold, a modal still loading), which would leave the frame at its first size.
    // DOM changes are still seen there, and measuring forces layout.
    const mutations = Mutations ? new Mutations(report) : null;
    mutations?.observe(element, { subtree: true, childList: true, characterData: true, attributes: true });
    const observer = Observer ? new Observer(report) : null;
    observer?.observe(element);
    report();
    return () => {
      mutations?.disconnect();
      observer?.disconnect();
    };
  }

  return { config, post, listen, observeHeight };
}

/** What the page shares with the widget: its state, read-only except the theme the widget may set. */
export interface EmbedDeps {
  win: Window;
  payable: Signal<Payable | null>;
  fatal: Signal<'not_found' | null>;
  failures: Signal<number>;
  messages: Signal<Messages>;
  embedTheme: Signal<Theme | null>;
}

/**
 * Tells the widget what happens: `loaded` once, `status` on every change, `paid` and `expired` on
 * those transitions, `error` when nothing can be shown, `resize` as the content grows or shrinks,
 * and in modal mode `close-request` on Esc.
 * Returns the function that stops it all.
 */
export function connectEmbed(embed: Embed, deps: EmbedDeps): () => void {
  const { win, payable, fatal, failures, messages, embedTheme } = deps;
  const t = () => translate(messages.peek());
  let loaded = false;
  let erred = false;
  let lastStatus: string | null = null;
  const stops = [
    embed.listen((message) => {
      if (message.type === 'theme') {
        const payload = message.payload as { theme?: unknown } | null;
        embedTheme.value = asTheme(payload?.theme);
      }
    }),
    effect(() => {
      const p = payable.value;
      const f = fatal.value;
      if (!loaded && (p || f)) {
        loaded = true;
        embed.post('loaded', p ? { kind: p.kind, uuid: p.uuid } : null);
      }
      if (f && !erred) {
        erred = true;
        embed.post('error', { code: f, message: t()('not_found_title') });
      }
      if (!p) {
        if (failures.value > 0 && !erred) {
          erred = true;
          embed.post('error', { code: 'unreachable', message: t()('load_error_title') });
        }
        return;
      }
      embed.post('status', p);
      if (p.kind === 'invoice' && p.status !== lastStatus) {
        if (p.status === 'paid' || p.status === 'paid_over') embed.post('paid', p);
        if (p.status === 'cancel') embed.post('expired', p);
      }
      lastStatus = p.status;
    }),
    embed.observeHeight(win.document.body),
  ];
  if (embed.config.mode === 'modal') {
    // Keys pressed in this frame never reach the merchant's document, so Esc is forwarded as a
    // close request (the widget closes its modal on Esc pressed anywhere).
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape' && !event.defaultPrevented) embed.post('close-request');
    };
    win.document.addEventListener('keydown', onKey);
    stops.push(() => win.document.removeEventListener('keydown', onKey));
  }
  return () => stops.forEach((stop) => stop());
}
