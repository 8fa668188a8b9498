// @vitest-environment jsdom
// The dashboard in the shop owner's words and language: a status as its label with what it means
// on hover and focus and the raw code alongside; an audit entry as a sentence with the raw data in
// a disclosure; switching language loads that language's chunk only, mirrors the page for Arabic
// and Persian, and is saved for the user; times carry their zone, amounts keep every digit.
import { afterEach, describe, expect, test, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/preact';
import { signal } from '@preact/signals';
import { Badge } from '../../src/dashboard-ui/ui.tsx';
import { AuditRaw, AuditWhat } from '../../src/dashboard-ui/audit-sentence.tsx';
import { amount, time } from '../../src/dashboard-ui/format.ts';
import { browserLanguage, lang, locale, setLanguage, t } from '../../src/dashboard-ui/i18n/index.ts';
import { LanguagePicker } from '../../src/dashboard-ui/language-picker.tsx';
import { StoreContext, type Store } from '../../src/dashboard-ui/store.ts';
import { InvoiceTable } from '../../src/dashboard-ui/invoice-table.tsx';
import type { AuditEntry, Me } from '../../src/contracts/dashboard/auth.ts';

afterEach(async () => {
  cleanup();
  await setLanguage('en');
});

const entry = (over: Partial<AuditEntry>): AuditEntry => ({ id: '1', at: Date.UTC(2026, 10, 27, 11), email: 'ana@shop.example', action: 'sign_in', target: null, detail: null, ip: '10.0.0.1', ...over });

describe('status labels', () => {
  test('a code shows as its label, with what it means and the raw code on hover and focus', () => {
    render(<Badge value="paid_over" kind="invoice" />);
    const badge = screen.getByText('Paid more than due').parentElement!;
    expect(badge.getAttribute('title')).toBe('The customer sent more than the amount due; all of it is credited to you. (Code: paid_over)');
    expect(badge.dataset.hint).toBe(badge.getAttribute('title'));
    expect(badge.dataset.code).toBe('paid_over');
    expect(badge.tabIndex).toBe(0);
    expect(badge.textContent).toContain('Code: paid_over'); // read out by screen readers too
    expect(badge.textContent).not.toContain('paid over');
  });

  test('the same code reads by what it describes: an invoice waits, a payout is being prepared', () => {
    render(
      <>
        <Badge value="process" kind="invoice" />
        <Badge value="process" kind="payout" />
        <Badge value="in_active" kind="wallet" />
      </>,
    );
    expect(screen.getByText('Waiting for payment')).toBeTruthy();
    expect(screen.getByText('Preparing to send')).toBeTruthy();
    expect(screen.getByText('Inactive')).toBeTruthy();
  });

  test('a code the dashboard does not know shows as itself, explained as unknown, never blank', () => {
    render(<Badge value="quantum_state" kind="invoice" />);
    const badge = screen.getByText('quantum_state').parentElement!;
    expect(badge.getAttribute('title')).toBe('A status this dashboard does not know yet. (Code: quantum_state)');
  });
});

describe('audit log', () => {
  test('an entry is a sentence; its raw data is behind a disclosure', () => {
    const e = entry({ action: 'profile_update', detail: { display_name: 'Newcomer Mugs' } });
    const { container } = render(
      <>
        <AuditWhat entry={e} />
        <AuditRaw entry={e} />
      </>,
    );
    expect(container.textContent).toContain('ana@shop.example changed the public name to Newcomer Mugs');
    const details = container.querySelector('details')!;
    expect(details.open).toBe(false);
    expect(details.querySelector('summary')!.textContent).toBe('Details');
    expect(JSON.parse(details.querySelector('pre')!.textContent!)).toEqual({ action: 'profile_update', target: null, detail: { display_name: 'Newcomer Mugs' }, ip: '10.0.0.1' });
  });

  test('several profile fields make several sentences; amounts keep every digit', () => {
    render(<AuditWhat entry={entry({ action: 'profile_update', detail: { accent: '#112233', language: 'ar', display_name: null } })} />);
    expect(screen.getByText('ana@shop.example removed the public name. ana@shop.example changed the accent colour to #112233. ana@shop.example changed the payment page language to العربية')).toBeTruthy();
    cleanup();
    render(<AuditWhat entry={entry({ action: 'payout_create', target: 'w-1', detail: { amount: '12345.000000000000000001', currency: 'ETH', address: '0xabc' } })} />);
    expect(screen.getByText('ana@shop.example sent a payout of 12,345.000000000000000001 ETH to 0xabc (order w-1)')).toBeTruthy();
  });

  test('an action the dashboard does not know: a neutral sentence naming it, the data still there', () => {
    const e = entry({ action: 'teleport_funds', detail: { to: 'mars' } });
    const { container } = render(
      <>
        <AuditWhat entry={e} />
        <AuditRaw entry={e} />
      </>,
    );
    expect(container.textContent).toContain('ana@shop.example made a change (teleport_funds)');
    expect(container.querySelector('pre')!.textContent).toContain('"to": "mars"');
  });

  test('a change made with the satchel command is said to be the server operator’s', () => {
    render(<AuditWhat entry={entry({ email: 'cli', action: 'user_create', target: 'bo@shop.example', detail: { role: 'viewer' } })} />);
    expect(screen.getByText('An operator on the server added bo@shop.example as Viewer')).toBeTruthy();
  });
});

describe('languages', () => {
  test('the browser’s first language the dashboard speaks, else English', () => {
    expect(browserLanguage(['xx-YY', 'pt-PT', 'en'])).toBe('pt');
    expect(browserLanguage(['tlh'])).toBe('en');
    expect(browserLanguage([])).toBe('en');
  });

  test('switching to Arabic loads its chunk, mirrors the page and translates labels and sentences', async () => {
    render(<Badge value="wrong_amount" kind="invoice" />);
    expect(screen.getByText('Underpaid')).toBeTruthy();
    expect(document.documentElement.dir).not.toBe('rtl');
    await setLanguage('ar');
    expect(lang.value).toBe('ar');
    expect(document.documentElement.dir).toBe('rtl');
    expect(document.documentElement.lang).toBe('ar');
    expect(await screen.findByText('مدفوعة بأقل من المستحق')).toBeTruthy();
    expect(t('nav_invoices')).toBe('الفواتير');
    await setLanguage('fa');
    expect(document.documentElement.dir).toBe('rtl');
    await setLanguage('de');
    expect(document.documentElement.dir).toBe('ltr');
    expect(screen.getByText('Unterbezahlt')).toBeTruthy();
  });

  test('when two choices race, the last one wins whichever chunk arrives first', async () => {
    const first = setLanguage('ja');
    const second = setLanguage('ko');
    await Promise.all([first, second]);
    expect(lang.value).toBe('ko');
    expect(t('nav_settings')).toBe('설정');
  });

  test('the picker shows the choice at once and saves it for the user', async () => {
    const me = signal<Me | null | undefined>({
      user: { id: 'u', email: 'ana@shop.example', role: 'owner', language: null },
      can_manage: true,
      merchant: { id: 'm', name: 'Shop', blocked: false },
      merchants: null,
      csrf: 'c',
      test_mode: false,
      public_url: 'https://pay.example',
    });
    const post = vi.fn(async () => ({ language: 'fa' }));
    const notify = vi.fn();
    const store = { me, api: { post }, notify } as unknown as Store;
    render(
      <StoreContext.Provider value={store}>
        <LanguagePicker />
      </StoreContext.Provider>,
    );
    const select = screen.getByRole('combobox', { name: 'Language' }) as HTMLSelectElement;
    expect([...select.options].map((o) => o.value)).toEqual(['', 'en', 'es', 'pt', 'ru', 'tr', 'zh', 'ar', 'fa', 'de', 'fr', 'it', 'nl', 'pl', 'uk', 'ja', 'ko', 'id', 'vi', 'hi', 'th']);
    select.value = 'fa';
    fireEvent.change(select);
    await waitFor(() => expect(me.value?.user.language).toBe('fa'));
    expect(post).toHaveBeenCalledWith(expect.objectContaining({ path: '/me/language' }), { language: 'fa' });
    await waitFor(() => expect(document.documentElement.dir).toBe('rtl'));
    expect(notify).not.toHaveBeenCalled();
  });
});

describe('times and amounts', () => {
  const at = Date.UTC(2026, 10, 27, 11, 5, 9);

  test('a time names its zone, in the user’s language', async () => {
    expect(time(at, false, 'Europe/Istanbul')).toBe('Nov 27, 2026, 02:05 PM GMT+3');
    expect(time(at, true, 'UTC')).toBe('Nov 27, 2026, 11:05:09 AM UTC');
    await setLanguage('de');
    expect(locale.value).toBe('de-DE');
    expect(time(at, false, 'Europe/Berlin')).toBe('27. Nov. 2026, 12:05 MEZ');
    expect(time(null)).toBe('—');
    expect(time(Number.NaN)).toBe('—');
  });

  test('the list and the invoice page show an instant with the one formatter', () => {
    render(<InvoiceTable items={[{ id: '62f88b36-a9d5-4fa6-aa26-e040c3dbf26d', order_id: 'o-1', amount: '10', currency: 'USDT', payer_amount: null, payer_currency: null, network: null, status: 'paid', payment_amount: null, created_at: at }]} />);
    expect(screen.getByText(time(at))).toBeTruthy();
    expect(time(at)).toMatch(/(GMT|UTC)/);
  });

  test('amounts take the language’s separators and never lose a digit', async () => {
    const big = '123456789012345678.123456789012345678';
    expect(amount(big, 'ETH')).toBe('123,456,789,012,345,678.123456789012345678 ETH');
    await setLanguage('de');
    expect(amount(big, 'ETH')).toBe('123.456.789.012.345.678,123456789012345678 ETH');
    expect(amount('-0.5')).toBe('−0,5');
    await setLanguage('fr');
    expect(amount('1234.5', 'USDT')).toBe('1\u202f234,5 USDT');
    expect(amount('not a number', 'X')).toBe('not a number X');
  });
});
