// A recurrence (a subscription) as its payer sees it at /pay/recurrence/{uuid}: what they subscribe
// to, the choice of currency and network (the invoice chooser), the period's invoice to pay (the
// invoice page itself, in a frame), where it stands, and cancelling.
import { useState } from 'preact/hooks';
import { useI18n, useT, type MessageKey } from './i18n/index.ts';
import './i18n/recurrence-english.ts';
import type { PayerRecurrence } from '../contracts/payer.ts';
import { ApiError, subscribeRecurrence } from './api.ts';
import { ChooseList } from './choose.tsx';
import { useStore } from './store.ts';
import { Hero, useAmount } from './ui.tsx';
import { CheckGlyph, ClockGlyph, InfoGlyph, WarnGlyph } from './icons.tsx';
import { InvoiceFrame } from './recurrence-frame.tsx';
import { CancelSubscription } from './recurrence-cancel.tsx';
import { AutoPullNotice } from './recurrence-auto-pull.tsx';
import { lazyView } from '../ui-kit/lazy.tsx';

// Automatic renewals: its own chunk, asked for only on a subscription with a network chosen.
const AutoRenew = lazyView(() => import('./recurrence-allowance.tsx').then((m) => m.AutoRenew));
/** Subscribed (or subscribing, the choice made) with a network: automatic renewals may be offered. */
const mayAutoRenew = (rec: PayerRecurrence) => rec.auto_renew && rec.network !== null && rec.payer_currency !== null && (rec.status === 'active' || rec.status === 'wait_payment' || (rec.status === 'wait_accept' && rec.invoice_uuid !== null));

const EVERY: Record<PayerRecurrence['period'], MessageKey> = {
  weekly: 'rec_every_weekly',
  monthly: 'rec_every_monthly',
  three_month: 'rec_every_three_month',
};

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A day in the payer's language and time zone: "December 5, 2026". */
export function formatDay(unixSeconds: number, locale: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'long' }).format(unixSeconds * 1000);
}

export function RecurrenceView({ recurrence: rec }: { recurrence: PayerRecurrence }) {
  const t = useT();
  const locale = useI18n().locale.value;
  const day = (s: number | null) => (s === null ? '' : formatDay(s, locale));
  if (rec.status === 'cancel_by_user' || rec.status === 'cancel_by_merchant') {
    return (
      <Hero tone="neutral" icon={<InfoGlyph />} title={t('rec_cancelled_title')}>
        <p class="lead">{t('rec_cancelled_body')}</p>
        <p class="subtitle-strong">{rec.name}</p>
        <Summary rec={rec} />
      </Hero>
    );
  }
  if (rec.status === 'inactive') {
    return (
      <Hero tone="warn" icon={<WarnGlyph />} title={t('rec_inactive_title')}>
        <p class="lead">{t('rec_inactive_body')}</p>
        <p class="subtitle-strong">{rec.name}</p>
        <Summary rec={rec} />
      </Hero>
    );
  }
  if (rec.status === 'active') {
    return (
      <Hero tone="success" icon={<CheckGlyph />} title={rec.name}>
        <p class="rec-state" role="status">
          {t('rec_active', { date: day(rec.next_payment_at) })}
        </p>
        <Summary rec={rec} />
        {mayAutoRenew(rec) && <AutoRenew rec={rec} />}
        <CancelSubscription rec={rec} />
      </Hero>
    );
  }
  return (
    <section class="screen" aria-labelledby="screen-title">
      <Head rec={rec} />
      <Summary rec={rec} />
      {rec.status === 'wait_payment' && rec.auto_pull === null && (
        <p class="rec-state is-due" role="status">
          <ClockGlyph /> {t('rec_due_body', { date: day(rec.pay_before) })}
        </p>
      )}
      {rec.status === 'wait_payment' && rec.auto_pull !== null ? (
        // Collected from the approved wallet: no invoice to pay by hand (that would pay twice).
        <AutoPullNotice pull={rec.auto_pull} />
      ) : rec.invoice_uuid ? (
        <>
          <h2 class="subtitle-strong">{t(rec.status === 'wait_payment' ? 'rec_due_title' : 'rec_first_title')}</h2>
          {rec.status === 'wait_accept' && <p class="lead">{t('rec_first_body')}</p>}
          <InvoiceFrame uuid={rec.invoice_uuid} />
        </>
      ) : (
        <Subscribe rec={rec} />
      )}
      {mayAutoRenew(rec) && <AutoRenew rec={rec} />}
      {rec.can_cancel && <CancelSubscription rec={rec} />}
    </section>
  );
}

