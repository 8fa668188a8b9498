// Every language of the payment page has every payer email, and each one names the merchant, the
// recurrence, the amount per period and the subscription's link (and the renewal's invoice).
import { describe, expect, it } from 'vitest';
import { PAGE_LANGUAGES } from '../../src/contracts/payer.ts';
import { EMAIL_KINDS, EMAIL_WORDS, recurrenceEmail } from '../../src/recurrences/email-texts/index.ts';

describe('payer email texts', () => {
  it('cover the 20 languages, each email with its merchant, name, amount and links', () => {
    expect(Object.keys(EMAIL_WORDS).sort()).toEqual([...PAGE_LANGUAGES].sort());
    const subjects = new Set<string>();
    for (const lang of PAGE_LANGUAGES) {
      for (const kind of EMAIL_KINDS) {
        for (const period of ['weekly', 'monthly', 'three_month'] as const) {
          const m = recurrenceEmail({ kind, to: 'p@example.com', lang, merchant: 'Mug\r\nShop', name: 'Gold club', amount: '12.50 USDT', period, page: 'https://pay.example/pay/recurrence/r1', invoice: 'https://pay.example/pay/i1' });
          expect(m.subject, `${lang} ${kind}`).toMatch(/^Mug Shop: .*Gold club/);
          expect(m.subject).not.toMatch(/[\r\n{}]/);
          expect(m.text).toContain('Mug Shop');
          expect(m.text).toContain('Gold club');
          expect(m.text).toContain('12.50 USDT');
          expect(m.text).toContain('https://pay.example/pay/recurrence/r1');
          expect(m.text.includes('https://pay.example/pay/i1')).toBe(kind === 'renewal_due');
          expect(m.text).not.toMatch(/\{\w+\}/);
          subjects.add(m.subject);
        }
      }
    }
    // Each language says each email its own way: no language left in English.
    expect(subjects.size).toBe(PAGE_LANGUAGES.length * EMAIL_KINDS.length);
  });
});
