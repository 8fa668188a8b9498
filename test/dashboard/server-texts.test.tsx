// @vitest-environment jsdom
// What the dashboard API sends as codes with parameters is worded in the browser, in the user's
// language: an invoice's timeline, a network an open invoice cannot be paid on, what to give for a
// network's receiving, a webhook's sent status (a subscription's too), a refusal the API names by
// its code (the server's words only for a refusal without a known code), and a payout's amounts
// with the language's separators. The raw code and parameters stay on the tooltip.
import { afterEach, describe, expect, test } from 'vitest';
import { cleanup, render, screen } from '@testing-library/preact';
import { setLanguage } from '../../src/dashboard-ui/i18n/index.ts';
import { Timeline, timelineSentence } from '../../src/dashboard-ui/timeline.tsx';
import { errorText } from '../../src/dashboard-ui/error-text.ts';
import { ApiError } from '../../src/dashboard-ui/api.ts';
import { giveHint } from '../../src/dashboard-ui/settings-receiving.tsx';
import { DeliveryList } from '../../src/dashboard-ui/deliveries.tsx';
import { PayoutFacts } from '../../src/dashboard-ui/payouts.tsx';
import { Problem } from '../../src/dashboard-ui/ui.tsx';
import { TIMELINE_EVENTS, type TimelineEvent } from '../../src/contracts/dashboard/invoices.ts';
import type { Delivery } from '../../src/contracts/dashboard/webhooks.ts';

afterEach(async () => {
  cleanup();
  await setLanguage('en');
});

const at = Date.UTC(2026, 10, 27, 11);
const EVENTS: TimelineEvent[] = [
  { at, code: 'created', params: { amount: '1234.5', currency: 'USDT' } },
  { at: at + 1, code: 'transfer_seen', params: { amount: '1234.5', currency: 'USDT', network: 'TRON' } },
  { at: at + 2, code: 'transfer_confirmed', params: { amount: '1234.5', currency: 'USDT', network: 'TRON' } },
  { at: at + 3, code: 'webhook_queued', params: { status: 'paid' } },
  { at: at + 4, code: 'refund_requested', params: { amount: '10', currency: 'USDT', status: 'process' } },
  { at: at + 5, code: 'expires', params: {} },
];
const items = () => [...document.querySelectorAll('ol.timeline li')] as HTMLElement[];
/** The sentence of a row (after its time), spaces made plain. */
const sentence = (li: HTMLElement) => (li.childNodes[2]?.textContent ?? '').replace(/\s+/g, ' ');

describe('the invoice timeline', () => {
  test('in English, each event a sentence with the raw code and parameters on its tooltip', () => {
    render(<Timeline events={EVENTS} />);
    expect(items().map(sentence)).toEqual([
      'Invoice created for 1,234.5 USDT',
      'Transfer of 1,234.5 USDT seen on TRON',
      'Transfer of 1,234.5 USDT confirmed',
      'Webhook queued: Paid',
      'Refund of 10 USDT requested (Preparing to send)',
      'Expires unless paid',
    ]);
    expect(items()[1]!.getAttribute('title')).toBe('transfer_seen amount=1234.5 currency=USDT network=TRON');
    expect(items()[3]!.dataset.code).toBe('webhook_queued');
  });

  test('in German: German words, German separators, the statuses labelled in German', async () => {
    await setLanguage('de');
    render(<Timeline events={EVENTS} />);
    const said = items().map(sentence);
    expect(said[0]).toBe('Rechnung über 1.234,5 USDT erstellt');
    expect(said[1]).toBe('Überweisung von 1.234,5 USDT auf TRON gesehen');
    expect(said[3]).toBe('Webhook eingereiht: Bezahlt');
    expect(said[5]).toBe('Läuft ab, wenn nicht bezahlt wird');
    expect(said.join(' ')).not.toMatch(/Invoice|Transfer of|queued|Expires/);
  });

  test('in Arabic: Arabic words, the raw event still on the tooltip', async () => {
    await setLanguage('ar');
    render(<Timeline events={EVENTS} />);
    const said = items().map(sentence);
    expect(said[0]).toContain('أُنشئت فاتورة');
    expect(said[1]).toContain('TRON');
    expect(said[1]).toContain('رُصد تحويل');
    expect(said[5]).toBe('تنتهي صلاحيتها ما لم تُدفع');
    expect(said.join(' ')).not.toMatch(/[A-Za-z]{4,}(?<!USDT|TRON)\b/);
    expect(items()[0]!.getAttribute('title')).toBe('created amount=1234.5 currency=USDT');
  });

  test('every event code has its sentence in every case', () => {
    for (const code of TIMELINE_EVENTS) expect(timelineSentence({ code, params: { amount: '1', currency: 'BTC', network: 'BTC', status: 'paid' } })).not.toBe('');
  });
});

