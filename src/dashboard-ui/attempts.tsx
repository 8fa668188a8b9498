// One webhook delivery's attempts (when, the HTTP status, how long, what came back) and the body it
// sent: the webhooks view, a static wallet's and an invoice's detail show them the same way.
import type { Attempt } from '../contracts/dashboard/webhooks.ts';
import { time } from './format.ts';
import { DataTable } from './table.tsx';
import { t, tParts } from './i18n/index.ts';

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
          {tParts('att_private', { setting: <code>allow_private_callbacks</code>, env: <code>SATCHEL_ALLOW_PRIVATE_CALLBACKS=1</code> })}
        </p>
      )}
      <DataTable label={t('att_title')} caption={t('att_title')} columns={[t('att_time'), 'HTTP', [t('att_latency'), 'num'], t('att_answer')]}>
        {attempts.map((a, i) => (
          <tr key={i}>
            <td class="nowrap">{time(a.at)}</td>
            <td>{a.http_status ?? '—'}</td>
            <td class="num">{t('att_ms', { ms: a.latency_ms })}</td>
            <td class="mono small break">{a.error ?? a.answer ?? t('att_empty')}</td>
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
        <p class="small muted">{t('att_body')}</p>
        <pre class="body" tabIndex={0} aria-label={t('att_body')}>
          {pretty(body)}
        </pre>
    </>
  );
}
