// Invoices: filters and search in the address bar, keyset pages, CSV export of the same filter.
import { INVOICE_STATUSES } from '../contracts/invoice-status.ts';
import { Card, Field, Page } from './ui.tsx';
import { InvoiceTable } from './invoice-table.tsx';
import { invoiceApi } from '../contracts/dashboard/invoices.ts';
import { KeysetPager, ListFilters, LoadedList, useFilteredList } from './list-page.tsx';
import { useStore } from './store.ts';
import { t } from './i18n/index.ts';

const FILTER_KEYS = ['q', 'status', 'currency', 'network', 'from', 'to'] as const;

export function Invoices() {
  const { api } = useStore();
  const list = useFilteredList(invoiceApi.invoices, FILTER_KEYS);
  const { filters } = list;

  return (
    <Page
      title={t('nav_invoices')}
      actions={
        <a class="btn" href={api.url(invoiceApi.csv, filters)} download>
          {t('export_csv')}
        </a>
      }
    >
      <ListFilters list={list} label={t('filter_invoices')} idPrefix="f" hint={t('filter_invoices_hint')} statuses={INVOICE_STATUSES} family="invoice">
        <Field id="f-from" label={t('date_from')}>
          {(id) => <input id={id} name="from" type="date" defaultValue={filters.from} />}
        </Field>
        <Field id="f-to" label={t('date_to')}>
          {(id) => <input id={id} name="to" type="date" defaultValue={filters.to} />}
        </Field>
      </ListFilters>
      <Card>
        <LoadedList list={list.page} empty={list.active ? t('empty_invoices_filtered') : t('empty_invoices')}>
          {(data) => (
            <>
              <InvoiceTable items={data.items} />
              <KeysetPager pages={list.pages} next={data.next} />
            </>
          )}
        </LoadedList>
      </Card>
    </Page>
  );
}
