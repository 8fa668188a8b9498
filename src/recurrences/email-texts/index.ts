// The payer emails of subscriptions as messages: the words of the payer's language filled in.
// Plain text only: nothing a merchant or payer typed is ever read as markup.
import type { MailMessage } from '../../mail/index.ts';
import type { PageLanguage } from '../../contracts/payer.ts';
import type { RecurrencePeriod } from '../../contracts/merchant-api/recurrences.ts';
import { ar, fa, hi, id, ja, ko, th, vi, zh } from './asia.ts';
import { de, en, es, fr, it, nl, pl, pt, ru, tr, uk } from './europe.ts';
import type { EmailKind, EmailWords } from './words.ts';

export { EMAIL_KINDS, type EmailKind } from './words.ts';

/** Every language of the payment page, in its order. */
export const EMAIL_WORDS: Record<PageLanguage, EmailWords> = { en, es, pt, ru, tr, zh, ar, fa, de, fr, it, nl, pl, uk, ja, ko, id, vi, hi, th };

export interface EmailInput {
  kind: EmailKind;
  to: string;
  lang: PageLanguage;
  merchant: string;
  name: string;
  /** "10.00 USDT": the price of one full period. */
  amount: string;
  period: RecurrencePeriod;
  /** `{public base}/pay/recurrence/{uuid}`. */
  page: string;
  /** The renewal invoice's page (renewal_due), or null. */
  invoice: string | null;
}

/** A name as it may stand in a subject line: control characters (a line break among them) become spaces. */
function oneLine(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
}

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (m, k: string) => values[k] ?? m);
}

export function recurrenceEmail(input: EmailInput): MailMessage {
  const w = EMAIL_WORDS[input.lang];
  const values = { merchant: oneLine(input.merchant), name: oneLine(input.name) };
  const price = fill(w.period[input.period], { amount: input.amount });
  const lines = [fill(w.body[input.kind], { ...values, price }), ''];
  if (input.kind === 'renewal_due' && input.invoice !== null) lines.push(w.pay, input.invoice, '');
  lines.push(w.page, input.page, '', '--', fill(w.why, values));
  return { to: input.to, subject: `${values.merchant}: ${fill(w.subject[input.kind], values)}`, text: lines.join('\n') };
}
