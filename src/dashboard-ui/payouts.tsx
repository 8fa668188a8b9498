// Payouts: the list, one payout, and the create form, which shows the calculation (what the
// address receives, the fees, what leaves the balance) before the owner confirms.
import { useState } from 'preact/hooks';
import type { BodyOf } from '../contracts/dashboard/route.ts';
import { invoiceApi } from '../contracts/dashboard/invoices.ts';
import { moneyApi, type PayoutCalc, type PayoutFloatLine } from '../contracts/dashboard/money.ts';
import { amount, time } from './format.ts';
import { navigate } from './route.ts';
import { useStore } from './store.ts';
import { LoadedList, Pager } from './list-page.tsx';
import { DataTable, LinkCell, StatusCell } from './table.tsx';
import { Badge, Card, Facts, Field, Link, Loading, Page, Problem, useLoad } from './ui.tsx';
import { t, type MessageKey } from './i18n/index.ts';


export function Payouts() {
  const { api, me } = useStore();
  const [cursor, setCursor] = useState<string | null>(null);
  const list = useLoad(() => api.get(moneyApi.payouts, { cursor }), [cursor]);
  return (
    <Page
      title={t('nav_payouts')}
      actions={
        me.value?.can_manage && (
          <Link to="/payouts/new" class="btn primary">
            {t('title_new_payout')}
          </Link>
        )
      }
    >
      <PayoutFloats />
      <Card>
        <LoadedList list={list} empty={t('empty_payouts')}>
          {({ items, previous, next }) => (
            <>
              <DataTable label={t('tbl_payouts')} columns={[t('col_created'), t('col_order'), t('col_status'), [t('col_amount'), 'num'], t('col_network')]}>
                {items.map((p) => (
                  <tr key={p.uuid}>
                    <td class="nowrap">{String(p.created_at ?? '').slice(0, 16).replace('T', ' ')}</td>
                    <LinkCell class="break" to={`/payouts/${p.uuid}`}>
                      {p.order_id}
                    </LinkCell>
                    <StatusCell value={p.status} kind="payout" />
                    <td class="num">{amount(p.amount, p.currency)}</td>
                    <td>{p.network}</td>
                  </tr>
                ))}
              </DataTable>
              <Pager newer={previous ? () => setCursor(previous) : undefined} older={next ? () => setCursor(next) : undefined} />
            </>
          )}
        </LoadedList>
      </Card>
    </Page>
  );
}

/**
 * The payout floats of watch-only networks: payouts there are paid from a hot key the operator
 * funds and caps, not from the merchants' received funds (which sit in their own wallets). Shown
 * only when the gateway has one.
 */
function PayoutFloats() {
  const { api } = useStore();
  const floats = useLoad(() => api.get(moneyApi.floats), []);
  return <PayoutFloatsCard lines={floats.data ?? []} />;
}

/** The floats' card: nothing when the gateway has no float. */
export function PayoutFloatsCard({ lines }: { lines: readonly PayoutFloatLine[] }) {
  if (lines.length === 0) return null;
  return (
    <Card title={t('pf_title')}>
      <p class="muted">
        {t('pf_intro')}
      </p>
      <DataTable label={t('tbl_floats')} columns={[t('col_network'), t('col_currency'), [t('pf_balance'), 'num'], [t('pf_sent_today'), 'num'], [t('pf_left_today'), 'num'], [t('pf_per_payout'), 'num']]}>
        {lines.map((f) => (
          <tr key={`${f.network}:${f.currency}`}>
            <td>
              {f.network}
              {f.address && <div class="mono small">{f.address}</div>}
            </td>
            <td>{f.currency}</td>
            <td class="num">{f.balance === null ? '—' : amount(f.balance, f.currency)}</td>
            <td class="num">{amount(f.spent_today, f.currency)}{f.max_per_day !== null && ` ${t('pf_of', { max: amount(f.max_per_day) })}`}</td>
            <td class="num">{f.left_today === null ? t('pf_no_cap') : amount(f.left_today, f.currency)}</td>
            <td class="num">{f.max_per_payout === null ? t('pf_no_cap') : amount(f.max_per_payout, f.currency)}</td>
          </tr>
        ))}
      </DataTable>
    </Card>
  );
}

/** The label of each field of a payout the detail shows (a field it does not know shows its name). */
const FIELD: Record<string, MessageKey> = {
  uuid: 'pd_uuid',
  order_id: 'col_order',
  amount: 'col_amount',
  currency: 'col_currency',
  network: 'col_network',
  address: 'col_address',
  txid: 'col_transaction',
  status: 'col_status',
  is_final: 'pd_final',
  balance: 'ov_balance',
  payer_currency: 'pd_payer_currency',
  payer_amount: 'pd_payer_amount',
  commission: 'po_fees',
  merchant_amount: 'po_taken',
  created_at: 'col_created',
  updated_at: 'pd_updated',
};

/** The fields that are amounts (decimal strings), written with the language's separators. */
const AMOUNTS = new Set(['amount', 'payer_amount', 'commission', 'merchant_amount', 'balance']);