describe('refusals of the API', () => {
  test('a known code in the user’s language, the server’s words on the tooltip; an unknown code as the server said it', async () => {
    await setLanguage('de');
    expect(errorText(new ApiError(403, 'Only an owner of the merchant can change it.', null, 'role_forbidden'))).toBe('Ihre Rolle erlaubt das nicht.');
    expect(errorText(new ApiError(403, 'The password is not right: nothing was changed.', null, 'password_wrong'))).toBe('Das Passwort stimmt nicht: Nichts wurde geändert.');
    expect(errorText(new ApiError(502, 'The server answered 502.', null, 'http_status'))).toBe('Der Server hat mit einem Fehler geantwortet (502).');
    expect(errorText(new ApiError(422, 'The amount is above the balance.', null, null))).toBe('The amount is above the balance.');
    expect(errorText(new ApiError(422, 'Something new.', null, 'a_code_from_the_future'))).toBe('Something new.');
    expect(errorText(new TypeError('Failed to fetch'))).toBe('Etwas ist schiefgelaufen. Versuchen Sie es erneut.');
    render(<Problem error={new ApiError(404, 'Invoice not found', null, 'not_found')} />);
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toBe('Nicht gefunden: Es existiert nicht oder gehört zu einem anderen Shop.');
    expect(alert.getAttribute('title')).toBe('Invoice not found');
  });
});

describe('receiving, webhooks and payouts', () => {
  test('what to give for a network, by what it takes, in the user’s language', async () => {
    await setLanguage('ar');
    // The network's code is isolated (FSI ... PDI) inside the right-to-left sentence.
    expect(giveHint({ network: 'ETH', inputs: ['address'], accepts: 'a cold address (0x...) that every payment is forwarded to' })).toBe(
      'أدخل عنوانًا لمحفظتك الخاصة على \u2068ETH\u2069: إليه تصل مدفوعات فواتيرك. لا تدخل أبدًا مفتاحًا خاصًا أو عبارة بذرة.',
    );
    expect(giveHint({ network: 'LTC', inputs: ['xpub', 'descriptor'], accepts: 'an xpub' })).toContain('مفتاحًا عامًا موسّعًا');
    // Something this dashboard has no sentence for: the server's words inside the language's sentence.
    expect(giveHint({ network: 'NEW', inputs: [], accepts: 'a thing' })).toContain('a thing');
  });

  test('a subscription webhook’s sent status is a label, not its code', async () => {
    await setLanguage('de');
    const d: Delivery = {
      id: 'h1', kind: 'recurrence', ref_id: 'r1', object: null, order_id: 'sub-1', status_sent: 'cancel_by_user', url: 'https://shop.example/hook',
      status: 'delivered', failing: false, attempts: [], body: '{}', created_at: at, delivered_at: at, next_attempt_at: null, last_status: 200, last_error: null,
    };
    render(<DeliveryList items={[d]} />);
    const text = document.querySelector('.delivery-what')!.textContent!;
    expect(text).toContain('Vom Kunden gekündigt');
    expect(text).not.toContain('cancel_by_user');
  });

  test('a payout’s amounts are written with the language’s separators', async () => {
    await setLanguage('de');
    render(<PayoutFacts data={{ amount: '12345.678', currency: 'USDT', commission: '1.5', merchant_amount: '12347.178', address: 'TAddr', is_final: true }} />);
    const field = (k: string) => document.querySelector(`[data-field="${k}"]`)!.textContent!.replace(/\s/g, ' ');
    expect(field('amount')).toBe('12.345,678');
    expect(field('commission')).toBe('1,5');
    expect(field('merchant_amount')).toBe('12.347,178');
    expect(screen.getByText('Ja')).toBeTruthy();
  });
});
