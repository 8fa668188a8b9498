// Language selection and loading. English is bundled; every other language is its own chunk,
// fetched only when chosen.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { batch, signal, type Signal } from '@preact/signals';
import { en, type MessageKey, type Messages } from './en.ts';
import { formatMessage, isRtlLocale } from '../../ui-kit/locale.ts';

/** `en` as the full table: the subscription page's keys join it when that page loads (./recurrence-english.ts). */
const english = en as Messages;

export const LANGUAGES = [
  { code: 'en', name: 'English', locale: 'en-US' },
  { code: 'es', name: 'Español', locale: 'es-ES' },
  { code: 'pt', name: 'Português', locale: 'pt-BR' },
  { code: 'ru', name: 'Русский', locale: 'ru-RU' },
  { code: 'tr', name: 'Türkçe', locale: 'tr-TR' },
  { code: 'zh', name: '中文', locale: 'zh-CN' },
  { code: 'ar', name: 'العربية', locale: 'ar' },
  { code: 'fa', name: 'فارسی', locale: 'fa-IR' },
  { code: 'de', name: 'Deutsch', locale: 'de-DE' },
  { code: 'fr', name: 'Français', locale: 'fr-FR' },
  { code: 'it', name: 'Italiano', locale: 'it-IT' },
  { code: 'nl', name: 'Nederlands', locale: 'nl-NL' },
  { code: 'pl', name: 'Polski', locale: 'pl-PL' },
  { code: 'uk', name: 'Українська', locale: 'uk-UA' },
  { code: 'ja', name: '日本語', locale: 'ja-JP' },
  { code: 'ko', name: '한국어', locale: 'ko-KR' },
  { code: 'id', name: 'Bahasa Indonesia', locale: 'id-ID' },
  { code: 'vi', name: 'Tiếng Việt', locale: 'vi-VN' },
  { code: 'hi', name: 'हिन्दी', locale: 'hi-IN' },
  { code: 'th', name: 'ไทย', locale: 'th-TH' },
] as const;

export type Lang = (typeof LANGUAGES)[number]['code'];

/** Right-to-left languages: the page mirrors its layout (`dir="rtl"` on the root). */
export function isRtl(lang: Lang): boolean {
  return lang === 'ar' || lang === 'fa';
}

const loaders: Record<Exclude<Lang, 'en'>, () => Promise<{ default: Messages }>> = {
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

export interface LangChoice {
  lang: Lang;
  /** BCP 47 tag used for number and date formatting, keeping the user's region when it matches. */
  locale: string;
}

function match(tag: string): LangChoice | null {
  const base = tag.toLowerCase().split(/[-_]/)[0];
  const known = LANGUAGES.find((l) => l.code === base);
  if (!known) return null;
  let locale: string = known.locale;
  try {
    if (tag.includes('-')) locale = Intl.getCanonicalLocales(tag)[0] ?? locale;
  } catch {
    // not a valid BCP 47 tag: keep the language's default locale
  }
  return { lang: known.code, locale };
}

/**
 * `?lang=` first, then the invoice's language (the merchant's default, from the payer API), then
 * the browser's preferred languages, then English. The invoice's language keeps the browser's
 * region when the browser prefers the same language (de with de-AT formats as de-AT).
 */
export function pickLanguage(query: string | null, preferred: readonly string[], invoice: string | null = null): LangChoice {
  const fromQuery = query ? match(query) : null;
  if (fromQuery) return fromQuery;
  const fromInvoice = invoice ? match(invoice) : null;
  if (fromInvoice) {
    const regional = preferred.map(match).find((c) => c?.lang === fromInvoice.lang);
    return regional ?? fromInvoice;
  }
  for (const tag of preferred) {
    const choice = match(tag);
    if (choice) return choice;
  }
  return { lang: 'en', locale: 'en-US' };
}

export interface I18n {
  /** False until the first language's strings are in, so the page never flashes English first. */
  ready: Signal<boolean>;
  lang: Signal<Lang>;
  locale: Signal<string>;
  messages: Signal<Messages>;
  /** Switch language; resolves once its strings are loaded and shown. */
  setLanguage(choice: LangChoice | Lang): Promise<void>;
}

export function createI18n(initial: LangChoice): I18n {
  const lang = signal<Lang>('en');
  const locale = signal('en-US');
  const messages = signal<Messages>(english);
  const ready = signal(initial.lang === 'en');
  let latest = 0;

  async function setLanguage(input: LangChoice | Lang) {
    const choice: LangChoice =
      typeof input === 'string' ? (match(input) ?? { lang: 'en', locale: 'en-US' }) : input;
    const request = ++latest;
    let loaded: Messages = english;
    if (choice.lang !== 'en') {
      try {
        loaded = (await loaders[choice.lang]()).default;
      } catch {
        ready.value = true; // chunk failed to load (offline): stay in the current language
        return;
      }
    }
    if (request !== latest) return;
    batch(() => {
      messages.value = loaded;
      lang.value = choice.lang;
      locale.value = choice.locale;
      ready.value = true;
    });
    if (typeof document !== 'undefined') {
      document.documentElement.lang = choice.locale;
      document.documentElement.dir = isRtl(choice.lang) ? 'rtl' : 'ltr';
    }
  }

  void setLanguage(initial);
  return { ready, lang, locale, messages, setLanguage };
}

export type Translate = (key: MessageKey, params?: Record<string, string | number>) => string;

/** Message templates: see ../../ui-kit/locale.ts (shared with the dashboard). */
export const format = formatMessage;
export { isRtlLocale };

export function translate(messages: Messages, locale = 'en-US'): Translate {
  return (key, params) => {
    const text = messages[key] ?? english[key];
    return params ? format(text, params, locale) : text;
  };
}

export const I18nContext = createContext<I18n | null>(null);

export function useI18n(): I18n {
  const i18n = useContext(I18nContext);
  if (!i18n) throw new Error('useI18n outside I18nContext');
  return i18n;
}

/** The translate function for the current language; re-renders the caller on language change. */
export function useT(): Translate {
  const i18n = useI18n();
  return translate(i18n.messages.value, i18n.locale.value);
}

export type { MessageKey, Messages };
