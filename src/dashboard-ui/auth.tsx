// Signing in, and choosing a password through a one-time link (the token is in the fragment).
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, formText } from './api.ts';
import { errorText } from './error-text.ts';
import { authApi } from '../contracts/dashboard/auth.ts';
import { navigate } from './route.ts';
import { useStore } from './store.ts';
import { Field } from './ui.tsx';
import { t, tParts } from './i18n/index.ts';

function AuthCard(props: { title: string; children: preact.ComponentChildren }) {
  const h1 = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${props.title} · Satchel`;
  }, [props.title]);
  return (
    <main class="auth" id="main">
      <div class="card auth-card">
        <p class="brand">
          <span class="logo" aria-hidden="true">◆</span> Satchel
        </p>
        <h1 ref={h1}>{props.title}</h1>
        {props.children}
      </div>
    </main>
  );
}

export function SignIn() {
  const { api, signedIn } = useStore();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    setBusy(true);
    setError(null);
    try {
      signedIn(await api.post(authApi.login, { email: formText(form, 'email'), password: formText(form, 'password') }));
      navigate(location.pathname + location.search, { replace: true });
    } catch (err) {
      setError(errorText(err, 'auth_unreachable_retry'));
    } finally {
      setBusy(false);
    }
  };
  return (
    <AuthCard title={t('auth_sign_in')}>
      <form onSubmit={submit} class="stack" noValidate>
        <Field id="email" label={t('email')}>
          {(id) => <input id={id} name="email" type="email" autoComplete="username" required />}
        </Field>
        <Field id="password" label={t('auth_password')}>
          {(id) => <input id={id} name="password" type="password" autoComplete="current-password" required />}
        </Field>
        {error && (
          <p class="notice tone-bad" role="alert">
            {error}
          </p>
        )}
        <button class="btn primary" type="submit" disabled={busy}>
          {busy ? t('auth_signing_in') : t('auth_sign_in')}
        </button>
      </form>
      <p class="hint">{t('auth_forgot')}</p>
    </AuthCard>
  );
}

export function SetPassword() {
  const { api, signedIn } = useStore();
  const [token] = useState(() => location.hash.slice(1));
  const [state, setState] = useState<{ email?: string; error?: string }>({});
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    // Keep the token out of the history and of anything that reads the address later.
    history.replaceState(null, '', location.pathname);
    api.post(authApi.link, { token }).then(
      (r) => setState({ email: r.email }),
      (err: unknown) => setState({ error: errorText(err, 'auth_unreachable') }),
    );
  }, []);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    if (form.get('password') !== form.get('confirm')) {
      setFieldError(t('auth_differ'));
      return;
    }
    setBusy(true);
    setFieldError(null);
    try {
      signedIn(await api.post(authApi.setPassword, { token, password: formText(form, 'password') }));
      navigate('/', { replace: true });
    } catch (err) {
      if (err instanceof ApiError && err.status === 410) setState({ error: errorText(err) });
      else setFieldError(errorText(err, 'auth_unreachable'));
    } finally {
      setBusy(false);
    }
  };
  if (state.error) {
    return (
      <AuthCard title={t('auth_link_invalid')}>
        <p class="notice tone-bad" role="alert">
          {state.error}
        </p>
        <p>
          <a href="/dashboard">{t('auth_go_sign_in')}</a>
        </p>
      </AuthCard>
    );
  }
  return (
    <AuthCard title={t('auth_choose')}>
      {!state.email ? (
        <p aria-busy="true">{t('auth_checking')}</p>
      ) : (
        <form onSubmit={submit} class="stack" noValidate>
          <p>
            {tParts('auth_for', { email: <strong>{state.email}</strong> })}
          </p>
          <input type="email" name="username" autoComplete="username" value={state.email} hidden readOnly />
          <Field id="new-password" label={t('auth_new_password')} error={fieldError}>
            {(id, by) => <input id={id} name="password" type="password" autoComplete="new-password" minLength={10} maxLength={256} required aria-describedby={by} aria-invalid={fieldError ? true : undefined} />}
          </Field>
          <Field id="confirm-password" label={t('auth_repeat')}>
            {(id) => <input id={id} name="confirm" type="password" autoComplete="new-password" required />}
          </Field>
          <button class="btn primary" type="submit" disabled={busy}>
            {busy ? t('saving') : t('auth_save_sign_in')}
          </button>
        </form>
      )}
    </AuthCard>
  );
}
