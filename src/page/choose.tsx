// The payer picks a currency and network when the merchant left the choice open.
import { useState } from 'preact/hooks';
import { useT, type MessageKey, type Translate } from './i18n/index.ts';
import type { PayerCurrencyOption, PayerInvoice, SubscribeRefusal } from '../contracts/payer.ts';
import { useStore } from './store.ts';
import { CoinIcon, StoreLink, useAmount } from './ui.tsx';
import { SearchGlyph } from './icons.tsx';
import { ApiError } from './api.ts';

/**
 * Options whose currency code, name or network contain every word of the query, each keeping only
 * the networks that match: "usdt tron" shows USDT on TRON alone, "usdt" every USDT network.
 */
export function filterOptions(options: PayerCurrencyOption[], query: string): PayerCurrencyOption[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return options;
  const shown: PayerCurrencyOption[] = [];
  for (const option of options) {
    const networks = option.networks.filter((n) => {
      const haystack = `${option.currency} ${option.name} ${n.network} ${n.network_name}`.toLowerCase();
      return words.every((word) => haystack.includes(word));
    });
    if (networks.length > 0) shown.push(networks.length === option.networks.length ? option : { ...option, networks });
  }
  return shown;
}

/** The payer API's refusals of a choice (an invoice's) or a subscription (a recurrence's), as the page words them. */
const REFUSALS: Record<SubscribeRefusal, MessageKey> = {
  choice_missing: 'choose_refused_choice_missing',
  not_available: 'choose_refused_not_available',
  already_chosen: 'choose_refused_already_chosen',
  expired: 'choose_refused_expired',
  not_waiting: 'choose_refused_not_waiting',
};

/** Why the choice failed, in the payer's language when the server said it with a code the page knows. */
function refusal(t: Translate, e: unknown): string {
  if (!(e instanceof ApiError)) return t('load_error_body');
  const key = e.code !== null && Object.hasOwn(REFUSALS, e.code) ? REFUSALS[e.code as SubscribeRefusal] : null;
  return key ? t(key) : e.message;
}

export function Choose({ invoice }: { invoice: PayerInvoice }) {
  const t = useT();
  const store = useStore();
  return (
    <section class="screen" aria-labelledby="screen-title">
      <h1 id="screen-title" class="title" tabIndex={-1}>
        {t('choose_title')}
      </h1>
      <ChooseList options={invoice.options ?? []} onPick={(currency, network) => store.choose(currency, network)} />
      <StoreLink url={invoice.url_return} label={t('cancel_return')} />
    </section>
  );
}

/**
 * The searchable list of currencies and their networks, each network a button; `onPick` makes the
 * choice (an invoice's, or a recurrence's subscription) and throws the payer API's refusal, or
 * answers false when it did not ask.
 */
export function ChooseList({ options, onPick }: { options: PayerCurrencyOption[]; onPick: (currency: string, network: string) => Promise<unknown> }) {
  const t = useT();
  const amount = useAmount();
  const store = useStore();
  const [query, setQuery] = useState('');
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const shown = filterOptions(options, query);

  async function pick(currency: string, network: string) {
    if (busy) return;
    setBusy(`${currency}/${network}`);
    setError(null);
    store.announce(t('choose_wait'));
    try {
      // false: the page refused it before asking (its own message is shown); the list is usable again.
      if ((await onPick(currency, network)) === false) setBusy(null);
    } catch (e) {
      setError(t('choose_failed', { message: refusal(t, e) }));
      setBusy(null);
    }
  }

  return (
    <>
      {options.length > 1 && (
        <div class="search">
          <SearchGlyph />
          <input
            type="search"
            value={query}
            onInput={(e) => setQuery(e.currentTarget.value)}
            aria-label={t('choose_search')}
            placeholder={t('choose_search')}
            autocomplete="off"
            spellcheck={false}
          />
        </div>
      )}
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      {shown.length === 0 ? (
        <p class="muted empty">{t('choose_none', { query })}</p>
      ) : (
        <ul class="options">
          {shown.map((option) => (
            <li class="option" key={option.currency}>
              <div class="option-head">
                <CoinIcon currency={option.currency} size={32} />
                <span class="option-name">
                  <strong>{option.currency}</strong> <span class="muted">{option.name}</span>
                </span>
              </div>
              <ul class="networks">
                {option.networks.map((n) => {
                  const key = `${option.currency}/${n.network}`;
                  return (
                    <li key={n.network}>
                      <button
                        type="button"
                        class="network"
                        onClick={() => pick(option.currency, n.network)}
                        disabled={busy !== null}
                        aria-busy={busy === key}
                      >
                        {/* The visible text is the name (WCAG 2.5.3); the amount carries the currency. */}
                        <span class="network-name">{n.network_name}</span>{' '}
                        <span class="network-amount num">{amount(n.amount, option.currency)}</span>
                      </button>
                    </li>
                  );
                })}
              </ul>
            </li>
          ))}
        </ul>
      )}
      {busy && <p class="muted center">{t('choose_wait')}</p>}
    </>
  );
}
