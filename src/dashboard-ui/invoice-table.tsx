// The invoice table shared by the overview and the invoices list.
import type { ListedInvoice } from '../contracts/dashboard/invoices.ts';
import { amount, time } from './format.ts';
import { DataTable, LinkCell, StatusCell } from './table.tsx';
import { t } from './i18n/index.ts';

export type { ListedInvoice };

export function InvoiceTable({ items }: { items: ListedInvoice[] }) {
  return (
    <DataTable label={t('tbl_invoices')} columns={[t('col_created'), t('col_order'), t('col_status'), [t('col_amount'), 'num'], [t('col_paid'), 'num'], t('col_network')]}>
      {items.map((i) => (
        <tr key={i.id}>
          <td class="nowrap">{time(i.created_at)}</td>
          <LinkCell class="break" to={`/invoices/${i.id}`}>
            {i.order_id}
          </LinkCell>
          <StatusCell value={i.status} kind="invoice" />
          <td class="num">{amount(i.amount, i.currency)}</td>
          <td class="num">{i.payment_amount ? amount(i.payment_amount, i.payer_currency) : '—'}</td>
          <td>{i.network ?? '—'}</td>
        </tr>
      ))}
    </DataTable>
  );
}
