// The dashboard shell: sign-in when signed out; otherwise the header, navigation and the view
// for the current address.
import { useEffect, useState } from 'preact/hooks';
import { lazyView } from '../ui-kit/lazy.tsx';
import { authApi } from '../contracts/dashboard/auth.ts';
import { current } from './route.ts';
import { createStore, StoreContext, useStore, type Me, type Store } from './store.ts';
import { SetPassword, SignIn } from './auth.tsx';
import { Link } from './ui.tsx';
import { ThemePicker } from './theme-picker.tsx';
import { setLanguage, t, type MessageKey } from './i18n/index.ts';
import { LanguagePicker } from './language-picker.tsx';
import { labelText } from './status-label.tsx';

const Overview = lazyView(() => import('./overview.tsx').then((m) => m.Overview));
const Invoices = lazyView(() => import('./invoices.tsx').then((m) => m.Invoices));
const InvoiceDetail = lazyView(() => import('./invoice.tsx').then((m) => m.InvoiceDetail));
const Payouts = lazyView(() => import('./payouts.tsx').then((m) => m.Payouts));
const PayoutDetail = lazyView(() => import('./payouts.tsx').then((m) => m.PayoutDetail));
const NewPayout = lazyView(() => import('./payouts.tsx').then((m) => m.NewPayout));
const Wallets = lazyView(() => import('./wallets.tsx').then((m) => m.Wallets));
const WalletDetail = lazyView(() => import('./wallets.tsx').then((m) => m.WalletDetail));
const Webhooks = lazyView(() => import('./webhooks.tsx').then((m) => m.Webhooks));
const Unmatched = lazyView(() => import('./unmatched.tsx').then((m) => m.Unmatched));
const Settings = lazyView(() => import('./settings.tsx').then((m) => m.Settings));

const NAV: Array<{ to: string; label: MessageKey }> = [
  { to: '/', label: 'nav_overview' },
  { to: '/invoices', label: 'nav_invoices' },
  { to: '/wallets', label: 'nav_wallets' },
  { to: '/payouts', label: 'nav_payouts' },
  { to: '/webhooks', label: 'nav_webhooks' },
  { to: '/unmatched', label: 'nav_unmatched' },
  { to: '/settings', label: 'nav_settings' },
];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function View({ path }: { path: string }) {
  const parts = path.split('/').filter(Boolean);
  if (path === '/') return <Overview />;
  if (path === '/invoices') return <Invoices />;
  if (parts[0] === 'invoices' && parts[1] && UUID.test(parts[1])) return <InvoiceDetail id={parts[1]} />;
  if (path === '/wallets') return <Wallets />;
  if (parts[0] === 'wallets' && parts[1] && UUID.test(parts[1])) return <WalletDetail id={parts[1]} />;
  if (path === '/webhooks') return <Webhooks />;
  if (path === '/payouts') return <Payouts />;
  if (path === '/payouts/new') return <NewPayout />;
  if (parts[0] === 'payouts' && parts[1] && UUID.test(parts[1])) return <PayoutDetail id={parts[1]} />;
  if (path === '/unmatched') return <Unmatched />;
  if (path === '/settings') return <Settings />;
  return (
    <section class="view">
      <h1>{t('not_found_title')}</h1>
      <p>
        {t('not_found_body')} <Link to="/">{t('not_found_link')}</Link>.
      </p>
    </section>
  );
}

export function App(props: { store?: Store }) {
  const [store] = useState(() => props.store ?? createStore());
  return (
    <StoreContext.Provider value={store}>
      <Root />
    </StoreContext.Provider>
  );
}

function Root() {
  const { followTheme, loadMe, me } = useStore();
  useEffect(() => {
    void setLanguage(null); // the browser's language until /me says the user's own
    if (current.value.path !== '/set-password') void loadMe();
    return followTheme();
  }, []);
  const path = current.value.path;
  if (path === '/set-password') return <SetPassword />;
  const m = me.value;
  if (m === undefined) return <p class="loading boot" aria-busy="true"><span class="spinner" aria-hidden="true" /> {t('loading')}</p>;
  if (m === null) return <SignIn />;
  return <Shell me={m} path={path} />;
}

function Shell({ me: m, path }: { me: Me; path: string }) {
  const { api, chooseMerchant, flash, signedOut } = useStore();
  const section = '/' + (path.split('/')[1] ?? '');
  const note = flash.value?.path === path ? flash.value : null; // a note belongs to its view
  return (
    <div class="shell">
      <a class="skip" href="#main">
        {t('skip')}
      </a>
      <header class="top">
        <div class="brand">
          <span class="logo" aria-hidden="true">◆</span>
          <span>{m.merchant.name}</span>
          {m.test_mode && <span class="badge tone-test">{t('test_mode')}</span>}
        </div>
        <nav aria-label={t('nav_main')}>
          <ul>
            {NAV.map((n) => (
              <li key={n.to}>
                <Link to={n.to} aria-current={section === n.to ? 'page' : undefined}>
                  {t(n.label)}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div class="account">
          {m.merchants && (
            <label class="merchant-pick">
              <span class="sr-only">{t('merchant')}</span>
              <select value={m.merchant.id} onChange={(e) => chooseMerchant((e.currentTarget as HTMLSelectElement).value)}>
                {m.merchants.map((x) => (
                  <option key={x.id} value={x.id}>
                    {x.name}
                  </option>
                ))}
              </select>
            </label>
          )}
          <LanguagePicker />
          <ThemePicker />
          <span class="who" title={m.user.email}>
            {m.user.email} <span class="muted">({labelText('role', m.user.role)})</span>
          </span>
          <button
            type="button"
            class="btn small"
            onClick={() => {
              void api.post(authApi.logout, {}).finally(signedOut);
            }}
          >
            {t('sign_out')}
          </button>
        </div>
      </header>
      {note && (
        <div class={`flash tone-${note.tone === 'ok' ? 'ok' : 'bad'}`} role="status">
          <span>{note.text}</span>
          <button type="button" class="btn ghost small" aria-label={t('dismiss')} onClick={() => (flash.value = null)}>
            ×
          </button>
        </div>
      )}
      <main id="main">
        <View path={path} />
      </main>
    </div>
  );
}
