// @vitest-environment jsdom
// The widget loader in a merchant's document: what it builds, which messages it reads, what the
// merchant hears. (jsdom has no showModal and no constructed stylesheets: the loader's fallbacks
// run here; e2e/widget.spec.ts covers the real browser.)
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { createSatchel } from '../../widget/src/loader.ts';
import type { SatchelEvent } from '../../widget/satchel.d.ts';

type Win = Window & typeof globalThis;
const BASE = 'https://pay.example/';
const GATEWAY = 'https://pay.example';
const UUID = '3f0c2a1e-8b7d-4c55-9e1a-0f6d2b9c7a10';

// One loader for the file: like the real one, it listens on the document for good.
const satchel = createSatchel(window as Win, BASE);

function frameOf(container: ParentNode = document) {
  const iframe = container.querySelector('iframe') ?? document.querySelector('satchel-modal')?.shadowRoot?.querySelector('iframe');
  if (!iframe) throw new Error('no iframe');
  return { iframe, query: new URL(iframe.src).searchParams };
}

/** A message as the page in `iframe` sends it, or altered by `overrides` (`tag` is the data's `source`). */
function send(iframe: HTMLIFrameElement, type: string, payload: unknown, overrides: { origin?: string; instance?: string; tag?: string; data?: unknown } = {}) {
  const instance = overrides.instance ?? new URL(iframe.src).searchParams.get('instance');
  const data = { source: overrides.tag ?? 'satchel', version: 1, instance, type, payload };
  window.dispatchEvent(new MessageEvent('message', { data: overrides.data ?? data, origin: overrides.origin ?? GATEWAY, source: iframe.contentWindow }));
}

const invoice = (status: string) => ({ kind: 'invoice', uuid: UUID, status });

beforeEach(() => {
  document.body.innerHTML = '';
});
afterEach(() => {
  document.querySelector('satchel-modal')?.remove();
  vi.useRealTimers();
});

describe('the invoice to show', () => {
  test('a uuid or a url under the gateway; anything else is refused', () => {
    const box = document.createElement('div');
    document.body.append(box);
    satchel.mount(box, UUID).unmount();
    satchel.mount(box, `${BASE}pay/${UUID}?lang=es#x`).unmount();
    satchel.mount(box, `${BASE}pay/wallet/${UUID}`).unmount();
    for (const bad of ['https://evil.example/pay/' + UUID, `${BASE}admin`, 'javascript:alert(1)', '', '../../x', 'a b']) {
      expect(() => satchel.mount(box, bad), bad).toThrow(TypeError);
    }
  });

  test('a static wallet url shows the wallet page', () => {
    const box = document.createElement('div');
    document.body.append(box);
    const handle = satchel.mount(box, `${BASE}pay/wallet/${UUID}`);
    expect(frameOf(box).iframe.src.startsWith(`${BASE}pay/wallet/${UUID}?`)).toBe(true);
    expect(handle.invoice).toBe(UUID);
    handle.unmount();
  });
});

