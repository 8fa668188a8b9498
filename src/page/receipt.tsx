// The receipt of a paid invoice: who was paid, for which order, how much, on which network, the
// transaction and when. A screen of its own, printable (the print rules in styles.css keep only
// it, black on white).
import { useEffect, useRef } from 'preact/hooks';
import { useI18n, useT } from './i18n/index.ts';
import type { PayerInvoice } from '../contracts/payer.ts';
import { StoreLink, useAmount } from './ui.tsx';
import { webHref } from '../ui-kit/links.ts';

function formatDate(unixSeconds: number, locale: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeStyle: 'short' }).format(unixSeconds * 1000);
}

export function Receipt({ invoice, onBack }: { invoice: PayerInvoice; onBack: () => void }) {
  const t = useT();
  const amount = useAmount();
  const locale = useI18n().locale.value;
  const title = useRef<HTMLHeadingElement>(null);
  // The payer asked for it: their focus goes to it (the button they pressed is gone).
  useEffect(() => title.current?.focus(), []);
  const currency = invoice.payer_currency ?? invoice.currency;
  const paid = invoice.payment_amount ?? invoice.payer_amount;
  const explorer = invoice.txid ? webHref(invoice.explorer_url) : null;
  const merchant = invoice.merchant.display_name;
  return (
    <section class="screen receipt" aria-labelledby="receipt-title">
      <h1 id="receipt-title" class="title" tabIndex={-1} ref={title}>
        {t('receipt_title')}
      </h1>
      <dl class="summary receipt-list">
        {merchant && (
          <div>
            <dt>{t('receipt_merchant')}</dt>
            <dd>{merchant}</dd>
          </div>
        )}
        <div>
          <dt>{t('order_number')}</dt>
          <dd>{invoice.order_id}</dd>
        </div>
        {paid && (
          <div>
            <dt>{t('receipt_amount')}</dt>
            <dd class="num strong">{amount(paid, currency)}</dd>
          </div>
        )}
        <div>
          <dt>{t('order_total')}</dt>
          <dd class="num">{amount(invoice.amount, invoice.currency, true)}</dd>
        </div>
        {invoice.network_name && (
          <div>
            <dt>{t('receipt_network')}</dt>
            <dd>{invoice.network_name}</dd>
          </div>
        )}
        {invoice.txid && (
          <div class="tx">
            <dt>{t('transaction')}</dt>
            <dd class="mono txid">
              {explorer ? (
                <a href={explorer} target="_blank" rel="noopener noreferrer">
                  {invoice.txid}
                  <span class="sr-only"> {t('new_tab')}</span>
                </a>
              ) : (
                invoice.txid
              )}
            </dd>
          </div>
        )}
        {invoice.paid_at !== null && (
          <div>
            <dt>{t('receipt_date')}</dt>
            <dd>{formatDate(invoice.paid_at, locale)}</dd>
          </div>
        )}
      </dl>
      <div class="actions no-print">
        <button type="button" class="btn btn-primary" onClick={() => window.print()}>
          {t('receipt_print')}
        </button>
        <StoreLink url={invoice.url_success} label={t('receipt_back_to_shop')} />
        <button type="button" class="btn btn-quiet" onClick={onBack}>
          {t('receipt_back')}
        </button>
      </div>
    </section>
  );
}
