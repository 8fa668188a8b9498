// Webhooks: recent deliveries across invoices, static wallets and payouts, the failing ones first,
// each with its attempts; owners can make a failing or waiting one due at once ("Retry now").
import { useState } from 'preact/hooks';
import { walletApi } from '../contracts/dashboard/wallets.ts';
import { current, navigate } from './route.ts';
import { useStore } from './store.ts';
import { DeliveryList, type Delivery } from './deliveries.tsx';
import { KeysetPager, useKeysetPages } from './list-page.tsx';
import { Card, Loading, Page, Problem, useLoad } from './ui.tsx';
import { t, type MessageKey } from './i18n/index.ts';

const SHOW: ReadonlyArray<readonly [string, MessageKey]> = [
  ['all', 'wh_failing_first'],
  ['failed', 'wh_failed'],
  ['pending', 'wh_waiting'],
  ['delivered', 'wh_delivered'],
];

export function Webhooks() {
  const { api, me, notify } = useStore();
  const query = current.value.query;
  const show = query.get('show') ?? 'all';
  const after = query.get('after') ?? '';
  const list = useLoad(() => api.get(walletApi.webhooks, { show, after }), [show, after]);
  const pages = useKeysetPages(after, (cursor) => go({ show, after: cursor }));
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const manage = me.value?.can_manage ?? false;

  const go = (next: { show?: string; after?: string }) => {
    const q = new URLSearchParams();
    if (next.show && next.show !== 'all') q.set('show', next.show);
    if (next.after) q.set('after', next.after);
    const s = q.toString();
    navigate(`/webhooks${s ? `?${s}` : ''}`);
  };
  const retry = async (d: Delivery) => {
    setError(null);
    setBusy(d.id);
    try {
      const r = await api.post(walletApi.retry, {}, { id: d.id });
      notify('ok', r.due > 1 ? t('wh_due_after', { count: r.due - 1 }) : t('wh_due'));
      list.reload();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(null);
    }
  };

  return (
    <Page title={t('nav_webhooks')}>
      <nav class="tabs" aria-label={t('wh_which')}>
        {SHOW.map(([value, label]) => (
          <button
            key={value}
            type="button"
            class="btn small"
            aria-pressed={show === value}
            onClick={() => {
              pages.reset();
              go({ show: value });
            }}
          >
            {t(label)}
          </button>
        ))}
      </nav>
      <Problem error={error ?? list.error} />
      {!list.data ? (
        !list.error && <Loading />
      ) : (
        <>
          {show === 'all' && !after && (
            <Card title={t('wh_failing')}>
              {list.data.failing.length === 0 ? (
                <p class="muted">{t('empty_failing')}</p>
              ) : (
                <DeliveryList items={list.data.failing} onRetry={manage ? retry : undefined} busy={busy} />
              )}
            </Card>
          )}
          <Card title={t(show === 'all' ? 'wh_recent' : (SHOW.find(([v]) => v === show)?.[1] ?? 'wh_deliveries'))}>
            {list.data.items.length === 0 ? (
              <p class="muted">{t('empty_webhooks')}</p>
            ) : (
              <DeliveryList items={list.data.items} onRetry={manage ? retry : undefined} busy={busy} />
            )}
            {(after || list.data.next) && (
              <KeysetPager pages={pages} next={list.data.next} />
            )}
          </Card>
        </>
      )}
    </Page>
  );
}
