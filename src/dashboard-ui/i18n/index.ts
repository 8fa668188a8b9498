// The dashboard's language: the payment page's 20 languages, chosen per user (saved on the server,
// /me says it), else the browser's. English is bundled; every other language is its own chunk,
// fetched only when chosen. `t` reads the current language's signal, so a component that calls it
// renders again when the language changes; like the address (route.ts) the language belongs to the
// page, not to one view.
import { batch, signal } from '@preact/signals';
import { formatMessage, isRtlLocale } from '../../ui-kit/locale.ts';
import { PAGE_LANGUAGE_NAMES } from '../languages.ts';
import { en, type AuditKey, type LabelFamily, type MessageKey, type Messages } from './en.ts';
import { renderFinding, type FindingParams, type FindingWords } from '../../contracts/dashboard/readiness-text.ts';

export type { AuditKey, LabelFamily, MessageKey, Messages };

/** The languages, each with the locale its numbers and dates are written in (as on the payment page). */
export const LOCALES: Record<string, string> = {
  en: 'en-US', es: 'es-ES', pt: 'pt-BR', ru: 'ru-RU', tr: 'tr-TR', zh: 'zh-CN', ar: 'ar', fa: 'fa-IR', de: 'de-DE', fr: 'fr-FR',
  it: 'it-IT', nl: 'nl-NL', pl: 'pl-PL', uk: 'uk-UA', ja: 'ja-JP', ko: 'ko-KR', id: 'id-ID', vi: 'vi-VN', hi: 'hi-IN', th: 'th-TH',
};

export const LANGUAGES: ReadonlyArray<readonly [code: string, name: string]> = PAGE_LANGUAGE_NAMES;

const loaders: Record<string, () => Promise<{ default: Messages }>> = {
  es: () => import('./es.ts'),
  pt: () => import('./pt.ts'),
  ru: () => import('./ru.ts'),
  tr: () => import('./tr.ts'),
  zh: () => import('./zh.ts'),
  ar: () => import('./ar.ts'),
  fa: () => import('./fa.ts'),
  de: () => import('./de.ts'),
  fr: () => import('./fr.ts'),
  it: () => import('./it.ts'),
  nl: () => import('./nl.ts'),
  pl: () => import('./pl.ts'),
  uk: () => import('./uk.ts'),
  ja: () => import('./ja.ts'),
  ko: () => import('./ko.ts'),
  id: () => import('./id.ts'),
  vi: () => import('./vi.ts'),
  hi: () => import('./hi.ts'),
  th: () => import('./th.ts'),
};

/** The language shown ('en', 'ar', ...). */
export const lang = signal('en');
/** The BCP 47 locale numbers and dates are written in. */
export const locale = signal('en-US');
const messages = signal<Messages>(en);

/** A known language code for a tag ("pt-BR" -> "pt"), or null. */
export function languageOf(tag: string | null | undefined): string | null {
  if (!tag) return null;
  const base = tag.toLowerCase().split(/[-_]/)[0] ?? '';
  return base in LOCALES ? base : null;
}

/** The browser's first preferred language the dashboard speaks, else English. */
export function browserLanguage(preferred: readonly string[] = typeof navigator === 'undefined' ? [] : navigator.languages ?? [navigator.language]): string {
  for (const tag of preferred) {
    const code = languageOf(tag);
    if (code) return code;
  }
  return 'en';
}

let latest = 0;

/** Shows the dashboard in `code` (a user's saved choice; null: the browser's); resolves once shown. */
export async function setLanguage(code: string | null): Promise<void> {
  const chosen = languageOf(code) ?? browserLanguage();
  const request = ++latest;
  let loaded: Messages = en;
  const load = loaders[chosen];
  if (load) {
    try {
      loaded = (await load()).default;
    } catch {
      return; // the chunk did not load (offline): stay in the current language
    }
  }
  if (request !== latest) return;
  batch(() => {
    messages.value = loaded;
    lang.value = chosen;
    locale.value = LOCALES[chosen] ?? 'en-US';
  });
  if (typeof document !== 'undefined') {
    document.documentElement.lang = locale.value;
    document.documentElement.dir = isRtlLocale(locale.value) ? 'rtl' : 'ltr';
  }
}

function fill(text: string, params?: Record<string, string | number>): string {
  return params ? formatMessage(text, params, locale.value) : text;
}

/** A sentence of the dashboard in the current language. */
export function t(key: MessageKey, params?: Record<string, string | number>): string {
  return fill(messages.value[key] ?? en[key], params);
}

/** An audit action's sentence in the current language. */
export function tAudit(key: AuditKey, params: Record<string, string | number>): string {
  return fill(messages.value.audit[key] ?? en.audit[key], params);
}

/**
 * A readiness finding's name, detail and fix in the current language, from its check, code and
 * params; the server's English for English and for a code this dashboard does not know.
 */
export function tFinding(f: { check: string; code: string; params: FindingParams } & FindingWords): FindingWords {
  const own = messages.value.readiness;
  const words = own ? renderFinding(own, (text, params) => formatMessage(text, params, locale.value), f) : null;
  return words ?? { name: f.name, detail: f.detail, ...(f.fix !== undefined ? { fix: f.fix } : {}) };
}

/** A code's label and what it means, or null for a code the family does not have. */
export function tLabel(family: LabelFamily, code: string): readonly [label: string, meaning: string] | null {
  const own = messages.value.labels[family] as Record<string, readonly [string, string]>;
  const english = en.labels[family] as Record<string, readonly [string, string]>;
  return Object.hasOwn(english, code) ? (own[code] ?? english[code]!) : null;
}

/**
 * A sentence with elements inside it (an address in <strong>, a setting in <code>): the sentence in
 * the current language cut at each {name} of `parts`, that part put in its place, so each language
 * keeps its own word order. Other {names} are filled from `params` as in `t`.
 */
export function tParts<P>(key: MessageKey, parts: Record<string, P>, params?: Record<string, string | number>): Array<string | P> {
  const text = t(key, params);
  return text.split(/\{(\w+)\}/).map((piece, i) => (i % 2 === 1 && Object.hasOwn(parts, piece) ? parts[piece]! : i % 2 === 1 ? `{${piece}}` : piece));
}
