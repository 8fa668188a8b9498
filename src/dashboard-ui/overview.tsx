// Overview: balances with a USD total, the last 30 days as a chart, the latest invoices, and a
// notice when payments on some network are not being detected (its node is faulty).
import { amount } from './format.ts';
import { lazyView } from '../ui-kit/lazy.tsx';
import { Card, Loading, Page, Problem, TableScroll, useLoad } from './ui.tsx';
import { InvoiceTable } from './invoice-table.tsx';
import { invoiceApi, type Held } from '../contracts/dashboard/invoices.ts';
import { useStore } from './store.ts';
import { t } from './i18n/index.ts';

const VolumeChart = lazyView(() => import('./chart.tsx').then((m) => m.VolumeChart));

function Balances({ title, list }: { title: string; list: Held[] }) {
  return (
    <div>
      <h3 class="small muted">{title}</h3>
      {list.length === 0 ? (
        <p class="muted">{t('empty_held')}</p>
      ) : (
        <ul class="balances">
          {list.map((b) => (
            <li key={b.currency}>
              <strong class="num">{amount(b.amount, b.currency)}</strong>
              <br />
              <span class="muted small">{b.usd === null ? t('ov_no_usd_rate') : t('ov_about_usd', { amount: amount(b.usd) })}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function Overview() {
  const { api } = useStore();
  const { data, error } = useLoad(() => api.get(invoiceApi.overview), []);
  return (
    <Page title={t('nav_overview')}>
      <Problem error={error} />
      {!data ? (
        !error && <Loading />
      ) : (
        <>
          {data.delayed_networks.length > 0 && (
            <p class="notice" role="status">
              {t('ov_delayed', { networks: data.delayed_networks.join(', '), count: data.delayed_networks.length })}
            </p>
          )}
          <div class="grid">
            <Card title={t('ov_balance')}>
              <p>
                <span class="big num">{amount(data.balances.total_usd)}</span> <span class="muted">{t('ov_usd_total')}</span>
              </p>
              <div class="stack">
                <Balances title={t('ov_business')} list={data.balances.business} />
                <Balances title={t('ov_personal')} list={data.balances.personal} />
              </div>
            </Card>
            <Card title={t('ov_last_30')}>
              {/* Nothing paid: words, not an empty plot (and uPlot is not loaded for it). */}
              {data.days.some((d) => d.paid > 0) ? <VolumeChart days={data.days} /> : <p class="chart-empty muted">{t('chart_empty')}</p>}
              <details>
                <summary>{t('ov_numbers')}</summary>
                <TableScroll label={t('ov_volume_per_day')}>
                  <table>
                    <caption class="sr-only">{t('ov_volume_caption')}</caption>
                    <thead>
                      <tr>
                        <th scope="col">{t('ov_day')}</th>
                        <th scope="col" class="num">{t('chart_paid_usd')}</th>
                        <th scope="col" class="num">{t('chart_paid_invoices')}</th>
                        <th scope="col" class="num">{t('col_created')}</th>
                      </tr>
                    </thead>
                    <tbody>
                      {data.days.filter((d) => d.created > 0).map((d) => (
                        <tr key={d.day}>
                          <td>{d.day}</td>
                          <td class="num">{amount(d.paid_usd)}</td>
                          <td class="num">{d.paid}</td>
                          <td class="num">{d.created}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </TableScroll>
              </details>
            </Card>
          </div>
          <Card title={t('ov_latest')}>
            {data.latest.length === 0 ? <p class="muted">{t('empty_latest')}</p> : <InvoiceTable items={data.latest} />}
          </Card>
        </>
      )}
    </Page>
  );
}
