// The payment page's languages, each named in itself, for the default-language choice in
// Settings. Kept apart from the page's i18n module so the dashboard does not load its messages;
// test/dashboard/money.test.ts checks the list against the page's.
export const PAGE_LANGUAGE_NAMES: ReadonlyArray<readonly [code: string, name: string]> = [
  ['en', 'English'],
  ['es', 'Español'],
  ['pt', 'Português'],
  ['ru', 'Русский'],
  ['tr', 'Türkçe'],
  ['zh', '中文'],
  ['ar', 'العربية'],
  ['fa', 'فارسی'],
  ['de', 'Deutsch'],
  ['fr', 'Français'],
  ['it', 'Italiano'],
  ['nl', 'Nederlands'],
  ['pl', 'Polski'],
  ['uk', 'Українська'],
  ['ja', '日本語'],
  ['ko', '한국어'],
  ['id', 'Bahasa Indonesia'],
  ['vi', 'Tiếng Việt'],
  ['hi', 'हिन्दी'],
  ['th', 'ไทย'],
];
