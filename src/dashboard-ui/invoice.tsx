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
        {error instanceof ApiError && error.status === 404 && <Link to="/invoices">Back to invoices</Link>}
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
              Open payer page
            </a>
          )}
          {manage && data.can.resend && (
            <button type="button" class="btn" onClick={() => void act(invoiceApi.resend, {}, 'The webhook was queued again.')}>
              Resend webhook
            </button>
          )}
          {manage && data.can.refund && (
            <button type="button" class="btn danger" aria-expanded={refunding} onClick={() => setRefunding(!refunding)}>
              Refund…
            </button>
          )}
        </>
      }
    >
      <Problem error={actionError} />
      {data.unavailable && (
        <p class="notice tone-warn" role="status">
          {data.unavailable}
        </p>
      )}
      {refunding && <RefundForm currency={String(inv.payer_currency ?? '')} onSubmit={async (body) => (await act(invoiceApi.refund, body, 'The refund was requested.')) && setRefunding(false)} />}
      {manage && data.can.simulate && <SimulateCard choices={data.choices} act={act} />}
      <Card title="Payment">
        <Facts
          rows={[
            ['Status', <Badge value={inv.status} kind="invoice" />],
            ['Order ID', <span class="mono">{inv.order_id}</span>],
            ['UUID', <span class="mono">{inv.uuid}</span>],
            ['Asked', amount(inv.amount, inv.currency)],
            ['Payer asked to pay', inv.payer_amount ? amount(String(inv.payer_amount), String(inv.payer_currency)) : '—'],
            ['Paid', inv.payment_amount ? amount(String(inv.payment_amount), String(inv.payer_currency)) : '—'],
            ['Credited to you', inv.merchant_amount ? amount(String(inv.merchant_amount), String(inv.payer_currency)) : '—'],
            ['Network', inv.network ?? '—'],
            ['Address', inv.address ? <span class="mono">{inv.address}</span> : '—'],
            ['Created', time(Number(inv.created_ms))],
            ['Callback URL', inv.url_callback ? <span class="mono">{inv.url_callback}</span> : '—'],
            ['Comments', inv.comments ?? '—'],
            ['Additional data', inv.additional_data ? <span class="mono">{inv.additional_data}</span> : '—'],
          ]}
        />
      </Card>
      {/* Same-currency invoices and those priced before quotes were kept have none to show. */}
      {data.rate_quotes.length > 0 && (
        <Card title="Exchange rate">
          <p>
            1 {inv.currency} = <span class="num">{amount(String(inv.exchange_rate), String(inv.payer_currency ?? ''))}</span>{' '}
            <span class="muted small">({inv.rate_source === 'median' ? 'median of the quotes used' : `from ${String(inv.rate_source)}`})</span>
          </p>
          <TableScroll label="Quotes">
            <table>
              <thead>
                <tr>
                  <th scope="col">Source</th>
                  <th scope="col">Price</th>
                  <th scope="col">Received</th>
                  <th scope="col">Used</th>
                </tr>
              </thead>
              <tbody>
                {data.rate_quotes.map((q) => (
                  <tr key={q.source}>
                    <td>{q.source}</td>
                    <td class="num">{amount(q.price)}</td>
                    <td>{time(q.received_at, true)}</td>
                    <td>{q.used ? 'yes' : 'no: too far from the median'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        </Card>
      )}
      <div class="grid">
        <Card title="Timeline">
          <ol class="timeline">
            {data.timeline.map((e, i) => (
              <li key={i}>
                <span class="muted small">{time(e.at)}</span>
                <br />
                {e.text}
              </li>
            ))}
          </ol>
        </Card>
        <Card title="Transfers">
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
                      {t.confirmations}
                      {t.confirmations_needed !== null ? ` / ${t.confirmations_needed}` : ''} confirmations
                    </span>
                    <br />
                    {link ? (
                      <a href={link} target="_blank" rel="noopener noreferrer" class="mono">
                        {short(t.txid, 10)}
                        <span class="sr-only"> (opens the explorer)</span>
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
              <h3 class="small muted">Refunds</h3>
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
      <Card title="Webhooks">
        {data.webhooks.length === 0 ? (
          <p class="muted">No webhook was sent for this invoice (it has no callback URL, or nothing happened yet).</p>
        ) : (
          <ul class="stack plain">
            {data.webhooks.map((h) => (
              <li key={h.id}>
                <details>
                  <summary>
                    <Badge value={h.status} kind="webhook" /> {time(h.created_at)} · {h.attempts.length} attempt{h.attempts.length === 1 ? '' : 's'} · <span class="mono small">{h.url}</span>
                  </summary>
                  <Attempts attempts={h.attempts} />
                  {h.next_attempt_at && <p class="muted small">Next attempt {time(h.next_attempt_at)}</p>}
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
    <Card title="Refund">
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget as HTMLFormElement);
          if (!confirm(`Send the refund in ${currency} to ${String(f.get('address'))}? This cannot be undone.`)) return;
          setBusy(true);
          void onSubmit({ address: formText(f, 'address'), amount: String(f.get('amount') ?? '').trim(), is_subtract: f.get('is_subtract') === 'on' }).finally(() => setBusy(false));
        }}
      >
        <Field id="refund-address" label={`Address (${currency})`}>
          {(id) => <input id={id} name="address" required size={40} autoComplete="off" />}
        </Field>
        <Field id="refund-amount" label="Amount" hint="empty: everything not yet refunded">
          {(id, by) => <input id={id} name="amount" inputMode="decimal" aria-describedby={by} autoComplete="off" />}
        </Field>
        <label class="check">
          <input type="checkbox" name="is_subtract" /> Fee from my balance
        </label>
        <button class="btn danger" type="submit" disabled={busy}>
          Send refund
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
    <Card title="Test mode">
      <p class="muted">Simulate the payer sending money to this invoice.</p>
      {choices.length > 0 && (
        <Field id="simulate-choice" label="Pay with" hint="The payer has not chosen yet: the payment chooses this for them.">
          {(id, describedBy) => (
            <select id={id} aria-describedby={describedBy} value={String(picked)} onChange={(e) => setPicked(Number((e.target as HTMLSelectElement).value))}>
              {choices.map((c, i) => (
                <option key={`${c.currency} ${c.network}`} value={String(i)}>
                  {c.label}
                </option>
              ))}
            </select>
          )}
        </Field>
      )}
      <div class="view-actions">
        <button type="button" class="btn" onClick={() => pay('full', 'Simulated a full payment.')}>
          Pay in full
        </button>
        <button type="button" class="btn" onClick={() => pay('partial', 'Simulated a partial payment.')}>
          Pay half
        </button>
        <button type="button" class="btn" onClick={() => pay('over', 'Simulated an overpayment.')}>
          Overpay
        </button>
      </div>
    </Card>
  );
}
