// Settings: the merchant's public profile for the payment page: display name, accent colour,
// theme, default page language, and the logo (upload with a preview, or remove).
import { useState } from 'preact/hooks';
import { ApiError, formText } from './api.ts';
import { moneyApi, type Profile as ProfileData } from '../contracts/dashboard/money.ts';
import { useStore } from './store.ts';
import { PAGE_LANGUAGE_NAMES } from './languages.ts';
import { Card, Field, Loading, Problem, useLoad } from './ui.tsx';
import { AccentPicker } from './accent-picker.tsx';

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
      notify('ok', 'The public profile was saved.');
      profile.reload();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <Card title="Public profile">
      <p class="muted small">What payers see on the payment page.</p>
      {!profile.data ? (
        profile.error ? <Problem error={profile.error} /> : <Loading />
      ) : (
        <>
          <Logo profile={profile.data} onChange={profile.reload} />
          <form class="inline-form" onSubmit={save}>
            <Field id="pr-name" label="Display name">
              {(id) => <input id={id} name="display_name" maxLength={80} defaultValue={profile.data!.display_name ?? ''} />}
            </Field>
            <AccentPicker initial={profile.data.accent ?? null} />
            <Field id="pr-theme" label="Theme">
              {(id) => (
                <select id={id} name="theme">
                  {['auto', 'light', 'dark'].map((t) => (
                    <option key={t} value={t} selected={profile.data!.theme === t}>
                      {t}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field id="pr-language" label="Page language">
              {(id) => (
                <select id={id} name="language">
                  <option value="auto" selected={profile.data!.language === null}>
                    Automatic (browser)
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
              Save profile
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
    reader.onerror = () => reject(reader.error ?? new Error('The file could not be read.'));
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
    if (!file) return setProblem('Choose a PNG, JPEG or WebP file.');
    if (file.size > LOGO_MAX_BYTES) return setProblem('The logo must be at most 256 KB');
    if (file.type === 'image/svg+xml') return setProblem('SVG logos are not accepted (they can carry script): use PNG, JPEG or WebP');
    if (file.type && !LOGO_TYPES.includes(file.type)) return setProblem('The logo must be a PNG, JPEG or WebP image');
    setBusy(true);
    try {
      await api.post(moneyApi.uploadLogo, { image: await readBase64(file) });
      formEl.reset();
      notify('ok', 'The logo was saved.');
      onChange();
    } catch (err) {
      setProblem(err instanceof ApiError ? err.message : 'The file could not be read. Try again.');
    } finally {
      setBusy(false);
    }
  };
  const remove = async () => {
    if (!confirm('Remove the logo from the payment page?')) return;
    setProblem(null);
    try {
      await api.post(moneyApi.removeLogo, {});
      notify('ok', 'The logo was removed.');
      onChange();
    } catch (err) {
      setProblem(err instanceof ApiError ? err.message : 'Something went wrong. Try again.');
    }
  };
  return (
    <div class="logo-row">
      <div class="logo-preview">
        {profile.logo_url ? <img src={profile.logo_url} alt="Current logo" width={64} height={64} /> : <span class="muted small">No logo</span>}
      </div>
      <form class="inline-form" onSubmit={upload} noValidate>
        <Field id="pr-logo" label="Logo" hint="PNG, JPEG or WebP, at most 256 KB" error={problem}>
          {(id, by) => <input id={id} name="logo" type="file" accept="image/png,image/jpeg,image/webp" aria-describedby={by} aria-invalid={problem ? true : undefined} />}
        </Field>
        <button class="btn" type="submit" disabled={busy}>
          {busy ? 'Uploading…' : 'Upload logo'}
        </button>
        {profile.logo_url && (
          <button class="btn danger" type="button" onClick={() => void remove()}>
            Remove logo
          </button>
        )}
      </form>
    </div>
  );
}
