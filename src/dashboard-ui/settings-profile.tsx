// Settings: the merchant's public profile for the payment page: display name, accent colour,
// theme, default page language, and the logo (upload with a preview, or remove).
import { useState } from 'preact/hooks';
import { formText } from './api.ts';
import { errorText } from './error-text.ts';
import { moneyApi, type Profile as ProfileData } from '../contracts/dashboard/money.ts';
import { useStore } from './store.ts';
import { PAGE_LANGUAGE_NAMES } from './languages.ts';
import { Card, Field, Loading, Problem, useLoad } from './ui.tsx';
import { AccentPicker } from './accent-picker.tsx';
import { t as tr, type MessageKey } from './i18n/index.ts';

const THEMES: Record<string, MessageKey> = { auto: 'theme_system', light: 'theme_light', dark: 'theme_dark' };

const LOGO_MAX_BYTES = 256 * 1024;
const LOGO_TYPES = ['image/png', 'image/jpeg', 'image/webp'];

export function Profile() {
  const { api, notify } = useStore();
  const profile = useLoad(() => api.get(moneyApi.profile), []);
  const [error, setError] = useState<unknown>(null);
  const save = async (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    setError(null);
    try {
      await api.post(moneyApi.saveProfile, {
        display_name: String(f.get('display_name') ?? '').trim(),
        accent: String(f.get('accent') ?? '').trim(),
        theme: formText(f, 'theme'),
        language: formText(f, 'language'),
      });
      notify('ok', tr('pr_saved'));
      profile.reload();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <Card title={tr('pr_title')}>
      <p class="muted small">{tr('pr_intro')}</p>
      {!profile.data ? (
        profile.error ? <Problem error={profile.error} /> : <Loading />
      ) : (
        <>
          <Logo profile={profile.data} onChange={profile.reload} />
          <form class="inline-form" onSubmit={save}>
            <Field id="pr-name" label={tr('pr_name')}>
              {(id) => <input id={id} name="display_name" maxLength={80} defaultValue={profile.data!.display_name ?? ''} />}
            </Field>
            <AccentPicker initial={profile.data.accent ?? null} />
            <Field id="pr-theme" label={tr('theme')}>
              {(id) => (
                <select id={id} name="theme">
                  {['auto', 'light', 'dark'].map((t) => (
                    <option key={t} value={t} selected={profile.data!.theme === t}>
                      {tr(THEMES[t]!)}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field id="pr-language" label={tr('pr_language')}>
              {(id) => (
                <select id={id} name="language">
                  <option value="auto" selected={profile.data!.language === null}>
                    {tr('pr_language_auto')}
                  </option>
                  {PAGE_LANGUAGE_NAMES.map(([code, name]) => (
                    <option key={code} value={code} lang={code} selected={profile.data!.language === code}>
                      {name}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <button class="btn primary" type="submit">
              {tr('pr_save')}
            </button>
          </form>
        </>
      )}
      <Problem error={error} />
    </Card>
  );
}

/** The file as base64, without the data: prefix FileReader puts before it. */
function readBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error ?? new Error(tr('pr_unreadable')));
    reader.readAsDataURL(file);
  });
}

function Logo({ profile, onChange }: { profile: ProfileData; onChange: () => void }) {
  const { api, notify } = useStore();
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const upload = async (e: Event) => {
    e.preventDefault();
    const formEl = e.currentTarget as HTMLFormElement;
    const file = (formEl.elements.namedItem('logo') as HTMLInputElement).files?.[0];
    setProblem(null);
    // The server decides from the bytes; these checks only spare an upload that would be refused.
    if (!file) return setProblem(tr('logo_choose'));
    if (file.size > LOGO_MAX_BYTES) return setProblem(tr('logo_too_big'));
    if (file.type === 'image/svg+xml') return setProblem(tr('logo_svg'));
    if (file.type && !LOGO_TYPES.includes(file.type)) return setProblem(tr('logo_type'));
    setBusy(true);
    try {
      await api.post(moneyApi.uploadLogo, { image: await readBase64(file) });
      formEl.reset();
      notify('ok', tr('logo_saved'));
      onChange();
    } catch (err) {
      setProblem(errorText(err, 'pr_unreadable_retry'));
    } finally {
      setBusy(false);
    }
  };
  const remove = async () => {
    if (!confirm(tr('logo_remove_confirm'))) return;
    setProblem(null);
    try {
      await api.post(moneyApi.removeLogo, {});
      notify('ok', tr('logo_removed'));
      onChange();
    } catch (err) {
      setProblem(errorText(err));
    }
  };
  return (
    <div class="logo-row">
      <div class="logo-preview">
        {profile.logo_url ? <img src={profile.logo_url} alt={tr('logo_current')} width={64} height={64} /> : <span class="muted small">{tr('logo_none')}</span>}
      </div>
      <form class="inline-form" onSubmit={upload} noValidate>
        <Field id="pr-logo" label={tr('logo')} hint={tr('logo_hint')} error={problem}>
          {(id, by) => <input id={id} name="logo" type="file" accept="image/png,image/jpeg,image/webp" aria-describedby={by} aria-invalid={problem ? true : undefined} />}
        </Field>
        <button class="btn" type="submit" disabled={busy}>
          {busy ? tr('logo_uploading') : tr('logo_upload')}
        </button>
        {profile.logo_url && (
          <button class="btn danger" type="button" onClick={() => void remove()}>
            {tr('logo_remove')}
          </button>
        )}
      </form>
    </div>
  );
}
