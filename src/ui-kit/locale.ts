// What the payment page and the dashboard share about languages: message templates with
// parameters and plurals, the right-to-left languages, and the separators amounts are written with
// in a locale (the digits of an amount never go through a JS number: ./decimal.ts).
import type { DecimalStyle } from './decimal.ts';

/**
 * The separators of the apps' own locales, as Intl gives them (test/page/i18n.test.tsx checks):
 * creating the first Intl.NumberFormat in a fresh tab loads ICU's number data, which costs tens of
 * milliseconds before the first paint. Other locales (a browser's pt-PT, de-CH) ask Intl.
 */
export const KNOWN_STYLES: Record<string, DecimalStyle> = {
  'en-US': { group: ',', decimal: '.', minGrouping: 1 },
  'es-ES': { group: '.', decimal: ',', minGrouping: 2 },
  'pt-BR': { group: '.', decimal: ',', minGrouping: 1 },
  'ru-RU': { group: '\u00a0', decimal: ',', minGrouping: 1 },
  'tr-TR': { group: '.', decimal: ',', minGrouping: 1 },
  'zh-CN': { group: ',', decimal: '.', minGrouping: 1 },
  ar: { group: ',', decimal: '.', minGrouping: 1 },
  'fa-IR': { group: ',', decimal: '.', minGrouping: 1 },
  'de-DE': { group: '.', decimal: ',', minGrouping: 1 },
  'fr-FR': { group: '\u202f', decimal: ',', minGrouping: 1 },
  'it-IT': { group: '.', decimal: ',', minGrouping: 2 },
  'nl-NL': { group: '.', decimal: ',', minGrouping: 1 },
  'pl-PL': { group: '\u00a0', decimal: ',', minGrouping: 2 },
  'uk-UA': { group: '\u00a0', decimal: ',', minGrouping: 1 },
  'ja-JP': { group: ',', decimal: '.', minGrouping: 1 },
  'ko-KR': { group: ',', decimal: '.', minGrouping: 1 },
  'id-ID': { group: '.', decimal: ',', minGrouping: 1 },
  'vi-VN': { group: '.', decimal: ',', minGrouping: 1 },
  'hi-IN': { group: ',', decimal: '.', minGrouping: 1 },
  'th-TH': { group: ',', decimal: '.', minGrouping: 1 },
};

const styles = new Map<string, DecimalStyle>(Object.entries(KNOWN_STYLES));

export function decimalStyle(locale: string): DecimalStyle {
  const cached = styles.get(locale);
  if (cached) return cached;
  // Amounts keep their ASCII digits in every language, so the separators are those that go with them.
  let style: DecimalStyle = { group: ',', decimal: '.', minGrouping: 1 };
  try {
    const format = new Intl.NumberFormat(locale, { numberingSystem: 'latn' });
    const parts = format.formatToParts(12345.5);
    style = {
      group: parts.find((p) => p.type === 'group')?.value ?? ',',
      decimal: parts.find((p) => p.type === 'decimal')?.value ?? '.',
      minGrouping: format.formatToParts(1234).some((p) => p.type === 'group') ? 1 : 2,
    };
  } catch {
    // not a locale Intl knows: English separators
  }
  styles.set(locale, style);
  return style;
}

export function isRtlLocale(locale: string): boolean {
  return /^(ar|fa)\b/i.test(locale);
}

const plurals = new Map<string, Intl.PluralRules>();

function pluralRules(locale: string): Intl.PluralRules {
  let rules = plurals.get(locale);
  if (!rules) plurals.set(locale, (rules = new Intl.PluralRules(locale)));
  return rules;
}

/**
 * `{name}` is replaced by the parameter; `{name, plural, one {…} few {…} other {…}}` picks the
 * branch for the number by Intl.PluralRules of the locale (`=0`-style exact branches first).
 */
export function formatMessage(text: string, params: Record<string, string | number>, locale: string): string {
  const plural = /\{(\w+), plural,((?:\s*=?\w+\s*\{[^{}]*\})+)\s*\}/g;
  const withPlurals = text.replace(plural, (all, name: string, body: string) => {
    const value = params[name];
    if (typeof value !== 'number') return all;
    const branches = new Map([...body.matchAll(/\s*(=?\w+)\s*\{([^{}]*)\}/g)].map((m) => [m[1]!, m[2]!]));
    return branches.get(`=${value}`) ?? branches.get(pluralRules(locale).select(value)) ?? branches.get('other') ?? all;
  });
  // In a right-to-left text, a Latin value ("TRON (TRC-20)", an order id) is isolated so its
  // parentheses and digits keep their order (first-strong isolate ... pop directional isolate).
  const [open, close] = isRtlLocale(locale) ? ['\u2068', '\u2069'] : ['', ''];
  return withPlurals.replace(/\{(\w+)\}/g, (all, name: string) => (name in params ? `${open}${String(params[name])}${close}` : all));
}
