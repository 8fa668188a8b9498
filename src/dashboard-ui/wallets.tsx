// Static wallets: the list (filters and search in the address bar, keyset pages) and one wallet
// with its top-ups, webhooks and, for owners, Block and the refund of blocked funds.
import { useState } from 'preact/hooks';
import { ApiError } from './api.ts';
import type { DashboardRoute } from '../contracts/dashboard/route.ts';
import { walletApi } from '../contracts/dashboard/wallets.ts';
import { amount, short, time } from './format.ts';
import { webHref } from '../ui-kit/links.ts';
import { useStore } from './store.ts';
import { DeliveryList } from './deliveries.tsx';
import { KeysetPager, ListFilters, LoadedList, useFilteredList } from './list-page.tsx';
import { DataTable, LinkCell, StatusCell } from './table.tsx';
import { Badge, Card, Facts, Field, Link, Loading, Page, Problem, useLoad } from './ui.tsx';
import { t as tr } from './i18n/index.ts';

const STATUSES = ['active', 'blocked', 'in_active'];
const FILTER_KEYS = ['q', 'status', 'currency', 'network'] as const;

export function Wallets() {
  const list = useFilteredList(walletApi.wallets, FILTER_KEYS);

  return (
    <Page title={tr('title_wallets')}>
      <ListFilters list={list} label={tr('filter_wallets')} idPrefix="w" hint={tr('filter_wallets_hint')} statuses={STATUSES} family="wallet" />
      <Card>
        <LoadedList list={list.page} empty={list.active ? tr('empty_wallets_filtered') : tr('empty_wallets')}>
          {(data) => (
            <>
              <DataTable label={tr('tbl_wallets')} columns={[tr('col_order'), tr('col_status'), tr('col_currency'), tr('col_created'), tr('col_address')]}>
                {data.items.map((w) => (
                  <tr key={w.id}>
                    <LinkCell class="order-cell" to={`/wallets/${w.id}`}>
                      {w.order_id}
                    </LinkCell>
                    <StatusCell value={w.status} kind="wallet" />
                    <td class="nowrap">
                      {w.currency} <span class="muted small">{w.network}</span>
                    </td>
                    <td class="nowrap">{time(w.created_at)}</td>
                    <td class="mono small">{short(w.address, 8)}</td>
                  </tr>
                ))}
              </DataTable>
              <KeysetPager pages={list.pages} next={data.next} />
            </>
          )}
        </LoadedList>
      </Card>
    </Page>
  );
}

