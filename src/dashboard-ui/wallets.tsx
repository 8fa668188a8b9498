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
      <ListFilters list={list} label="Filter wallets" idPrefix="w" hint="order_id, uuid or address" statuses={STATUSES} family="wallet" />
      <Card>
        <LoadedList list={list.page} empty={list.active ? tr('empty_wallets_filtered') : tr('empty_wallets')}>
          {(data) => (
            <>
              <DataTable label="Wallets table" columns={[tr('col_order'), tr('col_status'), tr('col_currency'), tr('col_created'), tr('col_address')]}>
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
        {error instanceof ApiError && error.status === 404 && <Link to="/wallets">Back to wallets</Link>}
      </Page>
    );
  }
  if (!data) return <Loading />;
  const w = data.wallet;
  const page = webHref(w.url);
  const addressError = actionError instanceof ApiError && actionError.errors?.address ? `Not a valid ${w.network} address.` : null;
  return (
    <Page
      title={tr('title_wallet_of', { order: w.order_id })}
      actions={
        <>
          {page && (
            <a class="btn" href={page} target="_blank" rel="noopener noreferrer">
              Open payer page
            </a>
          )}
          {manage && data.can.block && (
            <button type="button" class="btn danger" aria-expanded={open === 'block'} onClick={() => setOpen(open === 'block' ? null : 'block')}>
              {w.status === 'blocked' ? 'Block settings…' : 'Block…'}
            </button>
          )}
          {manage && data.can.refund && (
            <button type="button" class="btn danger" aria-expanded={open === 'refund'} onClick={() => setOpen(open === 'refund' ? null : 'refund')}>
              Refund blocked funds…
            </button>
          )}
        </>
      }
    >
      <Problem error={actionError} />
      {open === 'block' && (
        <Card title="Block this wallet">
          <form
            class="inline-form"
            onSubmit={(e) => {
              e.preventDefault();
              const force = new FormData(e.currentTarget as HTMLFormElement).get('force') === 'on';
              if (!confirm(`Block wallet ${w.order_id}? Later payments to it are not credited to your balance.`)) return;
              void act(walletApi.block, { is_force_refund: force }, 'The wallet is blocked.');
            }}
          >
            <p class="muted small">Later payments to this address are not credited. You may refund what it receives once, or have every payment sent back to its sender.</p>
            <label class="check">
              <input type="checkbox" name="force" defaultChecked={w.is_force_refund} /> Send every payment back to its sender
            </label>
            <button class="btn danger" type="submit" disabled={busy}>
              Block wallet
            </button>
          </form>
        </Card>
      )}
      {open === 'refund' && (
        <Card title="Refund blocked funds">
          <form
            class="inline-form"
            onSubmit={(e) => {
              e.preventDefault();
              const address = String(new FormData(e.currentTarget as HTMLFormElement).get('address') ?? '').trim();
              if (!confirm(`Send the blocked ${w.currency} to ${address}, less the network fee? This is allowed once.`)) return;
              void act(walletApi.refund, { address }, 'The refund of the blocked funds was requested.');
            }}
          >
            <Field id="wr-address" label={`Address (${w.currency} on ${w.network})`} error={addressError}>
              {(fid, by) => <input id={fid} name="address" required size={40} autoComplete="off" aria-describedby={by} aria-invalid={addressError ? true : undefined} />}
            </Field>
            <button class="btn danger" type="submit" disabled={busy}>
              Send refund
            </button>
          </form>
        </Card>
      )}
      <Card title="Wallet">
        <Facts
          rows={[
            ['Status', <Badge value={w.status} kind="wallet" />],
            ['Order ID', <span class="mono">{w.order_id}</span>],
            ['UUID', <span class="mono">{w.uuid}</span>],
            ['Currency', `${w.currency} on ${w.network}`],
            ['Address', <span class="mono">{w.address}</span>],
            ['Created', time(w.created_at)],
            ['Blocked', w.blocked_at ? `${time(w.blocked_at)}${w.is_force_refund ? ' (payments sent back)' : ''}` : '—'],
            ['Callback URL', w.url_callback ? <span class="mono">{w.url_callback}</span> : '—'],
            ['Refund of blocked funds', data.refund ? <span>{amount(data.refund.payer_amount ?? data.refund.amount, data.refund.currency)} <Badge value={data.refund.status} kind="payout" /> <span class="mono small">{short(data.refund.address, 8)}</span></span> : '—'],
          ]}
        />
      </Card>
      <Card title="Top-ups">
        {data.topups.length === 0 ? (
          <p class="muted">{tr('empty_received')}</p>
        ) : (
          <DataTable label="Top-ups table" columns={[tr('col_seen'), [tr('col_amount'), 'num'], tr('col_status'), [tr('col_credited'), 'num'], tr('col_transaction')]}>
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
                        <span class="sr-only"> (opens the explorer)</span>
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
      <Card title="Webhooks">
        {data.webhooks.length === 0 ? (
          <p class="muted">No webhook was sent for this wallet (it has no callback URL, or nothing arrived yet).</p>
        ) : (
          <DeliveryList items={data.webhooks} />
        )}
      </Card>
    </Page>
  );
}
