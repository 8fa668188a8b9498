// @vitest-environment jsdom
// Messages between the page and the widget that embeds it.
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/preact';
import { createEmbed, readEmbedConfig, type EmbedConfig } from '../../src/page/embed.ts';
import { fakeServer, invoiceFixture, ok, renderPage, resetPage, serve } from './helpers.tsx';

const ORIGIN = 'https://shop.example';
const config: EmbedConfig = { mode: 'modal', instance: 'w1', origin: ORIGIN };

describe('readEmbedConfig', () => {
  test('reads mode, instance and an exact origin', () => {
    expect(readEmbedConfig(`?embed=inline&instance=w1&origin=${encodeURIComponent(ORIGIN)}`)).toEqual({
      mode: 'inline',
      instance: 'w1',
      origin: ORIGIN,
    });
    expect(readEmbedConfig('?embed=modal&instance=abc-123&origin=http://localhost:8080')?.origin).toBe('http://localhost:8080');
  });

  test.each([
    ['no embed', ''],
    ['unknown mode', '?embed=popup&instance=w1&origin=https://shop.example'],
    ['no instance', '?embed=modal&origin=https://shop.example'],
    ['instance with odd characters', '?embed=modal&instance=<x>&origin=https://shop.example'],
    ['no origin', '?embed=modal&instance=w1'],
    ['a wildcard', '?embed=modal&instance=w1&origin=*'],
    ['a path, not an origin', '?embed=modal&instance=w1&origin=https://shop.example/cart'],
    ['a javascript: URL', '?embed=modal&instance=w1&origin=javascript:alert(1)'],
    ['an opaque origin', '?embed=modal&instance=w1&origin=null'],
  ])('%s: standalone', (_, search) => {
    expect(readEmbedConfig(search)).toBeNull();
  });
});

function fakeWindow() {
  const parent = { postMessage: vi.fn() };
  const target = new EventTarget();
  const win = {
    parent,
    addEventListener: target.addEventListener.bind(target),
    removeEventListener: target.removeEventListener.bind(target),
    dispatch: (init: MessageEventInit) => target.dispatchEvent(new MessageEvent('message', init)),
  };
  return win;
}

describe('createEmbed', () => {
  test('posts {source, version, instance, type, payload} to the exact origin, never "*"', () => {
    const win = fakeWindow();
    const embed = createEmbed(config, win as unknown as Window);
    embed.post('paid', { uuid: 'x' });
    expect(win.parent.postMessage).toHaveBeenCalledWith(
      { source: 'satchel', version: 1, instance: 'w1', type: 'paid', payload: { uuid: 'x' } },
      ORIGIN,
    );
  });

  test('accepts only messages from that origin and instance', () => {
    const win = fakeWindow();
    const embed = createEmbed(config, win as unknown as Window);
    const seen = vi.fn();
    const stop = embed.listen(seen);
    const data = { source: 'satchel', version: 1, instance: 'w1', type: 'theme', payload: { theme: 'dark' } };
    win.dispatch({ origin: 'https://evil.example', data });
    win.dispatch({ origin: 'https://shop.example.evil.com', data });
    win.dispatch({ origin: ORIGIN, data: { ...data, instance: 'w2' } });
    win.dispatch({ origin: ORIGIN, data: { ...data, source: 'other' } });
    win.dispatch({ origin: ORIGIN, data: 'theme' });
    expect(seen).not.toHaveBeenCalled();
    win.dispatch({ origin: ORIGIN, data });
    expect(seen).toHaveBeenCalledWith({ type: 'theme', payload: { theme: 'dark' } });
    stop();
    win.dispatch({ origin: ORIGIN, data });
    expect(seen).toHaveBeenCalledTimes(1);
  });

  test('reports height changes through ResizeObserver, once per change', () => {
    const win = fakeWindow();
    let callback: () => void = () => {};
    class FakeResizeObserver {
      constructor(cb: () => void) {
        callback = cb;
      }
      observe() {}
      disconnect() {}
    }
    Object.assign(win, { ResizeObserver: FakeResizeObserver });
    const embed = createEmbed(config, win as unknown as Window);
    let height = 640.2;
    const element = { getBoundingClientRect: () => ({ height }) } as Element;
    embed.observeHeight(element);
    callback();
    callback();
    height = 700;
    callback();
    const resizes = win.parent.postMessage.mock.calls.filter(([m]) => m.type === 'resize').map(([m]) => m.payload);
    expect(resizes).toEqual([{ height: 641 }, { height: 700 }]);
  });

  test('standalone (no parent frame): posts nothing', () => {
    const win = fakeWindow();
    (win as { parent: unknown }).parent = win;
    const embed = createEmbed(config, win as unknown as Window);
    expect(() => embed.post('loaded')).not.toThrow();
  });
});

