// Settings, for an instance admin: is this gateway ready for real money? The same checks as
// `satchel doctor`, each OK / WARN / FAIL / SKIP with what to do. Run on demand: some checks reach
// the network (the public URL, each node, each callback target) and take a few seconds.
import { useState } from 'preact/hooks';
import { Card, Problem, TableScroll } from './ui.tsx';

import { readinessApi, type Finding } from '../contracts/dashboard/readiness.ts';
import { useStore } from './store.ts';
import { StatusLabel } from './status-label.tsx';
import { t, tFinding, tParts } from './i18n/index.ts';

const TONE: Record<Finding['status'], string> = { OK: 'ok', WARN: 'warn', FAIL: 'bad', SKIP: 'neutral' };

export function Readiness() {
  const { api } = useStore();
  const [findings, setFindings] = useState<Finding[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [running, setRunning] = useState(false);
  const run = async () => {
    setRunning(true);
    setError(null);
    try {
      setFindings(await api.get(readinessApi.doctor));
    } catch (e) {
      setError(e);
    } finally {
      setRunning(false);
    }
  };
  const failed = findings?.filter((f) => f.status === 'FAIL').length ?? 0;
  return (
    <Card title={t('rd_title')}>
      <p class="muted">{tParts('rd_intro', { command: <code>satchel doctor</code> })}</p>
      <div class="view-actions">
        <button type="button" class="btn" onClick={() => void run()} disabled={running} aria-busy={running}>
          {running ? t('rd_checking') : findings ? t('rd_again') : t('rd_run')}
        </button>
      </div>
      <Problem error={error} />
      {findings && (
        <>
          <p class={`notice ${failed ? 'tone-bad' : 'tone-ok'}`} role="status">
            {failed ? t('rd_failed', { count: failed }) : t('rd_none_failed')}
          </p>
          <TableScroll label={t('rd_checks')}>
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('rd_result')}</th>
                  <th scope="col">{t('rd_check')}</th>
                  <th scope="col">{t('rd_finding')}</th>
                  <th scope="col">{t('rd_todo')}</th>
                </tr>
              </thead>
              <tbody>
                {findings.map((f, i) => {
                  // Worded from its code in the user's language; the code stays on the tooltip.
                  const words = tFinding(f);
                  return (
                    <tr key={i} data-code={f.code}>
                      <td>
                        <StatusLabel family="check" code={f.status} class={`badge tone-${TONE[f.status]}`} />
                      </td>
                      <th scope="row" title={f.code}>
                        {words.name}
                      </th>
                      <td class="break">{words.detail}</td>
                      <td class="break">{words.fix ?? '—'}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </TableScroll>
        </>
      )}
    </Card>
  );
}
