// One webhook delivery's attempts (when, the HTTP status, how long, what came back) and the body it
// sent: the webhooks view, a static wallet's and an invoice's detail show them the same way.
import type { Attempt } from '../contracts/dashboard/webhooks.ts';
import { time } from './format.ts';
import { DataTable } from './table.tsx';

function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/** What the webhook sender records for a target it refused to call (src/webhooks/send.ts). */
const BLOCKED_PRIVATE = 'blocked: private address';

/** Nothing while there is no attempt yet. */
export function Attempts({ attempts }: { attempts: Attempt[] }) {
  if (attempts.length === 0) return null;
  return (
    <>
      {attempts.some((a) => a.error === BLOCKED_PRIVATE) && (
        <p class="notice" role="note">
          Not sent: the callback URL leads to a private, loopback or link-local address, which the gateway does not call
          while it handles real money (a merchant could otherwise reach into the operator's network). Use a public
          callback URL; if the shop really lives on a private network, the operator sets <code>allow_private_callbacks</code>{' '}
          (<code>SATCHEL_ALLOW_PRIVATE_CALLBACKS=1</code>) and resends the webhook.
        </p>
      )}
      <DataTable label="Attempts" caption="Attempts" columns={['Time', 'HTTP', ['Latency', 'num'], 'Answer']}>
        {attempts.map((a, i) => (
          <tr key={i}>
            <td class="nowrap">{time(a.at)}</td>
            <td>{a.http_status ?? '—'}</td>
            <td class="num">{a.latency_ms} ms</td>
            <td class="mono small break">{a.error ?? a.answer ?? '(empty)'}</td>
          </tr>
        ))}
      </DataTable>
    </>
  );
}

/** The body as sent, its JSON indented; focusable, so the keyboard can scroll it. */
export function BodySent({ body }: { body: string }) {
  return (
    <>
        <p class="small muted">Body sent</p>
        <pre class="body" tabIndex={0} aria-label="Body sent">
          {pretty(body)}
        </pre>
    </>
  );
}
