// Webhooks: recent deliveries across invoices, static wallets and payouts, the failing ones first,
// each with its attempts; owners can make a failing or waiting one due at once ("Retry now").
import { useState } from 'preact/hooks';
import { walletApi } from '../contracts/dashboard/wallets.ts';
import { current, navigate } from './route.ts';
import { useStore } from './store.ts';
import { DeliveryList, type Delivery } from './deliveries.tsx';
import { KeysetPager, useKeysetPages } from './list-page.tsx';
import { Card, Loading, Page, Problem, useLoad } from './ui.tsx';
import { t } from './i18n/index.ts';

const SHOW = [
  ['all', 'Failing first'],
  ['failed', 'Failed'],
  ['pending', 'Waiting'],
  ['delivered', 'Delivered'],
] as const;

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
      notify('ok', r.due > 1 ? `Due now, after the ${r.due - 1} older one(s) about the same object.` : 'The webhook is due now; the worker sends it within seconds.');
      list.reload();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(null);
    }
  };

  return (
    <Page title={t('nav_webhooks')}>
      <nav class="tabs" aria-label="Which deliveries">
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
            {label}
          </button>
        ))}
      </nav>
      <Problem error={error ?? list.error} />
      {!list.data ? (
        !list.error && <Loading />
      ) : (
        <>
          {show === 'all' && !after && (
            <Card title="Failing">
              {list.data.failing.length === 0 ? (
                <p class="muted">{t('empty_failing')}</p>
              ) : (
                <DeliveryList items={list.data.failing} onRetry={manage ? retry : undefined} busy={busy} />
              )}
            </Card>
          )}
          <Card title={show === 'all' ? 'Recent' : SHOW.find(([v]) => v === show)?.[1] ?? 'Deliveries'}>
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
