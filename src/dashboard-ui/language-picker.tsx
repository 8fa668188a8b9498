// The dashboard's language picker: the payment page's languages, each named in itself, and
// "Browser default". The choice shows at once (its chunk loads) and is saved for the user on the
// server, so it follows them to another browser.
import { errorText } from './error-text.ts';
import { authApi } from '../contracts/dashboard/auth.ts';
import { LANGUAGES, lang, setLanguage, t } from './i18n/index.ts';
import { useStore } from './store.ts';

export function LanguagePicker() {
  const { api, me, notify } = useStore();
  const m = me.value;
  const saved = m?.user.language ?? '';
  const choose = async (value: string) => {
    void setLanguage(value || null);
    try {
      const r = await api.post(authApi.setLanguage, { language: value || null });
      const now = me.value;
      if (now) me.value = { ...now, user: { ...now.user, language: r.language } };
    } catch (err) {
      notify('error', errorText(err));
    }
  };
  return (
    <label class="merchant-pick lang-pick">
      <span class="sr-only">{t('language')}</span>
      <select value={saved} onChange={(e) => void choose((e.currentTarget as HTMLSelectElement).value)} data-shown={lang.value}>
        <option value="">{t('language_browser')}</option>
        {LANGUAGES.map(([code, name]) => (
          <option key={code} value={code} lang={code}>
            {name}
          </option>
        ))}
      </select>
    </label>
  );
}
