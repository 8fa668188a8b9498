// One invoice: amounts, the quotes its price was made from, timeline, chain transfers, webhook
// deliveries with their attempts and bodies, and the actions (resend, refund, payer page,
// simulate in test mode).
import { useState } from 'preact/hooks';
import { ApiError, formText } from './api.ts';
import type { BodyOf, DashboardRoute } from '../contracts/dashboard/route.ts';
import { invoiceApi, type InvoiceDetail as Detail } from '../contracts/dashboard/invoices.ts';
import { Attempts, BodySent } from './attempts.tsx';
import { amount, short, time } from './format.ts';
import { webHref } from '../ui-kit/links.ts';
import { useStore } from './store.ts';
import { Badge, Card, Facts, Field, Link, Loading, Page, Problem, TableScroll, useLoad } from './ui.tsx';
import { t as tr } from './i18n/index.ts';
import { REASON } from './settings-networks.tsx';
import { Timeline } from './timeline.tsx';

/** Calls one of the invoice's actions; true once it succeeded. */
type Act = <B>(route: DashboardRoute<B, unknown, never>, body: B, done: string) => Promise<boolean>;

export function InvoiceDetail({ id }: { id: string }) {
  const { api, me, notify } = useStore();
  const { data, error, reload } = useLoad(() => api.get(invoiceApi.invoice, {}, { id }), [id]);
  const [actionError, setActionError] = useState<unknown>(null);
  const [refunding, setRefunding] = useState(false);
  const manage = me.value?.can_manage ?? false;

  const act: Act = async (route, body, done) => {
    setActionError(null);
    try {
      await api.post(route, body, { id });
      notify('ok', done);
      reload();
      return true;
    } catch (err) {
      setActionError(err);
      return false;
    }
  };

  if (error && !data) {
    return (
      <Page title={tr('title_invoice')}>
        <Problem error={error} />
        {error instanceof ApiError && error.status === 404 && <Link to="/invoices">{tr('back_invoices')}</Link>}
      </Page>
    );
  }
  if (!data) return <Loading />;
  const inv = data.invoice;
  const payerPage = webHref(inv.payer_page);
  return (
    <Page
      title={tr('title_invoice_of', { order: inv.order_id })}
      actions={
        <>
          {payerPage && (
            <a class="btn" href={payerPage} target="_blank" rel="noopener noreferrer">
              {tr('open_payer_page')}
            </a>
          )}
          {manage && data.can.resend && (
            <button type="button" class="btn" onClick={() => void act(invoiceApi.resend, {}, tr('inv_resent'))}>
              {tr('inv_resend')}
            </button>
          )}
          {manage && data.can.refund && (
            <button type="button" class="btn danger" aria-expanded={refunding} onClick={() => setRefunding(!refunding)}>
              {tr('inv_refund_open')}
            </button>
          )}
        </>
      }
    >
      <Problem error={actionError} />
      {data.unavailable && (
        <p class="notice tone-warn" role="status">
          {tr('inv_unavailable', { network: data.unavailable.network, reason: tr(REASON[data.unavailable.reason] ?? 'net_reason_disabled') })}
        </p>
      )}
      {refunding && <RefundForm currency={String(inv.payer_currency ?? '')} onSubmit={async (body) => (await act(invoiceApi.refund, body, tr('inv_refund_requested'))) && setRefunding(false)} />}
      {manage && data.can.simulate && <SimulateCard choices={data.choices} act={act} />}
      <Card title={tr('inv_payment')}>
        <Facts
          rows={[
            [tr('col_status'), <Badge value={inv.status} kind="invoice" />],
            [tr('order_id'), <span class="mono">{inv.order_id}</span>],
            ['UUID', <span class="mono">{inv.uuid}</span>],
            [tr('inv_asked'), amount(inv.amount, inv.currency)],
            [tr('inv_payer_asked'), inv.payer_amount ? amount(String(inv.payer_amount), String(inv.payer_currency)) : '—'],
            [tr('col_paid'), inv.payment_amount ? amount(String(inv.payment_amount), String(inv.payer_currency)) : '—'],
            [tr('inv_credited'), inv.merchant_amount ? amount(String(inv.merchant_amount), String(inv.payer_currency)) : '—'],
            [tr('col_network'), inv.network ?? '—'],
            [tr('col_address'), inv.address ? <span class="mono">{inv.address}</span> : '—'],
            [tr('col_created'), time(Number(inv.created_ms))],
            [tr('callback_url'), inv.url_callback ? <span class="mono">{inv.url_callback}</span> : '—'],
            [tr('inv_comments'), inv.comments ?? '—'],
            [tr('inv_additional'), inv.additional_data ? <span class="mono">{inv.additional_data}</span> : '—'],
          ]}
        />
      </Card>
      {/* Same-currency invoices and those priced before quotes were kept have none to show. */}
      {data.rate_quotes.length > 0 && (
        <Card title={tr('inv_rate')}>
          <p>
            1 {inv.currency} = <span class="num">{amount(String(inv.exchange_rate), String(inv.payer_currency ?? ''))}</span>{' '}
            <span class="muted small">({inv.rate_source === 'median' ? tr('inv_rate_median') : tr('inv_rate_from', { source: String(inv.rate_source) })})</span>
          </p>
          <TableScroll label={tr('inv_quotes')}>
            <table>
              <thead>
                <tr>
                  <th scope="col">{tr('inv_q_source')}</th>
                  <th scope="col">{tr('inv_q_price')}</th>
                  <th scope="col">{tr('inv_q_received')}</th>
                  <th scope="col">{tr('inv_q_used')}</th>
                </tr>
              </thead>
              <tbody>
                {data.rate_quotes.map((q) => (
                  <tr key={q.source}>
                    <td>{q.source}</td>
                    <td class="num">{amount(q.price)}</td>
                    <td>{time(q.received_at, true)}</td>
                    <td>{q.used ? tr('yes') : tr('inv_q_unused')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        </Card>
      )}
      <div class="grid">
        <Card title={tr('inv_timeline')}>
          <Timeline events={data.timeline} />
        </Card>
        <Card title={tr('inv_transfers')}>
          {data.transfers.length === 0 ? (
            <p class="muted">{tr('empty_transfers')}</p>
          ) : (
            <ul class="stack plain">
              {data.transfers.map((t) => {
                const link = webHref(t.explorer);
                return (
                  <li key={`${t.txid}:${t.idx}`}>
                    <strong class="num">{amount(t.amount, t.currency)}</strong> <Badge value={t.status} kind="transfer" />{' '}
                    <span class="muted small">
                      {t.confirmations_needed !== null ? tr('confirmations_of', { n: t.confirmations, needed: t.confirmations_needed }) : tr('confirmations', { n: t.confirmations })}
                    </span>
                    <br />
                    {link ? (
                      <a href={link} target="_blank" rel="noopener noreferrer" class="mono">
                        {short(t.txid, 10)}
                        <span class="sr-only"> {tr('opens_explorer')}</span>
                      </a>
                    ) : (
                      <span class="mono">{short(t.txid, 10)}</span>
                    )}
                    <span class="muted small"> · {time(t.seen_at)}</span>
                  </li>
                );
              })}
            </ul>
          )}
          {data.refunds.length > 0 && (
            <>
              <h3 class="small muted">{tr('refunds')}</h3>
              <ul class="stack plain">
                {data.refunds.map((r) => (
                  <li key={r.id}>
                    {amount(r.amount, r.currency)} <Badge value={r.status} kind="payout" /> <span class="mono small">{short(r.address, 8)}</span>
                  </li>
                ))}
              </ul>
            </>
          )}
        </Card>
      </div>
      <Card title={tr('nav_webhooks')}>
        {data.webhooks.length === 0 ? (
          <p class="muted">{tr('inv_no_webhook')}</p>
        ) : (
          <ul class="stack plain">
            {data.webhooks.map((h) => (
              <li key={h.id}>
                <details>
                  <summary>
                    <Badge value={h.status} kind="webhook" /> {time(h.created_at)} · {tr('attempts_count', { count: h.attempts.length })} · <span class="mono small">{h.url}</span>
                  </summary>
                  <Attempts attempts={h.attempts} />
                  {h.next_attempt_at && <p class="muted small">{tr('inv_next_attempt', { time: time(h.next_attempt_at) })}</p>}
                  <BodySent body={h.body} />
                </details>
              </li>
            ))}
          </ul>
        )}
      </Card>
    </Page>
  );
}

function RefundForm({ currency, onSubmit }: { currency: string; onSubmit: (body: BodyOf<typeof invoiceApi.refund>) => Promise<unknown> }) {
  const [busy, setBusy] = useState(false);
  return (
    <Card title={tr('inv_refund')}>
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget as HTMLFormElement);
          if (!confirm(tr('inv_refund_confirm', { currency, address: String(f.get('address')) }))) return;
          setBusy(true);
          void onSubmit({ address: formText(f, 'address'), amount: String(f.get('amount') ?? '').trim(), is_subtract: f.get('is_subtract') === 'on' }).finally(() => setBusy(false));
        }}
      >
        <Field id="refund-address" label={tr('address_in', { currency })}>
          {(id) => <input id={id} name="address" required size={40} autoComplete="off" />}
        </Field>
        <Field id="refund-amount" label={tr('col_amount')} hint={tr('inv_refund_amount_hint')}>
          {(id, by) => <input id={id} name="amount" inputMode="decimal" aria-describedby={by} autoComplete="off" />}
        </Field>
        <label class="check">
          <input type="checkbox" name="is_subtract" /> {tr('fee_from_balance')}
        </label>
        <button class="btn danger" type="submit" disabled={busy}>
          {tr('send_refund')}
        </button>
      </form>
    </Card>
  );
}

/** Test mode's payments. Before the payer has chosen, the payment chooses for them first (the
 * same choice as the payer page's), so a currency and network are picked here. */
function SimulateCard({ choices, act }: { choices: Detail['choices']; act: Act }) {
  const [picked, setPicked] = useState(0);
  const choice = choices[picked] ?? choices[0];
  const pay = (mode: string, done: string) => void act(invoiceApi.simulate, { mode, ...(choice ? { currency: choice.currency, network: choice.network } : {}) }, done);
  return (
    <Card title={tr('test_mode')}>
      <p class="muted">{tr('sim_intro')}</p>
      {choices.length > 0 && (
        <Field id="simulate-choice" label={tr('sim_pay_with')} hint={tr('sim_pay_with_hint')}>
          {(id, describedBy) => (
            <select id={id} aria-describedby={describedBy} value={String(picked)} onChange={(e) => setPicked(Number((e.target as HTMLSelectElement).value))}>
              {choices.map((c, i) => (
                <option key={`${c.currency} ${c.network}`} value={String(i)} title={c.label}>
                  {tr('currency_on', { currency: c.currency, network: c.network })}
                </option>
              ))}
            </select>
          )}
        </Field>
      )}
      <div class="view-actions">
        <button type="button" class="btn" onClick={() => pay('full', tr('sim_full_done'))}>
          {tr('sim_full')}
        </button>
        <button type="button" class="btn" onClick={() => pay('partial', tr('sim_partial_done'))}>
          {tr('sim_partial')}
        </button>
        <button type="button" class="btn" onClick={() => pay('over', tr('sim_over_done'))}>
          {tr('sim_over')}
        </button>
      </div>
    </Card>
  );
}
