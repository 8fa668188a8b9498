// One webhook delivery's attempts (when, the HTTP status, how long, what came back) and the body it
// sent: the webhooks view, a static wallet's and an invoice's detail show them the same way.
import type { Attempt } from '../contracts/dashboard-webhooks.ts';
import { time } from './format.ts';
import { DataTable } from './table.tsx';

function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/** Nothing while there is no attempt yet. */
export function Attempts({ attempts }: { attempts: Attempt[] }) {
  if (attempts.length === 0) return null;
  return (
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