export function WalletDetail({ id }: { id: string }) {
  const { api, me, notify } = useStore();
  const { data, error, reload } = useLoad(() => api.get(walletApi.wallet, {}, { id }), [id]);
  const [actionError, setActionError] = useState<unknown>(null);
  const [open, setOpen] = useState<'block' | 'refund' | null>(null);
  const [busy, setBusy] = useState(false);
  const manage = me.value?.can_manage ?? false;

  const act = async <B,>(route: DashboardRoute<B, unknown, never>, body: B, done: string) => {
    setActionError(null);
    setBusy(true);
    try {
      await api.post(route, body, { id });
      notify('ok', done);
      setOpen(null);
      reload();
    } catch (err) {
      setActionError(err);
    } finally {
      setBusy(false);
    }
  };

  if (error && !data) {
    return (
      <Page title={tr('title_wallet')}>
        <Problem error={error} />
        {error instanceof ApiError && error.status === 404 && <Link to="/wallets">{tr('back_wallets')}</Link>}
      </Page>
    );
  }
  if (!data) return <Loading />;
  const w = data.wallet;
  const page = webHref(w.url);
  const addressError = actionError instanceof ApiError && actionError.errors?.address ? tr('wl_bad_address', { network: w.network }) : null;
  return (
    <Page
      title={tr('title_wallet_of', { order: w.order_id })}
      actions={
        <>
          {page && (
            <a class="btn" href={page} target="_blank" rel="noopener noreferrer">
              {tr('open_payer_page')}
            </a>
          )}
          {manage && data.can.block && (
            <button type="button" class="btn danger" aria-expanded={open === 'block'} onClick={() => setOpen(open === 'block' ? null : 'block')}>
              {w.status === 'blocked' ? tr('wl_block_settings') : tr('wl_block_open')}
            </button>
          )}
          {manage && data.can.refund && (
            <button type="button" class="btn danger" aria-expanded={open === 'refund'} onClick={() => setOpen(open === 'refund' ? null : 'refund')}>
              {tr('wl_refund_open')}
            </button>
          )}
        </>
      }
    >
      <Problem error={actionError} />
      {open === 'block' && (
        <Card title={tr('wl_block_title')}>
          <form
            class="inline-form"
            onSubmit={(e) => {
              e.preventDefault();
              const force = new FormData(e.currentTarget as HTMLFormElement).get('force') === 'on';
              if (!confirm(tr('wl_block_confirm', { order: w.order_id }))) return;
              void act(walletApi.block, { is_force_refund: force }, tr('wl_blocked_done'));
            }}
          >
            <p class="muted small">{tr('wl_block_intro')}</p>
            <label class="check">
              <input type="checkbox" name="force" defaultChecked={w.is_force_refund} /> {tr('wl_force')}
            </label>
            <button class="btn danger" type="submit" disabled={busy}>
              {tr('wl_block')}
            </button>
          </form>
        </Card>
      )}
      {open === 'refund' && (
        <Card title={tr('wl_refund_title')}>
          <form
            class="inline-form"
            onSubmit={(e) => {
              e.preventDefault();
              const address = String(new FormData(e.currentTarget as HTMLFormElement).get('address') ?? '').trim();
              if (!confirm(tr('wl_refund_confirm', { currency: w.currency, address }))) return;
              void act(walletApi.refund, { address }, tr('wl_refund_done'));
            }}
          >
            <Field id="wr-address" label={tr('address_on', { currency: w.currency, network: w.network })} error={addressError}>
              {(fid, by) => <input id={fid} name="address" required size={40} autoComplete="off" aria-describedby={by} aria-invalid={addressError ? true : undefined} />}
            </Field>
            <button class="btn danger" type="submit" disabled={busy}>
              {tr('send_refund')}
            </button>
          </form>
        </Card>
      )}
      <Card title={tr('title_wallet')}>
        <Facts
          rows={[
            [tr('col_status'), <Badge value={w.status} kind="wallet" />],
            [tr('order_id'), <span class="mono">{w.order_id}</span>],
            ['UUID', <span class="mono">{w.uuid}</span>],
            [tr('col_currency'), tr('currency_on', { currency: w.currency, network: w.network })],
            [tr('col_address'), <span class="mono">{w.address}</span>],
            [tr('col_created'), time(w.created_at)],
            [tr('wl_blocked'), w.blocked_at ? (w.is_force_refund ? tr('wl_blocked_sent_back', { time: time(w.blocked_at) }) : time(w.blocked_at)) : '—'],
            [tr('callback_url'), w.url_callback ? <span class="mono">{w.url_callback}</span> : '—'],
            [tr('wl_refund_of_blocked'), data.refund ? <span>{amount(data.refund.payer_amount ?? data.refund.amount, data.refund.currency)} <Badge value={data.refund.status} kind="payout" /> <span class="mono small">{short(data.refund.address, 8)}</span></span> : '—'],
          ]}
        />
      </Card>
      <Card title={tr('wl_topups')}>
        {data.topups.length === 0 ? (
          <p class="muted">{tr('empty_received')}</p>
        ) : (
          <DataTable label={tr('tbl_topups')} columns={[tr('col_seen'), [tr('col_amount'), 'num'], tr('col_status'), [tr('col_credited'), 'num'], tr('col_transaction')]}>
            {data.topups.map((t) => {
              const link = webHref(t.explorer);
              return (
                <tr key={`${t.txid}:${t.idx}`}>
                  <td class="nowrap">{time(t.seen_at)}</td>
                  <td class="num">{amount(t.amount, t.currency)}</td>
                  <td>
                    {t.outcome ? <Badge value={t.outcome} kind="topup" /> : <Badge value={t.status} kind="transfer" />}
                    {!t.outcome && (
                      <span class="muted small">
                        {' '}
                        {t.confirmations}
                        {t.confirmations_needed !== null ? `/${t.confirmations_needed}` : ''}
                      </span>
                    )}
                  </td>
                  <td class="num">{t.outcome === 'credited' ? amount(t.merchant_amount, t.currency) : '—'}</td>
                  <td class="mono small">
                    {link ? (
                      <a href={link} target="_blank" rel="noopener noreferrer">
                        {short(t.txid, 6)}
                        <span class="sr-only"> {tr('opens_explorer')}</span>
                      </a>
                    ) : (
                      short(t.txid, 6)
                    )}
                  </td>
                </tr>
              );
            })}
          </DataTable>
        )}
      </Card>
      <Card title={tr('nav_webhooks')}>
        {data.webhooks.length === 0 ? (
          <p class="muted">{tr('wl_no_webhook')}</p>
        ) : (
          <DeliveryList items={data.webhooks} />
        )}
      </Card>
    </Page>
  );
}