/** A payout's fields, each under its label: statuses labelled, times and amounts in the user's language. */
export function PayoutFacts({ data }: { data: Record<string, unknown> }) {
  return (
    <Facts
      rows={Object.entries(data)
        .filter(([, v]) => v !== null && typeof v !== 'object')
        .map(([k, v]) => [
          Object.hasOwn(FIELD, k) ? t(FIELD[k]!) : k,
          k === 'status' ? (
            <Badge value={String(v)} kind="payout" />
          ) : k.endsWith('_at') && typeof v === 'string' ? (
            time(Date.parse(v))
          ) : typeof v === 'boolean' ? (
            t(v ? 'pd_yes' : 'pd_no')
          ) : AMOUNTS.has(k) && typeof v === 'string' ? (
            <span class="num" data-field={k}>{amount(v)}</span>
          ) : (
            <span class={/address|txid|uuid/.test(k) ? 'mono' : ''}>{String(v)}</span>
          ),
        ])}
    />
  );
}

export function PayoutDetail({ id }: { id: string }) {
  const { api } = useStore();
  const { data, error } = useLoad(() => api.get(moneyApi.payout, {}, { id }), [id]);
  if (!data) return <Page title={t('title_payout')}>{error ? <Problem error={error} /> : <Loading />}</Page>;
  return (
    <Page title={data.order_id ? t('title_payout_of', { order: data.order_id }) : t('title_payout')}>
      <Card title={t('title_payout')}>
        <PayoutFacts data={data} />
      </Card>
      <p>
        <Link to="/payouts">{t('back_payouts')}</Link>
      </p>
    </Page>
  );
}


export function NewPayout() {
  const { api, notify } = useStore();
  const choices = useLoad(() => api.get(invoiceApi.choices), []);
  const [form, setForm] = useState<BodyOf<typeof moneyApi.create> | null>(null);
  const [calc, setCalc] = useState<PayoutCalc | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const read = (el: HTMLFormElement) => {
    const f = new FormData(el);
    return {
      order_id: String(f.get('order_id') ?? '').trim(),
      amount: String(f.get('amount') ?? '').trim(),
      currency: String(f.get('currency') ?? ''),
      network: String(f.get('network') ?? ''),
      address: String(f.get('address') ?? '').trim(),
      is_subtract: f.get('is_subtract') === 'on',
    };
  };
  const calculate = async (e: Event) => {
    e.preventDefault();
    const body = read(e.currentTarget as HTMLFormElement);
    setBusy(true);
    setError(null);
    setCalc(null);
    try {
      const { order_id: _o, ...calcBody } = body;
      setCalc(await api.post(moneyApi.calc, calcBody));
      setForm(body);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const confirmPayout = async () => {
    if (!form) return;
    setBusy(true);
    setError(null);
    try {
      const created = await api.post(moneyApi.create, form);
      navigate(`/payouts/${created.uuid}`);
      notify('ok', t('po_created'));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Page title={t('title_new_payout')}>
      <Card>
        <form class="inline-form" onSubmit={calculate} onInput={() => setCalc(null)}>
          <Field id="p-order" label={t('order_id')} hint={t('po_order_hint')}>
            {(id, by) => <input id={id} name="order_id" required maxLength={100} aria-describedby={by} />}
          </Field>
          <Field id="p-amount" label={t('col_amount')}>
            {(id) => <input id={id} name="amount" required inputMode="decimal" autoComplete="off" />}
          </Field>
          <Field id="p-currency" label={t('col_currency')}>
            {(id) => (
              <select id={id} name="currency" required>
                {choices.data?.currencies.map((c) => (
                  <option key={c} value={c} selected={c === 'USDT'}>
                    {c}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field id="p-network" label={t('col_network')}>
            {(id) => (
              <select id={id} name="network" required>
                {choices.data?.networks.map((n) => (
                  <option key={n.code} value={n.code} selected={n.code === 'TRON'}>
                    {n.name}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field id="p-address" label={t('col_address')}>
            {(id) => <input id={id} name="address" required size={40} autoComplete="off" />}
          </Field>
          <label class="check">
            <input type="checkbox" name="is_subtract" /> {t('fee_from_balance')}
          </label>
          <button class="btn" type="submit" disabled={busy}>
            {t('po_calculate')}
          </button>
        </form>
        <Problem error={error} />
      </Card>
      {calc && form && (
        <Card title={t('po_check')}>
          <Facts
            rows={[
              [t('po_receives'), amount(calc.payout_amount, String(form.currency))],
              [t('po_fees'), amount(calc.commission, String(form.currency))],
              [t('po_taken'), amount(calc.merchant_amount, String(form.currency))],
              [t('party_to'), <span class="mono">{String(form.address)}</span>],
              [t('col_network'), String(form.network)],
            ]}
          />
          <p class="notice tone-warn">{t('po_final')}</p>
          <button type="button" class="btn primary" disabled={busy} onClick={() => void confirmPayout()}>
            {t('po_confirm')}
          </button>
        </Card>
      )}
    </Page>
  );
}
