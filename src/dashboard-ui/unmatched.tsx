// Unmatched payments: money that arrived at the merchant's own receiving account without the
// comment that names an invoice. It is in the merchant's wallet but credited to nothing until the
// merchant says what it was for: assigned to an invoice (credited as a payment to it) or marked
// refunded (the merchant sent it back itself; the gateway moves nothing). Owners and admins act;
// viewers see the list.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { formText } from './api.ts';
import { unmatchedApi, type UnmatchedAssigned, type UnmatchedPayment } from '../contracts/dashboard/unmatched.ts';
import { useStore } from './store.ts';
import { amount, time } from './format.ts';
import { Badge, Card, Facts, Field, Link, Loading, Page, Problem, useLoad } from './ui.tsx';
import { t, type MessageKey } from './i18n/index.ts';

const FILTER_LABELS: Record<(typeof FILTERS)[number], MessageKey> = { open: 'um_open', assigned: 'um_assigned', refunded: 'um_refunded', all: 'um_all' };
import { labelText } from './status-label.tsx';

const FILTERS = ['open', 'assigned', 'refunded', 'all'] as const;

export function Unmatched() {
  const { api, me } = useStore();
  const [status, setStatus] = useState<(typeof FILTERS)[number]>('open');
  const data = useLoad(() => api.get(unmatchedApi.list, { status }), [status]);
  return (
    <Page title={t('title_unmatched')}>
      <p class="muted">
        {t('um_intro')}
      </p>
      <div class="field">
        <label for="unmatched-status">{t('um_show')}</label>
        <select id="unmatched-status" value={status} onChange={(e) => setStatus((e.currentTarget as HTMLSelectElement).value as (typeof FILTERS)[number])}>
          {FILTERS.map((f) => (
            <option key={f} value={f}>
              {t(FILTER_LABELS[f])}
            </option>
          ))}
        </select>
      </div>
      {data.error ? (
        <Problem error={data.error} />
      ) : !data.data ? (
        <Loading />
      ) : (
        <UnmatchedList
          items={data.data.items}
          canManage={me.value?.can_manage === true}
          assign={(id, invoice) => api.post(unmatchedApi.assign, { invoice }, { id })}
          refunded={(id, note) => api.post(unmatchedApi.refunded, { note }, { id })}
          onChanged={data.reload}
        />
      )}
    </Page>
  );
}

export interface UnmatchedListProps {
  items: readonly UnmatchedPayment[];
  canManage: boolean;
  assign(id: string, invoice: string): Promise<UnmatchedAssigned>;
  refunded(id: string, note: string | undefined): Promise<UnmatchedPayment>;
  /** After a change: the list is read again. */
  onChanged?(): void;
}

export function UnmatchedList(props: UnmatchedListProps) {
  const [done, setDone] = useState<string | null>(null);
  if (props.items.length === 0 && !done) return <p class="muted">{t('empty_unmatched')}</p>;
  return (
    <>
      {done && (
        <p class="notice tone-ok" role="status">
          {done}
        </p>
      )}
      <ul class="stack plain" aria-label={t('title_unmatched')}>
        {props.items.map((p) => (
          <li key={p.id}>
            <PaymentCard
              p={p}
              {...props}
              onDone={(text) => {
                setDone(text);
                props.onChanged?.();
              }}
            />
          </li>
        ))}
      </ul>
    </>
  );
}

function PaymentCard({ p, canManage, assign, refunded, onDone }: UnmatchedListProps & { p: UnmatchedPayment; onDone: (text: string) => void }) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const act = async (e: Event, run: (form: FormData) => Promise<string>) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      onDone(await run(new FormData(e.currentTarget as HTMLFormElement)));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const title = t('um_card_title', { amount: amount(p.amount, p.currency), network: p.network });
  return (
    <Card title={title}>
      <Facts
        rows={[
          [t('col_status'), <Badge value={p.status} kind="unmatched" />],
          [t('inv_q_received'), time(p.created_at)],
          [t('party_from'), p.from === null ? null : <span class="mono break">{p.from}</span>],
          [t('party_to'), <span class="mono break">{p.to}</span>],
          [p.memo !== null ? t('um_comment') : t('um_why'), p.memo !== null ? <q class="break">{p.memo}</q> : labelText('unmatched_reason', p.reason)],
          [t('col_transaction'), <span class="mono break">{p.txid}</span>],
          ...(p.invoice_id ? ([[t('title_invoice'), <Link to={`/invoices/${p.invoice_id}`}>{p.invoice_id}</Link>]] as Array<[string, ComponentChildren]>) : []),
          ...(p.status !== 'open' ? ([[t('um_resolved'), t(p.note ? 'um_resolved_by_note' : 'um_resolved_by', { time: time(p.resolved_at), who: p.resolved_by ?? '—', note: p.note ?? '' })]] as Array<[string, ComponentChildren]>) : []),
        ]}
      />
      {canManage && p.status === 'open' && (
        <div class="stack">
          <form
            class="stack-form"
            aria-label={t('um_assign_label', { title })}
            noValidate
            onSubmit={(e) =>
              act(e, async (form) => {
                const r = await assign(p.id, (formText(form, 'invoice') ?? '').trim());
                return t('um_assigned_done', { invoice: r.invoice.id, status: labelText('invoice', r.invoice.status) });
              })
            }
          >
            <Field id={`um-${p.id}-invoice`} label={t('um_invoice_uuid')} hint={t('um_invoice_hint')}>
              {(fid, by) => <input id={fid} name="invoice" required autoComplete="off" spellcheck={false} class="mono" aria-describedby={by} />}
            </Field>
            <button class="btn primary" type="submit" disabled={busy}>
              {t('um_assign')}
            </button>
          </form>
          <form
            class="stack-form"
            aria-label={t('um_mark_label', { title })}
            noValidate
            onSubmit={(e) =>
              act(e, async (form) => {
                await refunded(p.id, formText(form, 'note'));
                return t('um_marked_done', { title });
              })
            }
          >
            <Field id={`um-${p.id}-note`} label={t('um_note')} hint={t('um_note_hint')}>
              {(fid, by) => <input id={fid} name="note" autoComplete="off" aria-describedby={by} />}
            </Field>
            <button class="btn" type="submit" disabled={busy}>
              {t('um_mark')}
            </button>
          </form>
        </div>
      )}
      <Problem error={error} />
    </Card>
  );
}
