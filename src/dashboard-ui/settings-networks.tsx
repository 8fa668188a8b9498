// Settings: each network as the gateway sees it now (the table it prints at start): its driver,
// live or test, custody, whether its node answers, confirmations, head height, and whether it is
// offered to payers and merchants, with the reason when not.
import { readinessApi } from '../contracts/dashboard/readiness.ts';
import { Card, Loading, Problem, TableScroll, useLoad } from './ui.tsx';
import { useStore } from './store.ts';
import { t, type MessageKey } from './i18n/index.ts';

/** Why a network is not offered, as the server says it (here and on an invoice whose network it is). */
export const REASON: Record<string, MessageKey> = { disabled: 'net_reason_disabled', 'simulated in live mode': 'net_reason_simulated', 'node not answering': 'net_reason_node' };

export function Networks() {
  const { api } = useStore();
  const rows = useLoad(() => api.get(readinessApi.networks), []);
  return (
    <Card title={t('net_title')}>
      {rows.error ? <Problem error={rows.error} /> : !rows.data ? <Loading /> : (
        <>
          {!rows.data.some((r) => r.offered) && (
            <p class="notice tone-warn" role="status">
              {t('net_none')}
            </p>
          )}
          <TableScroll label={t('net_title')}>
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('col_network')}</th>
                  <th scope="col">{t('net_driver')}</th>
                  <th scope="col">{t('net_mode')}</th>
                  <th scope="col">{t('net_custody')}</th>
                  <th scope="col">{t('net_node')}</th>
                  <th scope="col">{t('net_confirmations')}</th>
                  <th scope="col">{t('net_head')}</th>
                  <th scope="col">{t('net_offered')}</th>
                </tr>
              </thead>
              <tbody>
                {rows.data.map((r) => (
                  <tr key={r.network}>
                    <th scope="row">{r.network}</th>
                    <td>{r.driver}</td>
                    <td>{r.mode}</td>
                    <td>{r.custody}</td>
                    <td>{r.node_reachable === null ? '—' : r.node_reachable ? t('net_answers') : t('no_answer')}</td>
                    <td class="num">{r.confirmations}</td>
                    <td class="num">{r.head_height ?? '—'}</td>
                    <td>{r.offered ? t('yes') : t('net_not_offered', { reason: r.reason ? (REASON[r.reason] ? t(REASON[r.reason]!) : r.reason) : '—' })}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        </>
      )}
    </Card>
  );
}
