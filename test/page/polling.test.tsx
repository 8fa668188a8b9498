// @vitest-environment jsdom
// Status polling: fast while visible, slow while hidden, backing off on errors, ETag/304, stop when final.
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { screen } from '@testing-library/preact';
import { createPoller } from '../../src/page/poller.ts';
import type { LoadResult } from '../../src/page/api.ts';
import { fakeServer, invoiceFixture, ok, renderPage, resetPage, type Reply } from './helpers.tsx';

function fakeDocument() {
  let state: DocumentVisibilityState = 'visible';
  const target = new EventTarget();
  return {
    get visibilityState() {
      return state;
    },
    set(next: DocumentVisibilityState) {
      state = next;
      target.dispatchEvent(new Event('visibilitychange'));
    },
    addEventListener: target.addEventListener.bind(target),
    removeEventListener: target.removeEventListener.bind(target),
  };
}

type Data = { n: number; final: boolean };

function setup(answers: Array<LoadResult<Data> | Error>) {
  const doc = fakeDocument();
  const loads: Array<{ at: number; etag: string | null }> = [];
  const seen: Data[] = [];
  const errors: number[] = [];
  let recovered = 0;
  const start = Date.now();
  const poller = createPoller<Data>({
    async load(etag) {
      loads.push({ at: Date.now() - start, etag });
      const answer = answers.shift() ?? { changed: false };
      if (answer instanceof Error) throw answer;
      return answer;
    },
    onData: (d) => seen.push(d),
    onError: (n) => errors.push(n),
    onRecovered: () => recovered++,
    isFatal: (e) => e instanceof Error && e.message === 'fatal',
    isFinal: (d) => d.final,
    doc: doc as unknown as Document,
  });
  return { doc, loads, seen, errors, poller, recovered: () => recovered };
}

const data = (n: number, final = false, etag = `"${n}"`): LoadResult<Data> => ({ changed: true, data: { n, final }, etag });

