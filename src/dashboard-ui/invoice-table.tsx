// The invoice table shared by the overview and the invoices list.
import { amount, time } from './format.ts';
import { Badge, Link, TableScroll } from './ui.tsx';

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
    <TableScroll label="Invoices table">
      <table>
        <thead>
          <tr>
            <th scope="col">Created</th>
            <th scope="col">Order</th>
            <th scope="col">Status</th>
            <th scope="col" class="num">Amount</th>
            <th scope="col" class="num">Paid</th>
            <th scope="col">Network</th>
          </tr>
        </thead>
        <tbody>
          {items.map((i) => (
            <tr key={i.id}>
              <td class="nowrap">{time(i.created_at)}</td>
              <td class="break">
                <Link to={`/invoices/${i.id}`}>{i.order_id}</Link>
              </td>
              <td>
                <Badge value={i.status} />
              </td>
              <td class="num">{amount(i.amount, i.currency)}</td>
              <td class="num">{i.payment_amount ? amount(i.payment_amount, i.payer_currency) : '—'}</td>
              <td>{i.network ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