function Head({ rec }: { rec: PayerRecurrence }) {
  const t = useT();
  return (
    <div>
      <p class="subtitle">{t('rec_label')}</p>
      <h1 id="screen-title" class="title" tabIndex={-1}>
        {rec.name}
      </h1>
    </div>
  );
}

/** What is subscribed to: the price per period, the introductory price, how it is paid, the next date. */
function Summary({ rec }: { rec: PayerRecurrence }) {
  const t = useT();
  const amount = useAmount();
  const locale = useI18n().locale.value;
  const ended = rec.status !== 'active' && rec.status !== 'wait_payment' && rec.status !== 'wait_accept';
  return (
    <dl class="summary">
      <div>
        <dt>{t('rec_price')}</dt>
        <dd class="num strong">{t(EVERY[rec.period], { amount: amount(rec.amount, rec.currency, true) })}</dd>
      </div>
      {rec.discount_amount !== null && rec.discount_days !== null && (
        <div>
          <dt>{t('rec_intro')}</dt>
          <dd class="num">{t('rec_intro_value', { amount: amount(rec.discount_amount, rec.currency, true), days: rec.discount_days })}</dd>
        </div>
      )}
      {rec.payer_currency && rec.network_name && (
        <div>
          <dt>{t('rec_pay_with')}</dt>
          <dd>{t('on_network', { currency: rec.payer_currency, network: rec.network_name })}</dd>
        </div>
      )}
      {!ended && rec.next_payment_at !== null && rec.status === 'active' && (
        <div>
          <dt>{t('rec_next')}</dt>
          <dd>{formatDay(rec.next_payment_at, locale)}</dd>
        </div>
      )}
    </dl>
  );
}

/** The email for reminders, then the chooser: picking a currency and network subscribes. */
function Subscribe({ rec }: { rec: PayerRecurrence }) {
  const t = useT();
  const store = useStore();
  const i18n = useI18n();
  const [email, setEmail] = useState('');
  const [invalid, setInvalid] = useState(false);
  const options = rec.options ?? [];
  async function pick(currency: string, network: string): Promise<boolean> {
    const typed = email.trim();
    if (typed !== '' && !EMAIL.test(typed)) {
      setInvalid(true);
      document.getElementById('rec-email')?.focus();
      return false;
    }
    try {
      await subscribeRecurrence(rec.uuid, { currency, network, ...(typed ? { email: typed } : {}), lang: i18n.lang.value });
    } catch (e) {
      // Subscribed (and paid) from another tab, or ended meanwhile: the list stays with the refusal
      // worded in the payer's language (ChooseList), and the page reads where it stands.
      if (e instanceof ApiError && e.code === 'not_waiting') store.refresh();
      throw e;
    }
    store.refresh();
    return true;
  }
  if (options.length === 0) {
    return (
      <Hero tone="warn" icon={<WarnGlyph />} title={t('unavailable_title')}>
        <p class="lead">{t('load_error_body')}</p>
      </Hero>
    );
  }
  return (
    <>
      <div class="rec-email">
        <label for="rec-email" class="label">
          {t('rec_email')}
        </label>
        <input
          id="rec-email"
          type="email"
          autocomplete="email"
          inputMode="email"
          value={email}
          aria-invalid={invalid}
          aria-describedby={invalid ? 'rec-email-error' : undefined}
          onInput={(e) => {
            setEmail(e.currentTarget.value);
            setInvalid(false);
          }}
        />
        {invalid && (
          <p id="rec-email-error" class="form-error" role="alert">
            {t('rec_email_invalid')}
          </p>
        )}
      </div>
      <h2 class="subtitle-strong">{t('rec_choose')}</h2>
      <ChooseList options={options} onPick={pick} />
    </>
  );
}
