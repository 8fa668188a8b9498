// Webhook deliveries with their attempts and the exact body sent: the webhooks view and a static
// wallet's detail show them the same way. "Retry now" is offered (to owners) on failing and
// waiting ones.
import { time } from './format.ts';
import { Badge, Link, TableScroll } from './ui.tsx';


export interface Delivery {
  id: string;
  kind: string;
  ref_id: string;
  object: string | null;
  order_id: string | null;
  status_sent: string | null;
  url: string;
  status: string;
  failing: boolean;
  attempts: Array<{ at: number; http_status: number | null; latency_ms: number; error: string | null; answer: string | null }>;
  body: string;
  created_at: number;
  delivered_at: number | null;
  next_attempt_at: number | null;
}

const KIND: Record<string, string> = { payment: 'Invoice', wallet: 'Wallet top-up', payout: 'Payout' };

function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

export function DeliveryList({ items, onRetry, busy }: { items: Delivery[]; onRetry?: (d: Delivery) => void; busy?: string | null }) {
  return (
    <ul class="stack plain deliveries">
      {items.map((h) => {
        const last = h.attempts.at(-1);
        return (
          <li key={h.id} class="delivery">
            <div class="delivery-head">
              <div class="delivery-what">
                <Badge value={h.status} /> <span class="muted small">{KIND[h.kind] ?? h.kind}</span>{' '}
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
              {h.attempts.length > 0 && (
                <TableScroll label="Attempts">
                  <table>
                    <caption class="sr-only">Attempts</caption>
                    <thead>
                      <tr>
                        <th scope="col">Time</th>
                        <th scope="col">HTTP</th>
                        <th scope="col" class="num">Latency</th>
                        <th scope="col">Answer</th>
                      </tr>
                    </thead>
                    <tbody>
                      {h.attempts.map((a, i) => (
                        <tr key={i}>
                          <td class="nowrap">{time(a.at)}</td>
                          <td>{a.http_status ?? '—'}</td>
                          <td class="num">{a.latency_ms} ms</td>
                          <td class="mono small break">{a.error ?? a.answer ?? '(empty)'}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </TableScroll>
              )}
              <p class="small muted">Body sent</p>
              <pre class="body" tabIndex={0} aria-label="Body sent">
                {pretty(h.body)}
              </pre>
            </details>
          </li>
        );
      })}
    </ul>
  );
}
