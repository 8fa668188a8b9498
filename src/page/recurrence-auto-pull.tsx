// A renewal that the gateway collects itself from the payer's approved allowance: the page says so
// instead of showing the renewal's invoice, since a payer who paid it by hand as well would pay the
// period twice. The pull's transaction is linked once it is sent. Should the pull fall back (the
// allowance revoked or short), the payer view's `auto_pull` turns null and the invoice shows again.
import { useT, type MessageKey } from './i18n/index.ts';
import './i18n/recurrence-english.ts';
import type { PayerAutoPull } from '../contracts/payer.ts';
import { webHref } from '../ui-kit/links.ts';
import { ClockGlyph } from './icons.tsx';

const STATE: Record<PayerAutoPull['status'], MessageKey> = {
  pending: 'rec_auto_body',
  sent: 'rec_auto_sent',
  confirmed: 'rec_auto_confirmed',
};

export function AutoPullNotice({ pull }: { pull: PayerAutoPull }) {
  const t = useT();
  const href = pull.txid ? webHref(pull.explorer_url) : null;
  return (
    <div class="rec-auto">
      <h2 class="subtitle-strong">{t('rec_auto_title')}</h2>
      <p class="rec-state" role="status">
        <ClockGlyph /> {t(STATE[pull.status])}
      </p>
      {pull.txid && (
        <dl class="summary">
          <div class="tx">
            <dt>{t('transaction')}</dt>
            <dd class="mono txid">{pull.txid}</dd>
          </div>
        </dl>
      )}
      {href && (
        <a class="btn btn-quiet" href={href} target="_blank" rel="noopener noreferrer">
          {t('view_tx')} <span class="sr-only">{t('new_tab')}</span>
        </a>
      )}
    </div>
  );
}