describe('inline', () => {
  test('an iframe of the page in embed mode, with the exact origin, theme and language', () => {
    const box = document.createElement('div');
    box.innerHTML = '<a href="/fallback">Pay on the gateway</a>';
    document.body.append(box);
    const handle = satchel.mount(box, UUID, { theme: 'dark', lang: 'pt' });
    const { iframe, query } = frameOf(box);
    expect(iframe.src.startsWith(`${BASE}pay/${UUID}?`)).toBe(true);
    expect(Object.fromEntries(query)).toEqual({ embed: 'inline', instance: handle.instance, origin: window.location.origin, theme: 'dark', lang: 'pt' });
    expect(handle.instance).toMatch(/^[\w-]{1,64}$/);
    expect(iframe.getAttribute('allow')).toBe('clipboard-write');
    expect(iframe.getAttribute('sandbox')).toContain('allow-top-navigation-by-user-activation');
    expect(iframe.title).toBe('Payment');
    expect(box.textContent).toBe('');
    handle.unmount();
    expect(box.innerHTML).toBe('<a href="/fallback">Pay on the gateway</a>');
  });

  test('"auto" leaves the theme to the invoice and the payer; each mount has its own instance', () => {
    const a = document.createElement('div');
    const b = document.createElement('div');
    document.body.append(a, b);
    const first = satchel.mount(a, UUID, { theme: 'auto' });
    const second = satchel.mount(b, UUID);
    expect(frameOf(a).query.has('theme')).toBe(false);
    expect(first.instance).not.toBe(second.instance);
    first.unmount();
    second.unmount();
  });

  test('events in order, status only when it changes, as callbacks and bubbling DOM events', () => {
    const box = document.createElement('div');
    document.body.append(box);
    const heard: string[] = [];
    const onEvent = (event: SatchelEvent) => heard.push(`cb ${event.type}`);
    document.addEventListener('satchel:paid', (e) => heard.push(`dom ${e.detail.type} ${e.detail.invoice} ${(e.target as Element) === box}`), { once: true });
    const handle = satchel.mount(box, UUID, { onEvent });
    const { iframe } = frameOf(box);
    send(iframe, 'loaded', { kind: 'invoice', uuid: UUID });
    send(iframe, 'status', invoice('process'));
    send(iframe, 'status', invoice('process')); // a poll that changed something else
    send(iframe, 'status', invoice('paid'));
    send(iframe, 'paid', invoice('paid'));
    handle.unmount();
    handle.unmount();
    expect(heard).toEqual(['cb loaded', 'cb status', 'cb status', 'cb paid', `dom paid ${UUID} true`, 'cb closed']);
  });

  test('the frame takes the height the page reports', () => {
    const box = document.createElement('div');
    document.body.append(box);
    const handle = satchel.mount(box, UUID);
    const { iframe } = frameOf(box);
    send(iframe, 'resize', { height: 612.4 });
    expect(iframe.style.height).toBe('613px');
    send(iframe, 'resize', { height: 'tall' });
    send(iframe, 'resize', { height: -5 });
    expect(iframe.style.height).toBe('613px');
    handle.unmount();
  });

  test('messages from another origin, frame or instance, or not in the format, are ignored', () => {
    const box = document.createElement('div');
    document.body.append(box);
    const onEvent = vi.fn();
    const handle = satchel.mount(box, UUID, { onEvent });
    const { iframe } = frameOf(box);
    send(iframe, 'paid', invoice('paid'), { origin: window.location.origin });
    send(iframe, 'paid', invoice('paid'), { origin: 'https://pay.example.evil.com' });
    send(iframe, 'paid', invoice('paid'), { instance: 'w-other' });
    send(iframe, 'paid', invoice('paid'), { tag: 'other' });
    send(iframe, 'paid', invoice('paid'), { data: 'paid' });
    send(iframe, 'paid', invoice('paid'), { data: { source: 'satchel', version: 2, instance: handle.instance, type: 'paid' } });
    window.dispatchEvent(new MessageEvent('message', { origin: GATEWAY, source: window, data: { source: 'satchel', version: 1, instance: handle.instance, type: 'paid', payload: {} } }));
    send(iframe, 'resize', { height: 99 }, { instance: 'w-other' });
    expect(onEvent).not.toHaveBeenCalled();
    expect(iframe.style.height).toBe('480px');
    handle.unmount();
  });

  test('a merchant callback that throws does not stop the events', () => {
    vi.useFakeTimers();
    const box = document.createElement('div');
    document.body.append(box);
    const dom = vi.fn();
    box.addEventListener('satchel:loaded', dom);
    const handle = satchel.mount(box, UUID, {
      onEvent: () => {
        throw new Error('merchant bug');
      },
    });
    send(frameOf(box).iframe, 'loaded', null);
    expect(dom).toHaveBeenCalledTimes(1);
    expect(() => vi.runOnlyPendingTimers()).toThrow('merchant bug'); // reported, not swallowed
    handle.unmount();
  });

  test('no answer from the page in 20 s is an error', () => {
    vi.useFakeTimers();
    const box = document.createElement('div');
    document.body.append(box);
    const onEvent = vi.fn();
    const handle = satchel.mount(box, UUID, { onEvent });
    vi.advanceTimersByTime(19_000);
    expect(onEvent).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1_000);
    expect(onEvent).toHaveBeenCalledWith(expect.objectContaining({ type: 'error', payload: expect.objectContaining({ code: 'timeout' }) }));
    handle.unmount();
  });
});

