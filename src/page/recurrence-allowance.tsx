// "Approve automatic renewals" (docs/recurring.md): on a subscription paid with a token on an EVM
// network that offers it, the payer approves the gateway's collector once from a browser wallet (then signs a message proving the address is theirs);
// each period exactly one period's amount is then taken when due. The terms (cap, amount per
// period, period, next date, collector, how to revoke) are shown before the wallet is asked
// anything. Loaded lazily from ./recurrence.tsx, only for a subscription on a chosen network.
import { useEffect, useState } from 'preact/hooks';
import { useI18n, useT, type MessageKey } from './i18n/index.ts';
import type { PayerAllowance, PayerRecurrence } from '../contracts/payer.ts';
import { ApiError, allowance } from './api.ts';
import { useAmount } from './ui.tsx';
import { WalletGlyph } from './icons.tsx';
import { useBrowserWallets, type BrowserWallet } from './wallets.ts';
import { WalletError, approveWithWallet, signWithWallet } from './evm-tx.ts';
import { allowanceMessage } from '../contracts/allowance-message.ts';

const EVERY: Record<PayerRecurrence['period'], MessageKey> = {
  weekly: 'rec_every_weekly',
  monthly: 'rec_every_monthly',
  three_month: 'rec_every_three_month',
};

type State = { kind: 'idle' } | { kind: 'busy'; wallet: string; step: 'approve' | 'sign' } | { kind: 'on' } | { kind: 'error'; message: string };

export function AutoRenew({ rec }: { rec: PayerRecurrence }) {
  const [terms, setTerms] = useState<PayerAllowance | null>(null);
  useEffect(() => {
    let live = true;
    // Not offered here (another network, a coin, no collector): the section is simply not shown.
    allowance(rec.uuid).then(
      (t) => live && setTerms(t),
      () => live && setTerms(null),
    );
    return () => {
      live = false;
    };
  }, [rec.uuid, rec.network, rec.payer_currency]);
  if (!terms || !terms.chain || !terms.chain.contract) return null;
  return <Terms uuid={rec.uuid} terms={terms} />;
}

function Terms({ uuid, terms }: { uuid: string; terms: PayerAllowance }) {
  const t = useT();
  const amount = useAmount();
  const locale = useI18n().locale.value;
  const wallets = useBrowserWallets(true);
  const on = terms.recorded?.status === 'active';
  const [state, setState] = useState<State>(on ? { kind: 'on' } : { kind: 'idle' });
  const chain = terms.chain!;

  async function approve(wallet: BrowserWallet) {
    setState({ kind: 'busy', wallet: wallet.id, step: 'approve' });
    try {
      const done = await approveWithWallet(wallet.provider, chain, terms.collector, terms.cap);
      // The approval is public: the signature proves the approving address is this payer's.
      setState({ kind: 'busy', wallet: wallet.id, step: 'sign' });
      const message = allowanceMessage({ uuid, network: terms.network, currency: terms.currency, token: terms.token, collector: terms.collector, cap: terms.cap });
      const signature = await signWithWallet(wallet.provider, done.address, message);
      await allowance(uuid, { ...done, signature });
      setState({ kind: 'on' });
    } catch (e) {
      const message = e instanceof WalletError || e instanceof ApiError ? e.message : String(e);
      setState({ kind: 'error', message });
    }
  }

  const next = terms.next_pull_at === null ? t('allow_next_first') : new Intl.DateTimeFormat(locale, { dateStyle: 'long' }).format(Date.parse(terms.next_pull_at));
  let message = '';
  if (state.kind === 'busy') message = t(state.step === 'sign' ? 'allow_sign' : 'allow_confirm');
  else if (state.kind === 'on') message = t('allow_on');
  else if (state.kind === 'error') message = t('allow_failed', { message: state.message });

  return (
    <section class="auto-renew" aria-labelledby="allow-title">
      <h2 id="allow-title" class="subtitle-strong">
        {t('allow_title')}
      </h2>
      <p class="lead">{t('allow_body')}</p>
      <dl class="summary">
        <div>
          <dt>{t('allow_cap')}</dt>
          <dd class="num strong">{t('allow_cap_value', { amount: amount(terms.cap, terms.currency, true), periods: terms.periods })}</dd>
        </div>
        <div>
          <dt>{t('allow_per_period')}</dt>
          <dd class="num">{t(EVERY[terms.period], { amount: amount(terms.amount_per_period, terms.currency, true) })}</dd>
        </div>
        <div>
          <dt>{t('allow_next')}</dt>
          <dd>{next}</dd>
        </div>
        <div>
          <dt>{t('allow_collector')}</dt>
          <dd class="mono txid" translate={false}>
            {terms.collector}
          </dd>
        </div>
      </dl>
      <p id="allow-revoke" class="lead">
        {t('allow_revoke', { collector: terms.collector, currency: terms.currency, token: terms.token })}
      </p>
      <div class="wallet-pay">
        {state.kind !== 'on' &&
          wallets.slice(0, 3).map((wallet) => (
            <button
              key={wallet.id}
              type="button"
              class="btn btn-primary"
              disabled={state.kind === 'busy'}
              aria-busy={state.kind === 'busy' && state.wallet === wallet.id}
              aria-describedby="allow-revoke"
              onClick={() => void approve(wallet)}
            >
              {wallet.icon ? <img class="wallet-icon" src={wallet.icon} alt="" width={24} height={24} /> : <WalletGlyph />}
              {wallet.name ? t('allow_button', { wallet: wallet.name }) : t('allow_button_browser')}
            </button>
          ))}
        {state.kind !== 'on' && wallets.length === 0 && <p class="lead">{t('allow_no_wallet')}</p>}
        <p class={state.kind === 'error' ? 'wallet-msg is-error' : 'wallet-msg'} role="status" aria-live="polite" aria-atomic="true">
          {message}
        </p>
      </div>
    </section>
  );
}
