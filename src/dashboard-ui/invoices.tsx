// Invoices: filters and search in the address bar, keyset pages, CSV export of the same filter.
// The form's fields are uncontrolled (remounted when the address changes), so a re-render while
// someone types never resets what they typed.
import { useState } from 'preact/hooks';
import { apiUrl, get } from './api.ts';
import { current, navigate } from './route.ts';
import { Card, Field, Loading, Page, Problem, useLoad } from './ui.tsx';
import { InvoiceTable, type ListedInvoice } from './invoice-table.tsx';

const STATUSES = ['process', 'check', 'paid', 'paid_over', 'wrong_amount', 'fail', 'cancel', 'system_fail', 'refund_process', 'refund_paid', 'refund_fail', 'locked'];
const FILTER_KEYS = ['q', 'status', 'currency', 'network', 'from', 'to'] as const;

interface Choices {
  networks: Array<{ code: string; name: string }>;
  currencies: string[];
}

export function Invoices() {
  const query = current.value.query;
  const filters = Object.fromEntries(FILTER_KEYS.map((k) => [k, query.get(k) ?? ''])) as Record<(typeof FILTER_KEYS)[number], string>;
  const after = query.get('after') ?? '';
  const key = FILTER_KEYS.map((k) => filters[k]).join('|') + '|' + after;
  const page = useLoad(() => get<{ items: ListedInvoice[]; next: string | null }>('/invoices', { ...filters, after }), [key]);
  const choices = useLoad(() => get<Choices>('/choices'), []);
  const [earlier, setEarlier] = useState<string[]>([]);

  const go = (next: Record<string, string>) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(next)) if (v) q.set(k, v);
    const s = q.toString();
    navigate(`/invoices${s ? `?${s}` : ''}`);
  };
  const submit = (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    setEarlier([]);
    go(Object.fromEntries(FILTER_KEYS.map((k) => [k, String(form.get(k) ?? '').trim()])));
  };
  const active = FILTER_KEYS.some((k) => filters[k]);

  return (
    <Page
      title="Invoices"
      actions={
        <a class="btn" href={apiUrl('/invoices.csv', filters)} download>
          Export CSV
        </a>
      }
    >
      <Card>
        <form class="filters" onSubmit={submit} role="search" aria-label="Filter invoices" key={key}>
          <Field id="f-q" label="Search" hint="order_id, uuid, txid or address">
            {(id, by) => <input id={id} name="q" type="search" defaultValue={filters.q} aria-describedby={by} size={28} />}
          </Field>
          <Field id="f-status" label="Status">
            {(id) => (
              <select id={id} name="status">
                <option value="">Any</option>
                {STATUSES.map((s) => (
                  <option key={s} value={s} selected={filters.status === s}>
                    {s.replace(/_/g, ' ')}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field id="f-currency" label="Currency">
            {(id) => (
              <select id={id} name="currency">
                <option value="">Any</option>
                {choices.data?.currencies.map((c) => (
                  <option key={c} value={c} selected={filters.currency === c}>
                    {c}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field id="f-network" label="Network">
            {(id) => (
              <select id={id} name="network">
                <option value="">Any</option>
                {choices.data?.networks.map((n) => (
                  <option key={n.code} value={n.code} selected={filters.network === n.code}>
                    {n.name}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field id="f-from" label="From">
            {(id) => <input id={id} name="from" type="date" defaultValue={filters.from} />}
          </Field>
          <Field id="f-to" label="To">
            {(id) => <input id={id} name="to" type="date" defaultValue={filters.to} />}
          </Field>
          <button class="btn primary" type="submit">
            Apply
          </button>
          {active && (
            <button class="btn ghost" type="button" onClick={() => go({})}>
              Clear
            </button>
          )}
        </form>
      </Card>
      <Card>
        <Problem error={page.error} />
        {!page.data ? (
          !page.error && <Loading />
        ) : page.data.items.length === 0 ? (
          <p class="muted">{active ? 'No invoice matches.' : 'No invoices yet.'}</p>
        ) : (
          <>
            <InvoiceTable items={page.data.items} />
            <nav class="pager" aria-label="Pages">
              {after && (
                <button
                  type="button"
                  class="btn"
                  onClick={() => {
                    const rest = earlier.slice(0, -1);
                    setEarlier(rest);
                    go({ ...filters, after: earlier.at(-1) ?? '' });
                  }}
                >
                  Newer
                </button>
              )}
              {page.data.next && (
                <button
                  type="button"
                  class="btn"
                  onClick={() => {
                    setEarlier([...earlier, after]);
                    go({ ...filters, after: page.data!.next! });
                  }}
                >
                  Older
                </button>
              )}
            </nav>
          </>
        )}
      </Card>
    </Page>
  );
}
