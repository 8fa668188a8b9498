// @vitest-environment jsdom
// Settings → Readiness in the owner's language: each finding of `satchel doctor` worded in the
// browser from its check, code and params (the same findings the server builds, English and all),
// a code this dashboard does not know shown in the server's English, the code on the row's
// tooltip. Also worded from codes: a custody change's warnings and a refused input.
import { afterEach, describe, expect, test } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/preact';
import { setLanguage } from '../../src/dashboard-ui/i18n/index.ts';
import { Readiness } from '../../src/dashboard-ui/settings-readiness.tsx';
import { warningText } from '../../src/dashboard-ui/settings-receiving.tsx';
import { errorText } from '../../src/dashboard-ui/error-text.ts';
import { ApiError } from '../../src/dashboard-ui/api.ts';
import { StoreContext, type Store } from '../../src/dashboard-ui/store.ts';
import { finding } from '../../src/doctor/finding.ts';
import type { Finding } from '../../src/contracts/dashboard/readiness.ts';

afterEach(async () => {
  cleanup();
  await setLanguage('en');
});

const FINDINGS: Finding[] = [
  finding('FAIL', 'public_url', 'public_url.http', { url: 'http://pay.example.com' }),
  finding('FAIL', 'node', 'node.behind', { network: 'ETH', head: 100, age_ms: 3 * 3600_000, limit: 10 }),
  finding('WARN', 'custody', 'custody.no_material', { network: 'TRON', merchants: 3 }),
  finding('WARN', 'payout_float', 'payout_float.uncapped', { network: 'ETH', file: '/etc/float.key', account: '0xabc', caps: JSON.stringify([['ETH', '0.5', null]]), balances: '1.2 ETH', uncapped: 'USDT' }),
  finding('WARN', 'smtp', 'smtp.unreachable', { host: 'mail.example.test', port: 587, error: 'ECONNREFUSED' }),
  // A finding of a newer server, which this dashboard cannot word: its English is shown.
  { status: 'WARN', check: 'quantum', code: 'quantum.soon', params: {}, name: 'quantum safety', detail: 'the keys are not post-quantum', fix: 'wait' },
];

/** The readiness card, its checks run against a server answering FINDINGS; the rows' cell texts. */
async function shown(): Promise<string[][]> {
  const store = { api: { get: async () => FINDINGS } } as unknown as Store;
  render(
    <StoreContext.Provider value={store}>
      <Readiness />
    </StoreContext.Provider>,
  );
  fireEvent.click(screen.getByRole('button'));
  const table = await screen.findByRole('table');
  return [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('th, td')].slice(1).map((c) => (c.textContent ?? '').replace(/[\u2068\u2069]/g, '')));
}

describe('the readiness card', () => {
  test('in English: the server’s words', async () => {
    const rows = await shown();
    expect(rows[0]).toEqual(['public URL', FINDINGS[0]!.detail, FINDINGS[0]!.fix]);
    expect(rows[2]![1]).toBe('watch-only, but no receiving material: the network is not offered to this merchant (3 merchants)');
  });

  test('in German: each finding worded in German from its code, the unknown one in English', async () => {
    await setLanguage('de');
    const rows = await shown();
    expect(rows[0]).toEqual([
      'Öffentliche URL',
      'http://pay.example.com ist einfaches http: Links der Zahlenden und API-Schlüssel können unterwegs gelesen und verändert werden',
      'Betreiben Sie das Gateway über https (ein Reverse-Proxy mit Zertifikat) und setzen Sie SATCHEL_PUBLIC_URL auf diese Adresse',
    ]);
    expect(rows[1]![0]).toBe('Knoten ETH');
    expect(rows[1]![1]).toBe('Block 100 ist 180 min alt (Grenze 10 min): Der Knoten ist nicht synchronisiert, Zahlungen werden nicht gesehen');
    expect(rows[2]![1]).toBe('Watch-only, aber ohne Empfangsdaten: Das Netzwerk wird diesem Händler nicht angeboten (3 Händler)');
    expect(rows[3]![1]).toBe('Schlüsseldatei /etc/float.key (Modus 0600), Konto 0xabc; Obergrenzen: ETH 0.5 je Auszahlung, beliebig je Tag; hält 1.2 ETH; keine Obergrenze für USDT: Ein gestohlener Händler-API-Schlüssel könnte die Reserve davon an einem Tag leeren');
    expect(rows[4]![0]).toBe('E-Mail (SMTP)');
    expect(rows[5]).toEqual(['quantum safety', 'the keys are not post-quantum', 'wait']);
    const known = rows.slice(0, 5).flat().join(' ');
    expect(known).not.toMatch(/plain http|not synced|receiving material|stolen merchant|does not accept/);
    expect(document.querySelector('tbody tr th')!.getAttribute('title')).toBe('public_url.http');
  });

  test('in Arabic: Arabic words, the values kept as they are', async () => {
    await setLanguage('ar');
    const rows = await shown();
    expect(rows[0]![0]).toBe('العنوان العام');
    expect(rows[0]![1]).toBe('http://pay.example.com هو http عادي: يمكن قراءة روابط الدافعين ومفاتيح API وتغييرها أثناء النقل');
    expect(rows[1]![0]).toBe('عقدة ETH');
    expect(rows[1]![1]).toContain('العقدة غير متزامنة');
    expect(rows[2]![1]).toContain('(3 تجار)');
    expect(rows[4]![1]).toContain('mail.example.test:587');
    expect(rows.slice(0, 5).flat().join(' ')).not.toMatch(/\b(?:the|is|not|and|of)\b/);
  });
});

describe('other codes the server sends', () => {
  test('a custody change’s warnings, from their codes; English for a code not known', async () => {
    const change = {
      warning: 'The cold address 0xC0 is a contract on ETH, not a plain account: ... ETH runs in hot custody ...',
      warnings: [
        { code: 'contract_address', params: { address: '0xC0', network: 'ETH' } },
        { code: 'hot_custody', params: { network: 'ETH' } },
      ] as Array<{ code: string; params: Record<string, string> }>,
    };
    await setLanguage('de');
    expect(warningText(change)).toBe(
      'Die Cold-Adresse 0xC0 ist auf ETH ein Vertrag, kein einfaches Konto: Stellen Sie sicher, dass sie die native Münze und jeden akzeptierten Token empfangen kann. ETH läuft auf diesem Gateway in Hot Custody: Zahlungen gehen an Adressen aus dem eigenen Seed des Gateways, und diese Angaben werden erst verwendet, wenn der Betreiber das Netzwerk auf Watch-only stellt.',
    );
    expect(warningText({ warning: 'Something new', warnings: [{ code: 'brand_new', params: {} }] })).toBe('Something new');
  });

  test('a refused input, from its code and params', async () => {
    const taken = new ApiError(422, 'A user with the email ana@example.test already exists.', null, 'email_taken', { email: 'ana@example.test' });
    expect(errorText(taken)).toBe('A user with the email ana@example.test already exists.');
    await setLanguage('de');
    expect(errorText(taken)).toBe('Es gibt bereits einen Benutzer mit der E-Mail-Adresse ana@example.test.');
    expect(errorText(new ApiError(422, 'The password needs at least 10 characters.', null, 'password_short', { min: 10, max: 256 }))).toBe('Das Passwort braucht mindestens 10 Zeichen.');
    await setLanguage('ar');
    expect(errorText(taken)).toContain('يوجد مستخدم بالبريد الإلكتروني');
  });
});