describe('createPoller', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  test('every 3 s while visible, sending the last ETag; 304 means unchanged', async () => {
    const { loads, seen, poller } = setup([data(1), { changed: false }, data(2)]);
    poller.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(loads).toEqual([{ at: 0, etag: null }]);
    await vi.advanceTimersByTimeAsync(2999);
    expect(loads).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(loads[1]).toEqual({ at: 3000, etag: '"1"' });
    expect(seen).toEqual([{ n: 1, final: false }]); // the 304 changed nothing
    await vi.advanceTimersByTimeAsync(3000);
    expect(loads[2]).toEqual({ at: 6000, etag: '"1"' });
    expect(seen.map((d) => d.n)).toEqual([1, 2]);
    await vi.advanceTimersByTimeAsync(3000);
    expect(loads[3]?.etag).toBe('"2"');
    poller.stop();
  });

  test('every 15 s while hidden, and at once when the page is shown again', async () => {
    const { doc, loads, poller } = setup([data(1)]);
    poller.start();
    await vi.advanceTimersByTimeAsync(0);
    doc.set('hidden');
    await vi.advanceTimersByTimeAsync(3000); // the poll already scheduled still runs
    expect(loads.map((l) => l.at)).toEqual([0, 3000]);
    await vi.advanceTimersByTimeAsync(14_999);
    expect(loads).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(loads.map((l) => l.at)).toEqual([0, 3000, 18_000]);
    await vi.advanceTimersByTimeAsync(5000);
    doc.set('visible');
    await vi.advanceTimersByTimeAsync(0);
    expect(loads.map((l) => l.at)).toEqual([0, 3000, 18_000, 23_000]);
    await vi.advanceTimersByTimeAsync(3000);
    expect(loads.at(-1)?.at).toBe(26_000);
    poller.stop();
  });

  test('backs off on errors (6, 12, 24, 30, 30 s) and recovers', async () => {
    const failure = new Error('offline');
    const { loads, errors, poller, recovered } = setup([data(1), failure, failure, failure, failure, failure, failure, data(2)]);
    poller.start();
    await vi.advanceTimersByTimeAsync(0);
    await vi.advanceTimersByTimeAsync(3000); // first failure
    expect(errors).toEqual([1]);
    for (const wait of [6000, 12_000, 24_000, 30_000, 30_000]) {
      const before = loads.length;
      await vi.advanceTimersByTimeAsync(wait - 1);
      expect(loads).toHaveLength(before);
      await vi.advanceTimersByTimeAsync(1);
      expect(loads).toHaveLength(before + 1);
    }
    expect(errors).toEqual([1, 2, 3, 4, 5, 6]);
    await vi.advanceTimersByTimeAsync(30_000); // succeeds
    expect(recovered()).toBe(1);
    const at = loads.length;
    await vi.advanceTimersByTimeAsync(3000); // back to the normal pace
    expect(loads).toHaveLength(at + 1);
    poller.stop();
  });

  test('stops once the data is final', async () => {
    const { loads, poller } = setup([data(1), data(2, true)]);
    poller.start();
    await vi.advanceTimersByTimeAsync(0);
    await vi.advanceTimersByTimeAsync(3000);
    expect(loads).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(loads).toHaveLength(2);
  });

  test('settled but still changeable (dormant): every 30 s while visible, none while hidden, at once when shown', async () => {
    const doc = fakeDocument();
    const loads: number[] = [];
    const answers: Array<LoadResult<Data>> = [data(1), data(2, true), { changed: false }, { changed: false }, data(3, true)];
    const start = Date.now();
    const seen: number[] = [];
    const poller = createPoller<Data>({
      async load() {
        loads.push(Date.now() - start);
        return answers.shift() ?? { changed: false };
      },
      onData: (d) => seen.push(d.n),
      onError: () => {},
      onRecovered: () => {},
      isFatal: () => false,
      isFinal: (d) => d.n === 3,
      isDormant: (d) => d.final && d.n === 2, // e.g. expired: a late payment may still arrive
      doc: doc as unknown as Document,
    });
    poller.start();
    await vi.advanceTimersByTimeAsync(3000); // 0: process, 3000: expired
    expect(loads).toEqual([0, 3000]);
    await vi.advanceTimersByTimeAsync(29_999);
    expect(loads).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(loads).toEqual([0, 3000, 33_000]);
    doc.set('hidden');
    await vi.advanceTimersByTimeAsync(120_000);
    expect(loads).toHaveLength(3); // nobody is looking
    doc.set('visible');
    await vi.advanceTimersByTimeAsync(0);
    expect(loads).toEqual([0, 3000, 33_000, 153_000]);
    await vi.advanceTimersByTimeAsync(30_000); // paid late: final, stops
    expect(seen).toEqual([1, 2, 3]);
    await vi.advanceTimersByTimeAsync(600_000);
    expect(loads).toHaveLength(5);
  });

  test('dormant: a failure while hidden does not leave it stuck once shown again', async () => {
    const doc = fakeDocument();
    const answers: Array<LoadResult<Data> | Error> = [data(1, true), new Error('offline'), data(2, true)];
    const at: number[] = [];
    const start = Date.now();
    const dormant = createPoller<Data>({
      async load() {
        at.push(Date.now() - start);
        const answer = answers.shift() ?? { changed: false };
        if (answer instanceof Error) throw answer;
        return answer;
      },
      onData: () => {},
      onError: () => {},
      onRecovered: () => {},
      isFatal: () => false,
      isFinal: () => false,
      isDormant: (d) => d.final,
      doc: doc as unknown as Document,
    });
    dormant.start();
    await vi.advanceTimersByTimeAsync(30_000); // 0: dormant, 30 s: fails
    expect(at).toEqual([0, 30_000]);
    doc.set('hidden');
    await vi.advanceTimersByTimeAsync(300_000);
    expect(at).toHaveLength(2);
    doc.set('visible');
    await vi.advanceTimersByTimeAsync(0);
    expect(at).toEqual([0, 30_000, 330_000]);
    dormant.stop();
  });

  test('stops on a fatal error (e.g. 404)', async () => {
    const { loads, errors, poller } = setup([new Error('fatal')]);
    poller.start();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(loads).toHaveLength(1);
    expect(errors).toEqual([1]);
  });

  test('reset() discards an answer already in flight and keeps the new ETag', async () => {
    const doc = fakeDocument();
    const seen: number[] = [];
    const etags: Array<string | null> = [];
    let release: (v: LoadResult<Data>) => void = () => {};
    let call = 0;
    const poller = createPoller<Data>({
      load(etag) {
        etags.push(etag);
        call++;
        if (call === 1) return new Promise((resolve) => (release = resolve));
        return Promise.resolve({ changed: false });
      },
      onData: (d) => seen.push(d.n),
      onError: () => {},
      onRecovered: () => {},
      isFatal: () => false,
      isFinal: () => false,
      doc: doc as unknown as Document,
    });
    poller.start();
    await vi.advanceTimersByTimeAsync(0);
    poller.reset('"chosen"', false);
    release(data(1));
    await vi.advanceTimersByTimeAsync(3000);
    expect(seen).toEqual([]);
    expect(etags).toEqual([null, '"chosen"']);
    poller.stop();
  });
});

