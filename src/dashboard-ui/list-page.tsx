// The dashboard's list pages: filters kept in the address bar (search, status, currency, network and
// what a list adds), keyset pages walked with Newer and Older, and a list's loading, error and empty
// states. The filter form's fields are uncontrolled (remounted when the address changes), so a
// re-render while someone types never resets what they typed.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { current, navigate } from './route.ts';
import { Card, Field, Loading, Problem, useLoad } from './ui.tsx';

import type { DashboardRoute, NoBody } from '../contracts/dashboard/route.ts';
import { invoiceApi, type Choices } from '../contracts/dashboard/invoices.ts';
import { useStore } from './store.ts';
import { labelText } from './status-label.tsx';
import { t, type LabelFamily } from './i18n/index.ts';

/** The filters every list page has; a list may add more (the invoices' dates). */
type FilterKey = 'q' | 'status' | 'currency' | 'network';

export interface KeysetPages {
  /** This page's cursor ('' on the first page). */
  after: string;
  /** Back to the page before, the way Older came. */
  newer: () => void;
  older: (next: string) => void;
  /** Forgets the pages seen before (a new filter starts over). */
  reset: () => void;
}

/** Keyset pages walked back and forth: remembers the cursors of the pages seen before this one. */
export function useKeysetPages(after: string, open: (after: string) => void): KeysetPages {
  const [earlier, setEarlier] = useState<string[]>([]);
  return {
    after,
    newer: () => {
      setEarlier(earlier.slice(0, -1));
      open(earlier.at(-1) ?? '');
    },
    older: (next) => {
      setEarlier([...earlier, after]);
      open(next);
    },
    reset: () => setEarlier([]),
  };
}

/** A list whose filters and page cursor live in the address bar under the path of its API route, loaded from that route. */
export function useFilteredList<T, K extends string>(route: DashboardRoute<NoBody, { items: T[]; next: string | null }, K | 'after'>, keys: readonly K[]) {
  const { api } = useStore();
  const path = route.path;
  const query = current.value.query;
  const filters = Object.fromEntries(keys.map((k) => [k, query.get(k) ?? ''])) as Record<K, string>;
  const after = query.get('after') ?? '';
  const key = keys.map((k) => filters[k]).join('|') + '|' + after;
  const page = useLoad(() => api.get(route, { ...filters, after } as Partial<Record<K | 'after', string>>), [key]);
  const choices = useLoad(() => api.get(invoiceApi.choices), []);
  const go = (next: Record<string, string>) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(next)) if (v) q.set(k, v);
    const s = q.toString();
    navigate(`${path}${s ? `?${s}` : ''}`);
  };
  const pages = useKeysetPages(after, (cursor) => go({ ...filters, after: cursor }));
  const active = keys.some((k) => filters[k]);
  return { keys, filters, key, page, choices, go, pages, active };
}

/** The filter form of a list page: search, status, currency and network, then `children` (more fields). */
export function ListFilters(props: {
  list: { keys: readonly string[]; filters: Record<FilterKey, string>; key: string; choices: { data: Choices | undefined }; go: (next: Record<string, string>) => void; pages: KeysetPages; active: boolean };
  /** The form's accessible name. */
  label: string;
  /** Prefix of the fields' ids. */
  idPrefix: string;
  /** What the search finds. */
  hint: string;
  statuses: readonly string[];
  /** Whose labels the statuses take. */
  family: LabelFamily;
  children?: ComponentChildren;
}) {
  const { list, idPrefix } = props;
  const { filters, choices } = list;
  const submit = (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    list.pages.reset();
    list.go(Object.fromEntries(list.keys.map((k) => [k, String(form.get(k) ?? '').trim()])));
  };
  return (
    <Card>
      <form class="filters" onSubmit={submit} role="search" aria-label={props.label} key={list.key}>
        <Field id={`${idPrefix}-q`} label={t('f_search')} hint={props.hint}>
          {(id, by) => <input id={id} name="q" type="search" defaultValue={filters.q} aria-describedby={by} size={28} />}
        </Field>
        <ChoiceFilter id={`${idPrefix}-status`} label={t('col_status')} name="status" value={filters.status} choices={props.statuses.map((s) => [s, labelText(props.family, s)])} />
        <ChoiceFilter id={`${idPrefix}-currency`} label={t('col_currency')} name="currency" value={filters.currency} choices={choices.data?.currencies.map((c) => [c, c])} />
        <ChoiceFilter id={`${idPrefix}-network`} label={t('col_network')} name="network" value={filters.network} choices={choices.data?.networks.map((n) => [n.code, n.name])} />
        {props.children}
        <button class="btn primary" type="submit">
          {t('f_apply')}
        </button>
        {list.active && (
          <button class="btn ghost" type="button" onClick={() => list.go({})}>
            {t('f_clear')}
          </button>
        )}
      </form>
    </Card>
  );
}

/** One filter's select: Any, then each choice as [value, text]; none until the choices have loaded. */
function ChoiceFilter(props: { id: string; label: string; name: FilterKey; value: string; choices: Array<[string, string]> | undefined }) {
  return (
    <Field id={props.id} label={props.label}>
      {(id) => (
        <select id={id} name={props.name}>
          <option value="">{t('f_any')}</option>
          {props.choices?.map(([value, text]) => (
            <option key={value} value={value} selected={props.value === value}>
              {text}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

/** A loaded list: the error if any, Loading until the first answer, `empty` when it has no item, else `children`. */
export function LoadedList<D extends { items: unknown[] }>(props: { list: { data: D | undefined; error: unknown }; empty: ComponentChildren; children: (data: D) => ComponentChildren }) {
  const { data, error } = props.list;
  return (
    <>
      <Problem error={error} />
      {!data ? !error && <Loading /> : data.items.length === 0 ? <p class="muted">{props.empty}</p> : props.children(data)}
    </>
  );
}

/** Newer and Older, each shown when there is such a page. */
export function Pager({ newer, older }: { newer?: (() => void) | undefined; older?: (() => void) | undefined }) {
  return (
    <nav class="pager" aria-label={t('pages')}>
      {newer && (
        <button type="button" class="btn" onClick={newer}>
          {t('newer')}
        </button>
      )}
      {older && (
        <button type="button" class="btn" onClick={older}>
          {t('older')}
        </button>
      )}
    </nav>
  );
}

/** The pager of keyset pages: Newer after the first page, Older while there is a `next` cursor. */
export function KeysetPager({ pages, next }: { pages: KeysetPages; next: string | null }) {
  return <Pager newer={pages.after ? pages.newer : undefined} older={next ? () => pages.older(next) : undefined} />;
}
