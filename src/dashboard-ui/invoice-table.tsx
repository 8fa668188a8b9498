// The invoice table shared by the overview and the invoices list.
import { amount, time } from './format.ts';
import { DataTable, LinkCell, StatusCell } from './table.tsx';

export interface ListedInvoice {
  id: string;
  order_id: string;
  amount: string;
  currency: string;
  payer_amount: string | null;
  payer_currency: string | null;
  network: string | null;
  status: string;
  payment_amount: string | null;
  created_at: number;
}

export function InvoiceTable({ items }: { items: ListedInvoice[] }) {
  return (
    <DataTable label="Invoices table" columns={['Created', 'Order', 'Status', ['Amount', 'num'], ['Paid', 'num'], 'Network']}>
      {items.map((i) => (
        <tr key={i.id}>
          <td class="nowrap">{time(i.created_at)}</td>
          <LinkCell class="break" to={`/invoices/${i.id}`}>
            {i.order_id}
          </LinkCell>
          <StatusCell value={i.status} />
          <td class="num">{amount(i.amount, i.currency)}</td>
          <td class="num">{i.payment_amount ? amount(i.payment_amount, i.payer_currency) : '—'}</td>
          <td>{i.network ?? '—'}</td>
        </tr>
      ))}
    </DataTable>
  );
}