describe('wallet deep links', () => {
  test('opened from the top window; script-bearing schemes are not', () => {
    const box = document.createElement('div');
    document.body.append(box);
    const handle = satchel.mount(box, UUID);
    const opened: Array<{ href: string; target: string }> = [];
    const spy = (event: Event) => {
      const link = event.target as HTMLAnchorElement;
      opened.push({ href: link.getAttribute('href')!, target: link.target });
      event.preventDefault();
    };
    document.addEventListener('click', spy, true);
    const { iframe } = frameOf(box);
    send(iframe, 'open-wallet', { uri: 'tron:TVjsyZ7fYF3qLF6BQgPmTEZy1xrNNyVAAA?amount=1' });
    send(iframe, 'open-wallet', { uri: 'https://app.tonkeeper.com/transfer/x' });
    for (const uri of ['javascript:alert(1)', ' JAVASCRIPT:alert(1)', 'data:text/html,x', 'vbscript:x', 'no scheme', 42]) {
      send(iframe, 'open-wallet', { uri });
    }
    document.removeEventListener('click', spy, true);
    expect(opened).toEqual([
      { href: 'tron:TVjsyZ7fYF3qLF6BQgPmTEZy1xrNNyVAAA?amount=1', target: '' },
      { href: 'https://app.tonkeeper.com/transfer/x', target: '_blank' },
    ]);
    expect(document.querySelectorAll('a')).toHaveLength(0);
    handle.unmount();
  });
});

describe('modal', () => {
  function modal() {
    const root = document.querySelector('satchel-modal')?.shadowRoot;
    return { root, dialog: root?.querySelector('dialog') ?? null, iframe: root?.querySelector('iframe') ?? null };
  }

  test('opens over the page, locks scrolling, and closes on the page\'s request, returning focus', () => {
    const opener = document.createElement('button');
    document.body.append(opener);
    opener.focus();
    document.body.style.overflow = 'auto';
    const onEvent = vi.fn();
    const handle = satchel.open(UUID, { onEvent, title: 'Pay order 7' });
    const { dialog, iframe } = modal();
    expect(dialog?.open).toBe(true);
    expect(dialog?.getAttribute('aria-label')).toBe('Pay order 7');
    expect(new URL(iframe!.src).searchParams.get('embed')).toBe('modal');
    expect(document.documentElement.style.overflow).toBe('hidden');
    expect(document.body.style.overflow).toBe('hidden');
    send(iframe!, 'close-request', null);
    expect(document.querySelector('satchel-modal')).toBeNull();
    expect(document.body.style.overflow).toBe('auto');
    expect(document.documentElement.style.overflow).toBe('');
    expect(document.activeElement).toBe(opener);
    expect(onEvent).toHaveBeenLastCalledWith(expect.objectContaining({ type: 'closed', mode: 'modal', payload: { reason: 'user' }, instance: handle.instance }));
    document.body.style.overflow = '';
  });

  test('Esc (the dialog\'s cancel) closes; close() closes with reason "api"; one modal at a time', () => {
    const onEvent = vi.fn();
    satchel.open(UUID, { onEvent });
    modal().dialog!.dispatchEvent(new Event('cancel', { cancelable: true }));
    expect(document.querySelector('satchel-modal')).toBeNull();
    expect(onEvent).toHaveBeenLastCalledWith(expect.objectContaining({ type: 'closed', payload: { reason: 'user' } }));

    const first = vi.fn();
    satchel.open(UUID, { onEvent: first });
    const second = satchel.open(UUID);
    expect(document.querySelectorAll('satchel-modal')).toHaveLength(1);
    expect(first).toHaveBeenLastCalledWith(expect.objectContaining({ type: 'closed', payload: { reason: 'api' } }));
    second.close();
    expect(document.querySelector('satchel-modal')).toBeNull();
  });

  test('an inline frame ignores close requests; the loading close button goes once the page is there', () => {
    const box = document.createElement('div');
    document.body.append(box);
    const inline = satchel.mount(box, UUID);
    send(frameOf(box).iframe, 'close-request', null);
    expect(box.querySelector('iframe')).not.toBeNull();
    inline.unmount();

    satchel.open(UUID);
    const { dialog, iframe, root } = modal();
    const close = root!.querySelector('button')!;
    expect(root!.activeElement).toBe(close);
    send(iframe!, 'resize', { height: 700 });
    expect(dialog!.style.getPropertyValue('--h')).toBe('700px');
    send(iframe!, 'loaded', { kind: 'invoice', uuid: UUID });
    expect(dialog!.classList.contains('ok')).toBe(true);
    close.click();
    expect(document.querySelector('satchel-modal')).toBeNull();
  });
});