describe('the page inside the widget', () => {
  const parent = { postMessage: vi.fn() };
  const originalParent = window.parent;
  const embedQuery = (mode: string) => `?embed=${mode}&instance=w1&origin=${encodeURIComponent(ORIGIN)}`;
  const sent = () => parent.postMessage.mock.calls.map(([message, origin]) => ({ ...message, origin }));
  const types = () => sent().map((m) => m.type).filter((type) => type !== 'resize');

  beforeEach(() => {
    parent.postMessage.mockReset();
    Object.defineProperty(window, 'parent', { value: parent, configurable: true, writable: true });
  });
  afterEach(() => {
    Object.defineProperty(window, 'parent', { value: originalParent, configurable: true, writable: true });
    resetPage();
  });

  test('loaded, status, then paid, all to the exact origin', async () => {
    let paid = false;
    fakeServer(() =>
      ok(paid ? invoiceFixture({ status: 'paid', is_final: true, payment_amount: '1250.378412' }) : invoiceFixture(), paid ? '"2"' : '"1"'),
    );
    renderPage(`/pay/inv-1${embedQuery('inline')}`);
    await screen.findByRole('heading', { level: 1, name: 'Send the payment' });
    await waitFor(() => expect(types()).toEqual(expect.arrayContaining(['loaded', 'status'])));
    expect(sent().every((m) => m.origin === ORIGIN && m.source === 'satchel' && m.version === 1 && m.instance === 'w1')).toBe(true);
    const status = sent().find((m) => m.type === 'status');
    expect(status?.payload).toMatchObject({ kind: 'invoice', uuid: 'inv-1', status: 'process', address: 'TVjsyZ7fYF3qLF6BQgPmTEZy1xrNNyVAAA' });
    paid = true;
    await waitFor(() => expect(types()).toContain('paid'), { timeout: 5000 });
    expect(sent().find((m) => m.type === 'paid')?.payload).toMatchObject({ status: 'paid' });
  });

  test('expired on cancel; error on an unknown invoice', async () => {
    serve(invoiceFixture({ status: 'cancel', is_final: true }));
    renderPage(`/pay/inv-1${embedQuery('inline')}`);
    await waitFor(() => expect(types()).toContain('expired'));
    resetPage();
    Object.defineProperty(window, 'parent', { value: parent, configurable: true, writable: true });
    parent.postMessage.mockReset();
    fakeServer(() => ({ status: 404, body: { state: 1, message: 'Not found' } }));
    renderPage(`/pay/nope${embedQuery('inline')}`);
    await waitFor(() => expect(types()).toEqual(['loaded', 'error']));
    expect(sent().find((m) => m.type === 'error')?.payload).toMatchObject({ code: 'not_found' });
  });

  test('"Open in wallet" asks the parent to open the deep link instead of navigating', async () => {
    serve(invoiceFixture());
    renderPage(`/pay/inv-1${embedQuery('inline')}`);
    const link = await screen.findByRole('link', { name: 'Open in wallet' });
    const click = new MouseEvent('click', { bubbles: true, cancelable: true });
    link.dispatchEvent(click);
    expect(click.defaultPrevented).toBe(true);
    await waitFor(() => expect(types()).toContain('open-wallet'));
    expect(sent().find((m) => m.type === 'open-wallet')?.payload).toEqual({
      uri: 'tron:TVjsyZ7fYF3qLF6BQgPmTEZy1xrNNyVAAA?amount=1250.378412',
    });
  });

  test('a close button only in modal mode, asking the parent to close', async () => {
    serve(invoiceFixture());
    renderPage(`/pay/inv-1${embedQuery('inline')}`);
    await screen.findByRole('heading', { level: 1, name: 'Send the payment' });
    expect(screen.queryByRole('button', { name: 'Close' })).toBeNull();
    resetPage();
    Object.defineProperty(window, 'parent', { value: parent, configurable: true, writable: true });
    serve(invoiceFixture());
    renderPage(`/pay/inv-1${embedQuery('modal')}`);
    fireEvent.click(await screen.findByRole('button', { name: 'Close' }));
    // posted at once, or as soon as the messaging module has loaded
    await waitFor(() => expect(types()).toContain('close-request'));
  });

  test('the parent may set the theme; messages from elsewhere are ignored', async () => {
    serve(invoiceFixture({ theme: 'light' }));
    renderPage(`/pay/inv-1${embedQuery('inline')}`);
    await screen.findByRole('heading', { level: 1, name: 'Send the payment' });
    const data = { source: 'satchel', version: 1, instance: 'w1', type: 'theme', payload: { theme: 'dark' } };
    window.dispatchEvent(new MessageEvent('message', { origin: 'https://evil.example', data }));
    window.dispatchEvent(new MessageEvent('message', { origin: ORIGIN, data: { ...data, instance: 'other' } }));
    expect(document.documentElement.dataset.theme).toBe('light');
    window.dispatchEvent(new MessageEvent('message', { origin: ORIGIN, data }));
    await waitFor(() => expect(document.documentElement.dataset.theme).toBe('dark'));
  });

  test('standalone pages post nothing, and links open normally', async () => {
    serve(invoiceFixture());
    renderPage('/pay/inv-1');
    const link = await screen.findByRole('link', { name: 'Open in wallet' });
    const click = new MouseEvent('click', { bubbles: true, cancelable: true });
    link.dispatchEvent(click);
    expect(parent.postMessage).not.toHaveBeenCalled();
  });
});
