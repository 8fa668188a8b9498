// @vitest-environment jsdom
// The countdown runs on the server's clock (server_time + monotonic time since), never the device's.
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { screen } from '@testing-library/preact';
import { createServerClock, secondsLeft } from '../../src/page/clock.ts';
import { ASCII_DIGIT_LOCALES, formatDuration } from '../../src/page/format.ts';
import { LANGUAGES } from '../../src/page/i18n/index.ts';
import { T0, invoiceFixture, liveRegion, renderPage, resetPage, serve } from './helpers.tsx';

describe('server clock', () => {
  test('now = server_time + monotonic time elapsed since it arrived', () => {
    let mono = 5_000;
    const clock = createServerClock(() => mono);
    expect(clock.now()).toBeNull();
    clock.sync(T0);
    mono += 1_500;
    expect(clock.now()).toBe(T0 + 1_500);
    clock.sync(T0 + 10_000);
    expect(clock.now()).toBe(T0 + 10_000);
  });

  test('seconds left and their display', () => {
    expect(secondsLeft(T0 / 1000 + 600, T0)).toBe(600);
    expect(secondsLeft(T0 / 1000 + 600, T0 + 400)).toBe(600);
    expect(secondsLeft(T0 / 1000 + 600, T0 + 1000)).toBe(599);
    expect(secondsLeft(T0 / 1000, T0 + 5000)).toBe(0);
    expect(formatDuration(600, 'en-US')).toBe('10:00');
    expect(formatDuration(59, 'en-US')).toBe('00:59');
    expect(formatDuration(3723, 'en-US')).toBe('1:02:03');
    // Intl digits of the language: Persian counts down in Persian digits.
    expect(formatDuration(3723, 'fa-IR')).toBe('۱:۰۲:۰۳');
  });

  test("the page's ASCII-digit locales count down without Intl exactly as Intl would", () => {
    const intl = (seconds: number, locale: string) => {
      const n = (value: number, digits: number) => new Intl.NumberFormat(locale, { minimumIntegerDigits: digits, useGrouping: false }).format(value);
      const h = Math.floor(seconds / 3600);
      const rest = `${n(Math.floor((seconds % 3600) / 60), 2)}:${n(seconds % 60, 2)}`;
      return h > 0 ? `${n(h, 1)}:${rest}` : rest;
    };
    for (const locale of ASCII_DIGIT_LOCALES) {
      for (const seconds of [0, 9, 59, 600, 3599, 3723, 36_000, 360_000]) expect(formatDuration(seconds, locale), locale).toBe(intl(seconds, locale));
    }
    // Every page language but Arabic and Persian (whose digits depend on the browser's ICU).
    expect(LANGUAGES.filter(({ locale }) => !ASCII_DIGIT_LOCALES.has(locale)).map(({ code }) => code)).toEqual(['ar', 'fa']);
  });
});

describe('countdown on the pay screen', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    // The device clock is off by years: the countdown must not care.
    vi.setSystemTime(new Date('2001-02-03T04:05:06Z'));
  });
  afterEach(resetPage);

  test('counts down from expired_at by the server clock, in a labelled role="timer"', async () => {
    serve(invoiceFixture({ expired_at: T0 / 1000 + 600, server_time: T0 }));
    renderPage('/pay/inv-1');
    await vi.advanceTimersByTimeAsync(0);
    const timer = screen.getByRole('timer', { name: 'Time left' });
    expect(timer.textContent).toBe('10:00');
    await vi.advanceTimersByTimeAsync(1000);
    expect(timer.textContent).toBe('09:59');
    // Moving the device clock changes nothing: only monotonic time counts.
    vi.setSystemTime(new Date('2040-01-01T00:00:00Z'));
    await vi.advanceTimersByTimeAsync(60_010); // ticks land just after each server second
    expect(screen.getByRole('timer').textContent).toBe('08:59');
  });

  test('announces 5 minutes and 1 minute left in the polite live region', async () => {
    serve(invoiceFixture({ expired_at: T0 / 1000 + 302, server_time: T0 }));
    renderPage('/pay/inv-1');
    await vi.advanceTimersByTimeAsync(0);
    expect(liveRegion().textContent).toBe('');
    await vi.advanceTimersByTimeAsync(2_010);
    expect(liveRegion().textContent).toBe('Five minutes left to pay.');
    await vi.advanceTimersByTimeAsync(238_000);
    expect(screen.getByRole('timer').textContent).toBe('01:02');
    expect(liveRegion().textContent).toBe('Five minutes left to pay.');
    await vi.advanceTimersByTimeAsync(2_000);
    expect(liveRegion().textContent).toBe('One minute left to pay.');
    expect(liveRegion().getAttribute('aria-live')).toBe('polite');
  });

  test('when time is up the address is withdrawn', async () => {
    serve(invoiceFixture({ expired_at: T0 / 1000 + 3, server_time: T0 }));
    renderPage('/pay/inv-1');
    await vi.advanceTimersByTimeAsync(0);
    expect(screen.getByText('TVjsyZ7fYF3qLF6BQgPmTEZy1xrNNyVAAA')).toBeTruthy();
    await vi.advanceTimersByTimeAsync(3_100);
    await vi.waitFor(() => expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Time is up'));
    expect(screen.queryByText('TVjsyZ7fYF3qLF6BQgPmTEZy1xrNNyVAAA')).toBeNull();
  });

  test('a later response re-syncs the clock', async () => {
    let serverTime = T0;
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        const body = { state: 0, result: invoiceFixture({ expired_at: T0 / 1000 + 600, server_time: serverTime }) };
        serverTime += 60_000; // the server says a minute more has passed on each answer
        return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
      }),
    );
    renderPage('/pay/inv-1');
    await vi.advanceTimersByTimeAsync(0);
    expect(screen.getByRole('timer').textContent).toBe('10:00');
    await vi.advanceTimersByTimeAsync(3000);
    expect(screen.getByRole('timer').textContent).toBe('09:00');
  });
});
