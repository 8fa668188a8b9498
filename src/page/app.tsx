// The page: header, the current screen, test-mode tools and the live region.
import { useEffect, useState } from 'preact/hooks';
import { I18nContext, LANGUAGES, useI18n, useT, type Lang } from './i18n/index.ts';
import { createStore, screenTitle, StoreContext, useStore, type Store, type StoreEnv } from './store.ts';
import { InvoiceView } from './invoice.tsx';
import { lazyView } from '../ui-kit/lazy.tsx';
import { CrossGlyph, InfoGlyph, WarnGlyph } from './icons.tsx';
import { Hero, useAmount } from './ui.tsx';

const WalletView = lazyView(() => import('./wallet.tsx').then((m) => m.WalletView));
const RecurrenceView = lazyView(() => import('./recurrence.tsx').then((m) => m.RecurrenceView));
const Simulator = lazyView(() => import('./simulator.tsx').then((m) => m.Simulator));

export function App(props: Partial<StoreEnv> & { store?: Store }) {
  const [store] = useState(() => props.store ?? createStore({ win: props.win ?? window, monotonic: props.monotonic }));
  useEffect(() => store.start(), [store]);
  return (
    <StoreContext.Provider value={store}>
      <I18nContext.Provider value={store.i18n}>
        <Page />
      </I18nContext.Provider>
    </StoreContext.Provider>
  );
}

function Page() {
  const store = useStore();
  const t = useT();
  const payable = store.payable.value;
  const screen = store.screen.value;
  const reconnecting = store.failures.value > 0 && !store.fatal.value;

  useFocusOnChange(store.fatal.value ?? screen);

  useEffect(() => {
    const title =
      store.fatal.value
        ? t('not_found_title')
        : screen === 'wallet'
          ? t('wallet_title')
          : screen === 'recurrence' && payable?.kind === 'recurrence'
            ? payable.name
            : screen && screen !== 'recurrence'
              ? t(screenTitle(screen))
              : t('loading');
    document.title = title;
  });

  let body;
  if (store.fatal.value === 'not_found') {
    body = (
      <Hero tone="neutral" icon={<InfoGlyph />} title={t('not_found_title')}>
        <p class="lead">{t('not_found_body')}</p>
      </Hero>
    );
  } else if (!payable || !screen || !store.i18n.ready.value) {
    body = reconnecting ? (
      <Hero tone="warn" icon={<WarnGlyph />} title={t('load_error_title')}>
        <p class="lead">{t('load_error_body')}</p>
      </Hero>
    ) : (
      <div class="loading" aria-busy="true">
        <span class="spinner" aria-hidden="true" />
        <p>{t('loading')}</p>
      </div>
    );
  } else if (payable.kind === 'wallet') {
    body = <WalletView wallet={payable} />;
  } else if (payable.kind === 'recurrence') {
    body = <RecurrenceView recurrence={payable} />;
  } else if (screen !== 'wallet' && screen !== 'recurrence') {
    body = <InvoiceView invoice={payable} screen={screen} />;
  }

  return (
    // Nested: the subscription page of this gateway shows this invoice in its frame, and has the
    // test banner and the language picker itself.
    <div class={store.embed ? `page is-embed is-${store.embed.mode}${store.embed.origin === location.origin ? ' is-nested' : ''}` : 'page'}>
      {payable?.test_mode && (
        <aside class="test-banner" aria-label={t('test_mode')}>
          <strong>{t('test_mode')}</strong> <span>{t('test_mode_body')}</span>
        </aside>
      )}
      <main class="card">
        <Header />
        {reconnecting && (
          <p class="reconnecting">
            <span class="spinner spinner-small" aria-hidden="true" />
            {t('reconnecting')}
          </p>
        )}
        {body}
      </main>
      {payable?.test_mode && payable.kind !== 'recurrence' && <Simulator payable={payable} />}
      <div class="sr-only" aria-live="polite" aria-atomic="true">
        {store.announcement.value}
      </div>
    </div>
  );
}

/**
 * When the screen changes under the payer (a choice made, a payment seen), the control they were
 * on may be gone; put focus on the new screen's heading so keyboard and screen reader users are
 * not left at the top of the document. Not on the first screen: an embedded page must not steal
 * focus from the merchant's page.
 */
function useFocusOnChange(key: string | null) {
  const [first, setFirst] = useState<string | null>(null);
  useEffect(() => {
    if (!key) return;
    if (first === null) {
      setFirst(key);
      return;
    }
    let tries = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const attempt = () => {
      const active = document.activeElement;
      if (active && active !== document.body && document.contains(active)) return;
      const title = document.getElementById('screen-title');
      if (title) title.focus();
      else if (++tries < 20) timer = setTimeout(attempt, 50); // a lazily loaded screen
    };
    attempt();
    return () => clearTimeout(timer);
  }, [key]);
}

function Header() {
  const store = useStore();
  const t = useT();
  const amount = useAmount();
  const payable = store.payable.value;
  const merchant = payable?.merchant;
  return (
    <header class="card-head">
      <div class="order">
        {merchant && (merchant.display_name || merchant.logo_url) && (
          <p class="merchant">
            {merchant.logo_url && (
              // Beside the name the logo is decoration; alone, it is the only sign of who is paid.
              <img class="merchant-logo" src={merchant.logo_url} alt={merchant.display_name ? '' : t('merchant_logo')} height={32} />
            )}
            {merchant.display_name && <span class="merchant-name">{merchant.display_name}</span>}
          </p>
        )}
        {payable?.kind === 'invoice' && (
          <>
            <span class="order-id">{t('order', { id: payable.order_id })}</span>
            <span class="order-total">{amount(payable.amount, payable.currency, true)}</span>
          </>
        )}
      </div>
      <LanguagePicker />
      {store.embed?.mode === 'modal' && (
        <button type="button" class="icon-btn" onClick={() => store.requestClose()} aria-label={t('close')} title={t('close')}>
          <CrossGlyph />
        </button>
      )}
    </header>
  );
}

function LanguagePicker() {
  const i18n = useI18n();
  const t = useT();
  return (
    <label class="lang">
      <span class="sr-only">{t('language')}</span>
      <select
        value={i18n.lang.value}
        onChange={(e) => {
          const lang = e.currentTarget.value as Lang;
          void i18n.setLanguage(lang);
          rememberLanguage(lang);
        }}
      >
        {LANGUAGES.map((l) => (
          <option key={l.code} value={l.code} lang={l.code}>
            {l.name}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Keep the choice across reloads by putting it in the URL (no storage needed). */
function rememberLanguage(lang: Lang) {
  try {
    const url = new URL(location.href);
    url.searchParams.set('lang', lang);
    history.replaceState(history.state, '', url);
  } catch {
    // history may be unavailable in unusual embeddings; the choice still applies now
  }
}
