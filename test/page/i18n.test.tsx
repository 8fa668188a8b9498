// @vitest-environment jsdom
// Languages: ?lang=, then navigator.languages, a picker, lazily loaded strings, locale formatting.
import { afterEach, describe, expect, test, vi } from 'vitest';
import { fireEvent, screen, waitFor } from '@testing-library/preact';
import { pickLanguage, LANGUAGES } from '../../src/page/i18n/index.ts';
import { en } from '../../src/page/i18n/en.ts';
import '../../src/page/i18n/recurrence-english.ts';
import { decimalStyle, formatAmount, formatTime, KNOWN_STYLES, KNOWN_TIMES } from '../../src/page/format.ts';
import { formatDecimal } from '../../src/ui-kit/decimal.ts';
import { invoiceFixture, liveRegion, renderPage, resetPage, serve } from './helpers.tsx';

const loaded = vi.hoisted(() => [] as string[]);
vi.mock('../../src/page/i18n/tr.ts', async (importOriginal) => {
  loaded.push('tr');
  return importOriginal();
});

afterEach(() => {
  resetPage();
  Reflect.deleteProperty(navigator, 'languages');
});

function preferLanguages(languages: string[]) {
  Object.defineProperty(navigator, 'languages', { value: languages, configurable: true });
}

describe('choosing the language', () => {
  // First, before any other test imports Turkish.
  test('the picker switches language, loading its strings only when chosen', async () => {
    serve(invoiceFixture());
    renderPage('/pay/inv-1');
    await screen.findByRole('heading', { level: 1, name: 'Send the payment' });
    expect(loaded).toEqual([]);
    const picker = screen.getByRole('combobox', { name: 'Language' });
    fireEvent.change(picker, { target: { value: 'tr' } });
    expect(await screen.findByRole('heading', { level: 1, name: 'Ödemeyi gönderin' })).toBeTruthy();
    expect(loaded).toEqual(['tr']);
    expect(screen.getByRole('combobox', { name: 'Dil' })).toBeTruthy();
    expect(new URL(location.href).searchParams.get('lang')).toBe('tr');
    await waitFor(() => expect(document.documentElement.lang).toBe('tr-TR'));
  });
  test('?lang= first, then navigator.languages, then English', () => {
    expect(pickLanguage('ru', ['es-ES'])).toEqual({ lang: 'ru', locale: 'ru-RU' });
    expect(pickLanguage(null, ['sw-KE', 'pt-BR', 'en'])).toEqual({ lang: 'pt', locale: 'pt-BR' });
    expect(pickLanguage('xx', ['es-MX'])).toEqual({ lang: 'es', locale: 'es-MX' });
    expect(pickLanguage(null, ['sw', 'cs'])).toEqual({ lang: 'en', locale: 'en-US' });
    expect(pickLanguage(null, ['de-AT'])).toEqual({ lang: 'de', locale: 'de-AT' });
    expect(pickLanguage('zh-Hans-CN', [])).toEqual({ lang: 'zh', locale: 'zh-Hans-CN' });
    // The invoice's language (the merchant's default) comes after ?lang= and before the browser,
    // keeping the browser's region when it prefers the same language.
    expect(pickLanguage(null, ['es-MX', 'en'], 'de')).toEqual({ lang: 'de', locale: 'de-DE' });
    expect(pickLanguage(null, ['de-AT'], 'de')).toEqual({ lang: 'de', locale: 'de-AT' });
    expect(pickLanguage('ru', ['es-MX'], 'de')).toEqual({ lang: 'ru', locale: 'ru-RU' });
    expect(pickLanguage(null, ['es-MX'], null)).toEqual({ lang: 'es', locale: 'es-MX' });
  });

  test('at least 20 languages, Arabic and Persian among them, each with every string', async () => {
    const codes = LANGUAGES.map((l) => l.code);
    expect(codes.length).toBeGreaterThanOrEqual(20);
    expect(codes).toEqual(expect.arrayContaining(['en', 'ru', 'es', 'pt', 'tr', 'ar', 'fa']));
    for (const code of codes.filter((c) => c !== 'en')) {
      const messages = (await import(`../../src/page/i18n/${code}.ts`)).default as Record<string, string>;
      expect(Object.keys(messages).sort()).toEqual(Object.keys(en).sort());
      for (const [key, text] of Object.entries(messages)) {
        // A plural block counts as its variable; the words in its branches are translated.
        const placeholders = (s: string) =>
          [...new Set(s.replace(/\{(\w+), plural,(?:\s*=?\w+\s*\{[^{}]*\})+\s*\}/g, '{$1}').match(/\{\w+\}/g) ?? [])].sort();
        expect(placeholders(text), `${code}.${key}`).toEqual(placeholders(en[key as keyof typeof en]));
      }
    }
  });

  test('Arabic and Persian mirror the page; a switch back restores left to right', async () => {
    serve(invoiceFixture());
    renderPage('/pay/inv-1?lang=fa');
    expect(await screen.findByRole('heading', { level: 1, name: 'پرداخت را ارسال کنید' })).toBeTruthy();
    expect(document.documentElement.dir).toBe('rtl');
    expect(screen.getByRole('timer').textContent).toMatch(/^[۰-۹]{2}:[۰-۹]{2}$/); // Intl digits
    fireEvent.change(screen.getByRole('combobox', { name: 'زبان' }), { target: { value: 'ar' } });
    expect(await screen.findByRole('heading', { level: 1, name: 'أرسل الدفعة' })).toBeTruthy();
    expect(document.documentElement.dir).toBe('rtl');
    fireEvent.change(screen.getByRole('combobox', { name: 'اللغة' }), { target: { value: 'en' } });
    expect(await screen.findByRole('heading', { level: 1, name: 'Send the payment' })).toBeTruthy();
    expect(document.documentElement.dir).toBe('ltr');
  });

  test('the live region never keeps a message in the old language after a switch', async () => {
    serve(invoiceFixture());
    renderPage('/pay/inv-1');
    await screen.findByRole('heading', { level: 1, name: 'Send the payment' });
    fireEvent.click(screen.getByRole('button', { name: 'Copy address' }));
    await waitFor(() => expect(liveRegion().textContent).toMatch(/Copied|Could not copy/));
    fireEvent.change(screen.getByRole('combobox', { name: 'Language' }), { target: { value: 'es' } });
    expect(await screen.findByRole('heading', { level: 1, name: 'Envía el pago' })).toBeTruthy();
    expect(liveRegion().textContent).toBe('');
  });

  test('the page follows ?lang=', async () => {
    serve(invoiceFixture());
    renderPage('/pay/inv-1?lang=es');
    expect(await screen.findByRole('heading', { level: 1, name: 'Envía el pago' })).toBeTruthy();
    expect(screen.getByText('1250,378412 USDT')).toBeTruthy(); // Spanish leaves four digits ungrouped
    expect(document.documentElement.lang).toBe('es-ES');
  });

  test('the page follows navigator.languages', async () => {
    preferLanguages(['sw-KE', 'pt-BR']);
    serve(invoiceFixture());
    renderPage('/pay/inv-1');
    expect(await screen.findByRole('heading', { level: 1, name: 'Envie o pagamento' })).toBeTruthy();
  });

});

