// The widget loader: shows the hosted payment page in an iframe on a merchant's page, as a modal
// or inline, and turns the page's messages into events for the merchant (D10).
// The page's code never runs in the merchant's document: only this file does, so it stays tiny
// (<= 4 KB gzipped, test/widget/size.test.ts).
import type {
  SatchelApi,
  SatchelEvent,
  SatchelEventPayloads,
  SatchelEventType,
  SatchelHandle,
  SatchelMode,
  SatchelOptions,
} from '../satchel.d.ts';
import { EMBED_SOURCE, EMBED_VERSION, type UncheckedEmbedMessage } from '../../src/contracts/embed.ts';
import { MODAL_CSS } from './styles.ts';

type Win = Window & typeof globalThis;

const ATTR = 'data-satchel-invoice';
const ATTRS = [ATTR, 'data-satchel-mode', 'data-satchel-theme', 'data-satchel-lang'];
const LOAD_TIMEOUT_MS = 20_000;
/** What the frame may do: run, talk to its own origin, and leave to the merchant's return URL on a click. */
const SANDBOX =
  'allow-scripts allow-same-origin allow-forms allow-popups allow-popups-to-escape-sandbox allow-top-navigation-by-user-activation';
const ID = /^[\w-]{1,64}$/;

interface Widget extends SatchelHandle {
  /** The element this widget's DOM events are dispatched on. */
  target: EventTarget;
  /** For declarative elements: the attributes it was made from, to notice a change. */
  key?: string;
}

/**
 * `base` is the gateway's public base URL with a trailing slash (where widget.js came from):
 * the page is `{base}pay/{uuid}` and the only origin whose messages are read is its origin.
 */
