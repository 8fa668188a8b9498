// Webhook deliveries with their attempts and the exact body sent: the webhooks view and a static
// wallet's detail show them the same way. "Retry now" is offered (to owners) on failing and
// waiting ones.
import type { Delivery } from '../contracts/dashboard/webhooks.ts';
import { Attempts, BodySent } from './attempts.tsx';
import { time } from './format.ts';
import { Badge, Link } from './ui.tsx';
import { labelText } from './status-label.tsx';
import { t, type LabelFamily } from './i18n/index.ts';

/** Which label family the status inside a webhook of each kind belongs to. */
const SENT_FAMILY: Record<string, LabelFamily> = { payment: 'invoice', payout: 'payout', wallet: 'topup', unmatched: 'unmatched', recurrence: 'recurrence' };

/** The status a webhook carried, as its translated label (the code itself when no family knows it). */
function sentLabel(kind: string, code: string): string {
  const family = SENT_FAMILY[kind];
  return family ? labelText(family, code) : code;
}

export type { Delivery };

export function DeliveryList({ items, onRetry, busy }: { items: Delivery[]; onRetry?: (d: Delivery) => void; busy?: string | null }) {
  return (
    <ul class="stack plain deliveries">
      {items.map((h) => {
        const last = h.attempts.at(-1);
        return (
          <li key={h.id} class="delivery">
            <div class="delivery-head">
              <div class="delivery-what">
                <Badge value={h.status} kind="webhook" /> <span class="muted small">{labelText('webhook_kind', h.kind)}</span>{' '}
                {h.object ? <Link to={`/${h.object}`}>{h.order_id ?? h.ref_id}</Link> : <span class="mono">{h.order_id ?? h.ref_id}</span>}
                {h.status_sent && <span class="muted small"> · {t('dl_sent_status', { status: sentLabel(h.kind, h.status_sent) })}</span>}
              </div>
              {onRetry && h.status !== 'delivered' && (
                <button type="button" class="btn small" disabled={busy === h.id} onClick={() => onRetry(h)}>
                  {t('dl_retry')}<span class="sr-only"> {t('dl_retry_which', { ref: h.order_id ?? h.ref_id })}</span>
                </button>
              )}
            </div>
            <p class="muted small delivery-meta">
              {time(h.created_at)} · {t('attempts_count', { count: h.attempts.length })}
              {last && ` · ${t('dl_last', { answer: last.http_status ?? t('no_answer') })}`}
              {h.next_attempt_at !== null && ` · ${t('dl_next', { time: time(h.next_attempt_at) })}`}
            </p>
            <details>
              <summary>
                {t('dl_attempts_body')}<span class="sr-only"> {t('dl_of_webhook', { ref: h.order_id ?? h.ref_id })}</span>
              </summary>
              <p class="mono small break">{h.url}</p>
              <Attempts attempts={h.attempts} />
              <BodySent body={h.body} />
            </details>
          </li>
        );
      })}
    </ul>
  );
}
