// The invoice's screens, one per state the payer can meet.
import { useEffect } from 'preact/hooks';
import { useT, useI18n } from './i18n/index.ts';
import type { PayerInvoice } from '../contracts/payer.ts';
import { formatDuration, formatTime } from './format.ts';
import { useStore, type Screen } from './store.ts';
import { lazyView } from '../ui-kit/lazy.tsx';
import { CoinIcon, CommentField, Field, LinkRequiredNote, Notice, OpenWallet, Qr, StoreLink, useAmount } from './ui.tsx';
import { ClockGlyph, WarnGlyph } from './icons.tsx';
import { useBrowserWallets } from './wallets.ts';

const Choose = lazyView(() => import('./choose.tsx').then((m) => m.Choose));
// Screens after the payment is sent are not needed to start paying: they load when reached.
const Confirming = lazyView(() => import('./outcome.tsx').then((m) => m.Confirming));
const Paid = lazyView(() => import('./outcome.tsx').then((m) => m.Paid));
const Outcome = lazyView(() => import('./outcome.tsx').then((m) => m.Outcome));
const Progress = lazyView(() => import('./outcome.tsx').then((m) => m.Progress));
// Paying from a browser wallet: loaded only on EVM invoices, once the browser has a wallet.
const EvmPay = lazyView(() => import('./evm-pay.tsx').then((m) => m.EvmPay));

export function InvoiceView({ invoice, screen }: { invoice: PayerInvoice; screen: Screen }) {
  switch (screen) {
    case 'choose':
      return <Choose invoice={invoice} />;
    case 'pay':
    case 'process':
    case 'partial':
      return <Pay invoice={invoice} partial={screen === 'partial'} />;
    case 'check':
      return <Confirming invoice={invoice} />;
    case 'paid':
    case 'paid_over':
      return <Paid invoice={invoice} over={screen === 'paid_over'} />;
    default:
      return <Outcome invoice={invoice} screen={screen} />;
  }
}

function Countdown({ invoice }: { invoice: PayerInvoice }) {
  const t = useT();
  const { left } = useStore();
  const locale = useI18n().locale.value;
  const seconds = left.value;
  if (seconds === null) return null;
  return (
    <div class={seconds <= 300 ? 'timer is-urgent' : 'timer'}>
      <ClockGlyph />
      <span id="timer-label" class="sr-only">
        {t('time_left')}
      </span>
      <span role="timer" aria-labelledby="timer-label" class="timer-value">
        {formatDuration(seconds, locale)}
      </span>
      <span class="timer-until">{t('pay_before', { time: formatTime(invoice.expired_at * 1000, locale) })}</span>
    </div>
  );
}

function networkLine(invoice: PayerInvoice, t: ReturnType<typeof useT>): string {
  return t('on_network', {
    currency: invoice.payer_currency ?? '',
    network: invoice.network_name ?? invoice.network ?? '',
  });
}

function Pay({ invoice, partial }: { invoice: PayerInvoice; partial: boolean }) {
  const t = useT();
  // Fetch the next screens while the payer is busy paying, so they show at once (even offline).
  useEffect(() => {
    const timer = setTimeout(() => Confirming.preload(), 2000);
    return () => clearTimeout(timer);
  }, []);
  const amount = useAmount();
  const currency = invoice.payer_currency ?? invoice.currency;
  const due = (partial ? invoice.remaining : invoice.payer_amount) ?? invoice.payer_amount ?? '';
  const network = invoice.network_name ?? invoice.network ?? '';
  const showFiat = invoice.currency !== currency;
  const wallets = useBrowserWallets(invoice.evm !== null && !!invoice.address);

  return (
    <section class="screen" aria-labelledby="screen-title">
      <div class="screen-head">
        <CoinIcon currency={currency} />
        <div>
          <h1 id="screen-title" class="title" tabIndex={-1}>
            {partial ? t('partial_title') : t('pay_title')}
          </h1>
          <p class="subtitle">{networkLine(invoice, t)}</p>
        </div>
      </div>
      <Countdown invoice={invoice} />
      {/* A payment seen but not yet final while more is still due (a part of it, unconfirmed). */}
      {invoice.confirmations && <Progress current={invoice.confirmations.current} required={invoice.confirmations.required} />}
      {partial && (
        <>
          <p class="lead">{t('partial_body')}</p>
          <dl class="summary">
            <div>
              <dt>{t('paid_so_far')}</dt>
              <dd class="num">{amount(invoice.payment_amount ?? '0', currency)}</dd>
            </div>
          </dl>
        </>
      )}
      <Field
        id="amount"
        label={partial ? t('still_due') : t('amount_to_pay')}
        value={amount(due, currency)}
        copy={due}
        copyLabel={t('copy_amount')}
      >
        {showFiat && !partial && <p class="fiat">{t('approx', { amount: amount(invoice.amount, invoice.currency, true) })}</p>}
      </Field>
      {wallets.length > 0 && <EvmPay key={due} invoice={invoice} wallets={wallets} due={due} />}
      {invoice.qr_content && (
        <Qr content={invoice.qr_content} alt={t('qr_alt', { amount: amount(due, currency), address: invoice.address ?? '' })} />
      )}
      {invoice.address && (
        <Field id="address" label={t('address')} value={invoice.address} copy={invoice.address} copyLabel={t('copy_address')} mono describedBy={invoice.link_required ? 'link-note' : undefined} />
      )}
      {invoice.address && invoice.link_required && <LinkRequiredNote />}
      {invoice.address && invoice.payment_comment && <CommentField comment={invoice.payment_comment} />}
      <Notice tone="warn" icon={<WarnGlyph />}>
        {t('warning', { currency, network })}
      </Notice>
      <div class="actions">
        <OpenWallet uri={invoice.wallet_uri} />
        {!partial && <StoreLink url={invoice.url_return} label={t('cancel_return')} />}
      </div>
    </section>
  );
}