describe('polling in the page', () => {
  afterEach(resetPage);

  test('If-None-Match with the last ETag, 304 keeps the screen, status changes show up', async () => {
    vi.useFakeTimers();
    const replies: Reply[] = [
      ok(invoiceFixture(), '"v1"'),
      { status: 304 },
      ok(invoiceFixture({ status: 'check', confirmations: { current: 1, required: 3 } }), '"v2"'),
    ];
    const calls = fakeServer(() => replies.shift() ?? { status: 304 });
    renderPage('/pay/inv-1');
    await vi.advanceTimersByTimeAsync(0);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Send the payment');
    expect(calls[0]?.headers.get('if-none-match')).toBeNull();
    await vi.advanceTimersByTimeAsync(3000);
    expect(calls[1]?.headers.get('if-none-match')).toBe('"v1"');
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Send the payment');
    await vi.advanceTimersByTimeAsync(3000);
    expect(calls[2]?.headers.get('if-none-match')).toBe('"v1"');
    // The confirming screen is a lazily loaded chunk: let effects run and the import settle.
    await vi.waitFor(() => expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Payment detected'));
    // and the change is announced politely
    expect(document.querySelector('[aria-live="polite"]')?.textContent).toBe('Payment detected');
  });

  test('network errors show "Reconnecting…" until the server answers again', async () => {
    vi.useFakeTimers();
    let down = false;
    const calls = fakeServer(() => (down ? new TypeError('Failed to fetch') : ok(invoiceFixture(), '"v1"')));
    renderPage('/pay/inv-1');
    await vi.advanceTimersByTimeAsync(0);
    expect(screen.queryByText('Reconnecting…', { selector: 'p' })).toBeNull();
    down = true;
    await vi.advanceTimersByTimeAsync(3000);
    expect(screen.getByText('Reconnecting…', { selector: 'p' })).toBeTruthy();
    expect(document.querySelector('[aria-live="polite"]')?.textContent).toBe('Reconnecting…');
    expect(calls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(5999); // backed off: 6 s, not 3 s
    expect(calls).toHaveLength(2);
    down = false;
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(3);
    expect(screen.queryByText('Reconnecting…', { selector: 'p' })).toBeNull();
  });

  test('a first load that fails says so and keeps trying', async () => {
    vi.useFakeTimers();
    const calls = fakeServer(() => ({ status: 503, body: { state: 1, message: 'busy' } }));
    renderPage('/pay/inv-1');
    await vi.advanceTimersByTimeAsync(0);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Could not load this payment');
    expect(screen.getByText('Reconnecting…', { selector: 'p' })).toBeTruthy();
    await vi.advanceTimersByTimeAsync(6000);
    expect(calls).toHaveLength(2);
  });

  test('stops polling once is_final is true', async () => {
    vi.useFakeTimers();
    const calls = fakeServer(() => ok(invoiceFixture({ status: 'paid', is_final: true, payment_amount: '1' }), '"v9"'));
    renderPage('/pay/inv-1');
    await vi.advanceTimersByTimeAsync(0);
    await vi.advanceTimersByTimeAsync(600_000);
    expect(calls).toHaveLength(1);
  });

  test('an expired invoice keeps being checked every 30 s, and a late payment shows', async () => {
    vi.useFakeTimers();
    let status: 'cancel' | 'paid' = 'cancel';
    const calls = fakeServer((call) =>
      call.headers.get('if-none-match') === `"${status}"`
        ? { status: 304 }
        : ok(invoiceFixture({ status, is_final: true, payment_amount: status === 'paid' ? '1250.378412' : null }), `"${status}"`),
    );
    renderPage('/pay/inv-1');
    await vi.advanceTimersByTimeAsync(0);
    await vi.waitFor(() => expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('This payment has expired'));
    await vi.advanceTimersByTimeAsync(29_000);
    expect(calls).toHaveLength(1);
    status = 'paid';
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toHaveLength(2);
    await vi.waitFor(() => expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Payment received'));
    await vi.advanceTimersByTimeAsync(600_000);
    expect(calls).toHaveLength(2);
  });

  test('slower while the tab is hidden', async () => {
    vi.useFakeTimers();
    const calls = fakeServer(() => ok(invoiceFixture(), '"v1"'));
    const visibility = vi.spyOn(document, 'visibilityState', 'get').mockReturnValue('hidden');
    renderPage('/pay/inv-1');
    await vi.advanceTimersByTimeAsync(0);
    await vi.advanceTimersByTimeAsync(14_999);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(2);
    visibility.mockReturnValue('visible');
    document.dispatchEvent(new Event('visibilitychange'));
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toHaveLength(3);
  });
});