describe('amounts are formatted from the decimal string, never a JS number', () => {
  test('grouping and separators per locale', () => {
    expect(formatDecimal('1234567.891', decimalStyle('en-US'))).toBe('1,234,567.891');
    expect(formatDecimal('1234567.891', decimalStyle('ru-RU'))).toBe('1\u00a0234\u00a0567,891');
    expect(formatDecimal('1234567.891', decimalStyle('pt-BR'))).toBe('1.234.567,891');
    expect(formatDecimal('1234567.891', decimalStyle('tr-TR'))).toBe('1.234.567,891');
    expect(formatDecimal('1234.5', decimalStyle('es-ES'))).toBe('1234,5'); // Spanish groups from 5 digits
    expect(formatDecimal('12345.5', decimalStyle('es-ES'))).toBe('12.345,5');
    expect(formatDecimal('1234.5', decimalStyle('zh-CN'))).toBe('1,234.5');
  });

  test("the precomputed separators of the page's locales are what Intl says", () => {
    for (const [locale, style] of Object.entries(KNOWN_STYLES)) {
      const format = new Intl.NumberFormat(locale, { numberingSystem: 'latn' });
      const parts = format.formatToParts(12345.5);
      expect(style, locale).toEqual({
        group: parts.find((p) => p.type === 'group')?.value,
        decimal: parts.find((p) => p.type === 'decimal')?.value,
        minGrouping: format.formatToParts(1234).some((p) => p.type === 'group') ? 1 : 2,
      });
    }
    for (const { locale } of LANGUAGES) expect(KNOWN_STYLES[locale], locale).toBeDefined();
  });

  test("the precomputed times of day of the page's locales are what Intl says", () => {
    const pageLocales = new Set<string>(LANGUAGES.map((l) => l.locale));
    for (const locale of Object.keys(KNOWN_TIMES)) {
      expect(pageLocales.has(locale), locale).toBe(true);
      const intl = new Intl.DateTimeFormat(locale, { hour: 'numeric', minute: '2-digit' });
      for (const month of [0, 6]) {
        for (let hour = 0; hour < 24; hour++) {
          for (const minute of [0, 5, 59]) {
            const at = new Date(2026, month, 15, hour, minute).getTime();
            expect(formatTime(at, locale), `${locale} ${hour}:${minute}`).toBe(intl.format(at));
          }
        }
      }
    }
    // The others ask Intl: the same function, the same answer.
    const at = new Date(2026, 0, 15, 14, 5).getTime();
    for (const locale of ['ko-KR', 'hi-IN', 'ar', 'fa-IR', 'en-GB', 'de-AT']) {
      expect(formatTime(at, locale), locale).toBe(new Intl.DateTimeFormat(locale, { hour: 'numeric', minute: '2-digit' }).format(at));
    }
  });

  test('keeps every digit, even beyond double precision', () => {
    const amount = '123456789012345678.123456789012345678';
    expect(formatDecimal(amount, decimalStyle('en-US'))).toBe('123,456,789,012,345,678.123456789012345678');
    expect(formatAmount('0.000000000000000001', 'ETH', 'en-US')).toBe('0.000000000000000001 ETH');
    expect(formatAmount('15.00', 'USD', 'en-US')).toBe('15.00 USD');
    expect(formatDecimal('-1000', decimalStyle('en-US'))).toBe('-1,000');
  });

  test('crypto amounts drop trailing zeros; exact amounts keep them', () => {
    expect(formatAmount('0.371200000000000000', 'ETH', 'en-US', false)).toBe('0.3712 ETH');
    expect(formatAmount('100.000', 'USDT', 'en-US', false)).toBe('100 USDT');
    expect(formatAmount('1000.5000', 'USDT', 'de-DE', false)).toBe('1.000,5 USDT');
    expect(formatAmount('15.00', 'USD', 'en-US')).toBe('15.00 USD');
  });

  test('anything that is not a decimal is shown as it is', () => {
    expect(formatDecimal('1e5', decimalStyle('en-US'))).toBe('1e5');
    expect(formatDecimal('', decimalStyle('en-US'))).toBe('');
  });
});
