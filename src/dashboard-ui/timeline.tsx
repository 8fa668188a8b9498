// An invoice's timeline in the user's language: the server sends each event as a code with its
// parameters (src/contracts/dashboard/invoices.ts TimelineEvent), worded here with the amounts and
// statuses of the language; the code and its raw parameters stay on the row's tooltip.
import type { TimelineEvent } from '../contracts/dashboard/invoices.ts';
import { amount, time } from './format.ts';
import { t } from './i18n/index.ts';
import { labelText } from './status-label.tsx';

/** The sentence of one event. */
export function timelineSentence(e: Pick<TimelineEvent, 'code' | 'params'>): string {
  const p = e.params;
  const money = amount(p.amount ?? null, p.currency ?? null);
  switch (e.code) {
    case 'created':
      return t('tl_created', { amount: money });
    case 'transfer_seen':
      return t('tl_transfer_seen', { amount: money, network: p.network ?? '' });
    case 'transfer_confirmed':
      return t('tl_transfer_confirmed', { amount: money });
    case 'transfer_dropped':
      return t('tl_transfer_dropped', { amount: money });
    case 'webhook_queued':
      return p.status ? t('tl_webhook_queued_status', { status: labelText('invoice', p.status) }) : t('tl_webhook_queued');
    case 'refund_requested':
      return t('tl_refund_requested', { amount: money, status: labelText('payout', p.status ?? '') });
    case 'expires':
      return t('tl_expires');
  }
}

/** The raw event as the server sent it: its code and parameters. */
function raw(e: TimelineEvent): string {
  return [e.code, ...Object.entries(e.params).map(([k, v]) => `${k}=${v}`)].join(' ');
}

export function Timeline({ events }: { events: TimelineEvent[] }) {
  return (
    <ol class="timeline">
      {events.map((e, i) => (
        <li key={i} title={raw(e)} data-code={e.code}>
          <span class="muted small">{time(e.at)}</span>
          <br />
          {timelineSentence(e)}
        </li>
      ))}
    </ol>
  );
}