describe('declarative elements', () => {
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

  test('a click on [data-satchel-invoice] opens its modal; its events are dispatched on it', () => {
    document.body.innerHTML = `<form><button id="pay" data-satchel-invoice="${UUID}" data-satchel-theme="light"><span>Pay</span></button></form>`;
    const button = document.getElementById('pay')!;
    const events: string[] = [];
    button.addEventListener('satchel:loaded', (e) => events.push(e.detail.type));
    button.addEventListener('satchel:closed', (e) => events.push(e.detail.type));
    const click = new MouseEvent('click', { bubbles: true, cancelable: true });
    button.querySelector('span')!.dispatchEvent(click);
    expect(click.defaultPrevented).toBe(true); // the form is not submitted
    const iframe = document.querySelector('satchel-modal')!.shadowRoot!.querySelector('iframe')!;
    expect(new URL(iframe.src).searchParams.get('theme')).toBe('light');
    send(iframe, 'loaded', null);
    send(iframe, 'close-request', null);
    expect(events).toEqual(['loaded', 'closed']);
  });

  test('a bad declarative invoice reports an error on the element instead of throwing', () => {
    document.body.innerHTML = '<button id="pay" data-satchel-invoice="https://evil.example/pay/x">Pay</button>';
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const seen = vi.fn();
    document.getElementById('pay')!.addEventListener('satchel:error', (e) => seen(e.detail.payload.code));
    document.getElementById('pay')!.click();
    expect(seen).toHaveBeenCalledWith('bad_invoice');
    expect(document.querySelector('satchel-modal')).toBeNull();
    error.mockRestore();
  });

  test('inline elements are mounted by scan, remounted when changed, unmounted when removed', async () => {
    document.body.innerHTML = `<section><div id="a" data-satchel-invoice="${UUID}" data-satchel-mode="inline">Loading…</div></section>`;
    const a = document.getElementById('a')!;
    satchel.scan();
    const first = a.querySelector('iframe')!;
    expect(first).not.toBeNull();
    satchel.scan();
    expect(a.querySelector('iframe')).toBe(first); // not mounted twice

    a.setAttribute('data-satchel-lang', 'tr');
    satchel.scan();
    const second = a.querySelector('iframe')!;
    expect(second).not.toBe(first);
    expect(new URL(second.src).searchParams.get('lang')).toBe('tr');

    const closed = vi.fn();
    document.addEventListener('satchel:closed', closed, { once: true });
    a.remove();
    satchel.scan();
    await settle();
    expect(closed).toHaveBeenCalledTimes(1); // an element gone from the page: the event goes to the document
    send(second, 'paid', invoice('paid')); // no longer listened to
  });
});
