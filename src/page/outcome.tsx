// The screens after a payment is sent, and the invoice's final states.
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { lazyView } from '../ui-kit/lazy.tsx';
import { useT } from './i18n/index.ts';
import type { PayerInvoice } from '../contracts/payer.ts';
import type { Screen } from './store.ts';
import { Hero, StoreLink, useAmount, type HeroTone } from './ui.tsx';
import { webHref } from '../ui-kit/links.ts';
import { CheckGlyph, ClockGlyph, CrossGlyph, InfoGlyph, LockGlyph, RefreshGlyph, WarnGlyph } from './icons.tsx';

const Receipt = lazyView(() => import('./receipt.tsx').then((m) => m.Receipt));

export function Progress({ current, required }: { current: number; required: number }) {
  const t = useT();
  const shown = Math.min(current, required);
  return (
    <div class="confirmations">
      <p id="conf-label">
        {current > 0 ? t('confirmations', { current: shown, required }) : t('confirmations_wait')}
      </p>
      <progress max={required} value={shown} aria-labelledby="conf-label" />
    </div>
  );
}

export function Confirming({ invoice }: { invoice: PayerInvoice }) {
  const t = useT();
  const amount = useAmount();
  const currency = invoice.payer_currency ?? invoice.currency;
  const seen = invoice.payment_amount ?? invoice.payer_amount;
  return (
    <Hero tone="progress" icon={<RefreshGlyph class="glyph spin" />} title={t('check_title')}>
      <p class="lead">{t('check_body')}</p>
      {invoice.confirmations ? (
        <Progress current={invoice.confirmations.current} required={invoice.confirmations.required} />
      ) : (
        <div class="confirmations">
          <p>{t('confirmations_wait')}</p>
        </div>
      )}
      {seen && (
        <dl class="summary">
          <div>
            <dt>{t('amount_to_pay')}</dt>
            <dd class="num">{amount(invoice.payer_amount ?? seen, currency)}</dd>
          </div>
          <div>
            <dt>{t('order_total')}</dt>
            <dd class="num">{amount(invoice.amount, invoice.currency, true)}</dd>
          </div>
        </dl>
      )}
    </Hero>
  );
}

/** The transaction, for the payer's records or a talk with the merchant. */
function TxRow({ invoice }: { invoice: PayerInvoice }) {
  const t = useT();
  if (!invoice.txid) return null;
  return (
    <div class="tx">
      <dt>{t('transaction')}</dt>
      <dd class="mono txid">{invoice.txid}</dd>
    </div>
  );
}

/** A link to the transaction on the network's public explorer (none on a simulated network). */
function ExplorerLink({ invoice }: { invoice: PayerInvoice }) {
  const t = useT();
  const href = invoice.txid ? webHref(invoice.explorer_url) : null;
  if (!href) return null;
  return (
    <a class="btn btn-quiet" href={href} target="_blank" rel="noopener noreferrer">
      {t('view_tx')}{' '}
      <span class="sr-only">{t('new_tab')}</span>
    </a>
  );
}

export function Paid({ invoice, over }: { invoice: PayerInvoice; over: boolean }) {
  const t = useT();
  const amount = useAmount();
  const [receipt, setReceipt] = useState(false);
  if (receipt) return <Receipt invoice={invoice} onBack={() => setReceipt(false)} />;
  const currency = invoice.payer_currency ?? invoice.currency;
  const received = invoice.payment_amount ?? invoice.payer_amount;
  return (
    <Hero tone="success" icon={<CheckGlyph />} title={over ? t('paid_over_title') : t('paid_title')}>
      <p class="lead">{over ? t('paid_over_body', { id: invoice.order_id }) : t('paid_body')}</p>
      <dl class="summary">
        {received && (
          <div>
            <dt>{t('received')}</dt>
            <dd class="num strong">{amount(received, currency)}</dd>
          </div>
        )}
        <div>
          <dt>{t('order_total')}</dt>
          <dd class="num">{amount(invoice.amount, invoice.currency, true)}</dd>
        </div>
        <TxRow invoice={invoice} />
      </dl>
      <div class="actions">
        <StoreLink url={invoice.url_success ?? invoice.url_return} label={t('continue')} primary />
        <button type="button" class="btn btn-quiet" onClick={() => setReceipt(true)}>
          {t('receipt_view')}
        </button>
        <ExplorerLink invoice={invoice} />
      </div>
    </Hero>
  );
}

const OUTCOMES: Partial<Record<Screen, { tone: HeroTone; icon: () => JSX.Element }>> = {
  time_up: { tone: 'warn', icon: () => <ClockGlyph /> },
  unavailable: { tone: 'warn', icon: () => <WarnGlyph /> },
  wrong_amount: { tone: 'warn', icon: () => <WarnGlyph /> },
  cancel: { tone: 'neutral', icon: () => <ClockGlyph /> },
  fail: { tone: 'danger', icon: () => <CrossGlyph /> },
  system_fail: { tone: 'danger', icon: () => <WarnGlyph /> },
  refund_process: { tone: 'progress', icon: () => <RefreshGlyph /> },
  refund_paid: { tone: 'neutral', icon: () => <CheckGlyph /> },
  refund_fail: { tone: 'danger', icon: () => <CrossGlyph /> },
  locked: { tone: 'warn', icon: () => <LockGlyph /> },
};

type OutcomeScreen = Exclude<Screen, 'choose' | 'pay' | 'process' | 'partial' | 'check' | 'paid' | 'paid_over'>;

export function Outcome({ invoice, screen }: { invoice: PayerInvoice; screen: Screen }) {
  const t = useT();
  const amount = useAmount();
  const key = screen as OutcomeScreen;
  const look = OUTCOMES[key] ?? { tone: 'neutral' as const, icon: () => <InfoGlyph /> };
  const currency = invoice.payer_currency ?? invoice.currency;
  const showAmounts = key === 'wrong_amount' || key.startsWith('refund');
  return (
    <Hero tone={look.tone} icon={look.icon()} title={t(`${key}_title`)}>
      <p class="lead">{t(`${key}_body`, { id: invoice.order_id })}</p>
      <dl class="summary">
        <div>
          <dt>{t('order_number')}</dt>
          <dd>{invoice.order_id}</dd>
        </div>
        {showAmounts && invoice.payment_amount && (
          <div>
            <dt>{t('received')}</dt>
            <dd class="num">{amount(invoice.payment_amount, currency)}</dd>
          </div>
        )}
        {key === 'wrong_amount' && invoice.payer_amount && (
          <div>
            <dt>{t('amount_to_pay')}</dt>
            <dd class="num">{amount(invoice.payer_amount, currency)}</dd>
          </div>
        )}
        {key !== 'time_up' && key !== 'unavailable' && <TxRow invoice={invoice} />}
      </dl>
      <div class="actions">
        <StoreLink url={invoice.url_return} label={t('return')} primary={key !== 'time_up'} />
        {key !== 'time_up' && <ExplorerLink invoice={invoice} />}
      </div>
    </Hero>
  );
}