export function createSatchel(win: Win, base: string): SatchelApi & { scan(root?: ParentNode): void } {
  const doc = win.document;
  const gateway = new URL(base).origin;
  const mounted = new Map<Element, Widget>();
  let modal: Widget | null = null;

  /** `pay/{uuid}` or `pay/wallet/{uuid}` from a uuid or a url under `base`. */
  function pathOf(invoice: unknown): string {
    const value = String(invoice ?? '').trim();
    if (ID.test(value)) return 'pay/' + value;
    const rest = value.startsWith(base) ? value.slice(base.length).split(/[?#]/)[0]! : '';
    if (/^pay\/(wallet\/)?[\w-]{1,64}$/.test(rest)) return rest;
    throw new TypeError(`Satchel: "${value}" is not an invoice uuid or a url under ${base}`);
  }

  function create(mode: SatchelMode, invoice: string, options: SatchelOptions, host: Element | null): Widget {
    const path = pathOf(invoice);
    // One modal at a time; closing the old one first also puts focus back where the new one must return it.
    if (mode === 'modal') modal?.close();
    const uuid = path.slice(path.lastIndexOf('/') + 1);
    const random = win.crypto.getRandomValues(new Uint32Array(2));
    const instance = 'w' + random[0]!.toString(36) + random[1]!.toString(36);
    const theme = options.theme;
    const query = new URLSearchParams({ embed: mode, instance, origin: win.location.origin });
    if (theme === 'light' || theme === 'dark') query.set('theme', theme);
    if (options.lang) query.set('lang', options.lang);

    const iframe = doc.createElement('iframe');
    iframe.title = options.title || 'Payment';
    iframe.setAttribute('allow', 'clipboard-write');
    iframe.setAttribute('sandbox', SANDBOX);
    iframe.src = `${base}${path}?${query}`;

    // Focus goes back here on close (inside a web component, to the focused element within it).
    let opener = doc.activeElement as HTMLElement | null;
    while (opener?.shadowRoot?.activeElement) opener = opener.shadowRoot.activeElement as HTMLElement;
    let lastStatus: unknown;
    let done = false;
    let dialog: HTMLDialogElement | null = null;
    let root: ShadowRoot | null = null;
    let restore = () => {};

    const widget: Widget = {
      instance,
      invoice: uuid,
      mode,
      target: host ?? doc,
      close: () => destroy('api'),
      unmount: () => destroy('api'),
    };

    function emit<T extends SatchelEventType>(type: T, payload: SatchelEventPayloads[T]) {
      const detail = { type, instance, invoice: uuid, mode, payload } as SatchelEvent;
      try {
        options.onEvent?.(detail);
      } catch (error) {
        // A failing merchant callback must not stop the widget; report it like an uncaught error.
        setTimeout(() => {
          throw error;
        });
      }
      // An element removed from the page cannot bubble to anyone: its events go to the document.
      const target = widget.target instanceof win.Node && !widget.target.isConnected ? doc : widget.target;
      target.dispatchEvent(new CustomEvent('satchel:' + type, { detail, bubbles: true }));
    }

    function shown() {
      clearTimeout(timer);
      if (!dialog || dialog.classList.contains('ok')) return;
      const hadFocus = root?.activeElement;
      dialog.classList.add('ok');
      // The loading close button disappears: keep focus in the dialog, on the page.
      if (hadFocus) iframe.focus();
    }

    function setHeight(height: unknown) {
      if (typeof height !== 'number' || !(height > 0) || height > 1e5) return;
      if (dialog) dialog.style.setProperty('--h', `${Math.ceil(height)}px`);
      else iframe.style.height = `${Math.ceil(height)}px`;
    }

    function onMessage(event: MessageEvent) {
      const data = event.data as (UncheckedEmbedMessage & { payload?: any }) | null;
      if (event.origin !== gateway || event.source !== iframe.contentWindow || !data || typeof data !== 'object') return;
      if (data.source !== EMBED_SOURCE || data.version !== EMBED_VERSION || data.instance !== instance) return;
      const payload = data.payload;
      switch (data.type) {
        case 'resize':
          return setHeight(payload?.height);
        case 'open-wallet':
          return openUri(payload?.uri, dialog ?? doc.body);
        case 'close-request':
          return dialog ? destroy('user') : undefined;
        case 'loaded':
          shown();
          return emit('loaded', payload);
        case 'error':
          shown();
          return emit('error', payload);
        case 'status':
          // The page reports every change it sees; the merchant hears of status changes.
          if (payload?.status === lastStatus) return;
          lastStatus = payload?.status;
          return emit('status', payload);
        case 'paid':
        case 'expired':
          return emit(data.type, payload);
      }
    }

    function destroy(reason: 'user' | 'api') {
      if (done) return;
      done = true;
      clearTimeout(timer);
      win.removeEventListener('message', onMessage);
      restore();
      if (modal === widget) modal = null;
      if (host && mounted.get(host) === widget) mounted.delete(host);
      emit('closed', { reason });
    }

    const timer = setTimeout(() => {
      shown();
      emit('error', { code: 'timeout', message: 'The payment page did not load.' });
    }, LOAD_TIMEOUT_MS);
    win.addEventListener('message', onMessage);

    if (mode === 'inline') {
      const element = host!;
      const saved = [...element.childNodes];
      iframe.setAttribute('scrolling', 'no');
      iframe.style.cssText = 'display:block;width:100%;min-width:280px;height:480px;border:0;overflow:hidden';
      element.replaceChildren(iframe);
      restore = () => (element.isConnected ? element.replaceChildren(...saved) : iframe.remove());
      return widget;
    }

    // Modal: a <dialog> in a shadow root makes the rest of the page inert (focus stays inside),
    // sits above everything, and keeps the merchant's CSS out.
    const box = doc.createElement('satchel-modal');
    root = box.attachShadow({ mode: 'open' });
    const Sheet = win.CSSStyleSheet;
    if (Sheet && 'adoptedStyleSheets' in root) {
      const sheet = new Sheet();
      sheet.replaceSync(MODAL_CSS);
      root.adoptedStyleSheets = [sheet];
    } else {
      root.append(Object.assign(doc.createElement('style'), { textContent: MODAL_CSS }));
    }
    const dlg = (dialog = doc.createElement('dialog'));
    dlg.setAttribute('aria-label', iframe.title);
    if (theme === 'dark' || (theme !== 'light' && win.matchMedia?.('(prefers-color-scheme: dark)').matches)) dlg.className = 'dark';
    const spinner = doc.createElement('div');
    spinner.className = 's';
    const close = doc.createElement('button');
    close.className = 'x';
    close.type = 'button';
    close.textContent = '×';
    close.setAttribute('aria-label', 'Close');
    close.onclick = () => destroy('user');
    // Tabbing out of the page (forward past its last control, or back past its first) lands on a
    // sentinel that puts focus back into the page, so focus never leaves the dialog.
    const sentinel = () => {
      const span = doc.createElement('span');
      span.tabIndex = 0;
      span.onfocus = () => (dlg.classList.contains('ok') ? iframe.focus() : close.focus());
      return span;
    };
    dlg.append(sentinel(), spinner, close, iframe, sentinel());
    // Esc in the merchant's document (the page inside sends close-request for its own Esc).
    dlg.addEventListener('cancel', (event) => {
      event.preventDefault();
      destroy('user');
    });
    dlg.addEventListener('close', () => destroy('user'));
    root.append(dlg);

    modal = widget;
    const html = doc.documentElement;
    const body = doc.body;
    const before = [html.style.overflow, body.style.overflow, body.style.paddingRight];
    const scrollbar = win.innerWidth - html.clientWidth;
    html.style.overflow = body.style.overflow = 'hidden';
    if (scrollbar > 0) body.style.paddingRight = `${scrollbar}px`;
    body.append(box);
    if (dlg.showModal) dlg.showModal();
    else dlg.setAttribute('open', '');
    close.focus();
    restore = () => {
      if (dlg.open && dlg.close) dlg.close();
      box.remove();
      [html.style.overflow, body.style.overflow, body.style.paddingRight] = before as [string, string, string];
      if (opener?.isConnected && opener !== body) opener.focus();
    };
    return widget;
  }

  function optionsOf(element: Element): SatchelOptions {
    return {
      theme: (element.getAttribute('data-satchel-theme') ?? undefined) as SatchelOptions['theme'],
      lang: element.getAttribute('data-satchel-lang') ?? undefined,
    };
  }

  /** A declarative element's mistake is reported on the element, not thrown at the page. */
  function declared(element: Element, mode: SatchelMode, make: () => Widget) {
    try {
      return make();
    } catch (error) {
      const message = (error as Error).message;
      console.error(message);
      const detail = { type: 'error', instance: '', invoice: element.getAttribute(ATTR), mode, payload: { code: 'bad_invoice', message } };
      element.dispatchEvent(new CustomEvent('satchel:error', { detail, bubbles: true }));
      return null;
    }
  }

  function mount(element: Element | string, invoice: string, options: SatchelOptions = {}): Widget {
    const host = typeof element === 'string' ? doc.querySelector(element) : element;
    if (!host) throw new TypeError(`Satchel: no element ${String(element)}`);
    mounted.get(host)?.unmount();
    const widget = create('inline', invoice, options, host);
    mounted.set(host, widget);
    return widget;
  }

  /** Mounts declarative inline elements under `root`; unmounts those removed or changed. */
  function scan(root: ParentNode = doc) {
    for (const [element, widget] of mounted) {
      const key = element.isConnected && keyOf(element);
      if (widget.key !== undefined && key !== widget.key) widget.unmount();
      else if (!element.isConnected) widget.unmount();
    }
    const found = [...root.querySelectorAll(`[${ATTR}][data-satchel-mode=inline]`)];
    if (root instanceof win.Element && root.matches(`[${ATTR}][data-satchel-mode=inline]`)) found.push(root);
    for (const element of found) {
      const key = keyOf(element);
      if (mounted.get(element)?.key === key || !element.getAttribute(ATTR)) continue;
      const widget = declared(element, 'inline', () => mount(element, element.getAttribute(ATTR)!, optionsOf(element)));
      if (widget) widget.key = key;
    }
  }

  function keyOf(element: Element): string {
    return ATTRS.map((name) => element.getAttribute(name)).join('\n');
  }

  // Declarative modals: one listener for every element, present or added later.
  doc.addEventListener('click', (event) => {
    const element = (event.target as Element | null)?.closest?.(`[${ATTR}]`);
    if (!element || event.defaultPrevented || element.getAttribute('data-satchel-mode') === 'inline') return;
    event.preventDefault();
    declared(element, 'modal', () => create('modal', element.getAttribute(ATTR)!, optionsOf(element), element));
  });

  return {
    version: '1',
    open: (invoice, options = {}) => create('modal', invoice, options, null),
    mount,
    scan,
  };
}

/** Wallet deep links fail inside iframes in several browsers, so the top window opens them. */
function openUri(uri: unknown, parent: Element) {
  if (typeof uri !== 'string' || !/^[a-z][\w+.-]*:/i.test(uri) || /^\s*(javascript|data|vbscript|file|blob):/i.test(uri)) return;
  const link = parent.ownerDocument.createElement('a');
  link.href = uri;
  if (/^https?:/i.test(uri)) {
    link.target = '_blank';
    link.rel = 'noopener';
  }
  parent.append(link);
  link.click();
  link.remove();
}
