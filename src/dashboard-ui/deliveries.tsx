// Webhook deliveries with their attempts and the exact body sent: the webhooks view and a static
// wallet's detail show them the same way. "Retry now" is offered (to owners) on failing and
// waiting ones.
import type { Delivery } from '../contracts/dashboard/webhooks.ts';
import { Attempts, BodySent } from './attempts.tsx';
import { time } from './format.ts';
import { Badge, Link } from './ui.tsx';
import { labelText } from './status-label.tsx';

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
                {h.status_sent && <span class="muted small"> · sent status {h.status_sent.replace(/_/g, ' ')}</span>}
              </div>
              {onRetry && h.status !== 'delivered' && (
                <button type="button" class="btn small" disabled={busy === h.id} onClick={() => onRetry(h)}>
                  Retry now<span class="sr-only"> the webhook for {h.order_id ?? h.ref_id}</span>
                </button>
              )}
            </div>
            <p class="muted small delivery-meta">
              {time(h.created_at)} · {h.attempts.length} attempt{h.attempts.length === 1 ? '' : 's'}
              {last && ` · last: ${last.http_status ?? 'no answer'}`}
              {h.next_attempt_at !== null && ` · next ${time(h.next_attempt_at)}`}
            </p>
            <details>
              <summary>
                Attempts and body<span class="sr-only"> of the webhook for {h.order_id ?? h.ref_id}</span>
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
