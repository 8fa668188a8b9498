// The dashboard's invoice list: filters (status, currency, network, dates), search by order_id,
// uuid, txid or address, keyset pages over (created_at, id) and a CSV export read in batches,
// so that neither a deep page nor a large export costs more than its size.
import type { ExpressionBuilder, Kysely, SelectQueryBuilder } from 'kysely';
import type { DB } from '../db/schema.ts';
import { INVOICE_STATUSES } from '../invoices/invoice-object.ts';
import { UserInputError } from './errors.ts';
import { parseListFilter, UUID, type ListFilter } from './list-filter.ts';

export const PAGE_SIZE = 25;
const CSV_BATCH = 500;

export interface InvoiceFilter extends ListFilter {
  /** Epoch ms, inclusive. */
  from: number | null;
  /** Epoch ms, exclusive. */
  to: number | null;
}

export interface Cursor {
  t: number;
  id: string;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

function day(value: unknown, field: string): number | null {
  if (value === undefined || value === null || value === '') return null;
  const m = typeof value === 'string' ? DAY.exec(value) : null;
  const ms = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : NaN;
  if (!m || Number.isNaN(ms) || new Date(ms).getUTCDate() !== Number(m[3])) throw new UserInputError(`${field} must be a date as YYYY-MM-DD.`, 'bad_date', { field });
  return ms;
}

/** Reads the filter from a query string; refuses what it cannot use with a clear message. */
export function parseFilter(query: Record<string, unknown>): InvoiceFilter {
  const common = parseListFilter(query, INVOICE_STATUSES);
  const from = day(query.from, 'From');
  const toDay = day(query.to, 'To');
  return { ...common, from, to: toDay === null ? null : toDay + 86_400_000 };
}

export function parseCursor(value: unknown): Cursor | null {
  if (typeof value !== 'string' || value === '') return null;
  const [t, id] = value.split('_');
  if (!t || !id || !/^\d{1,16}$/.test(t) || !UUID.test(id)) throw new UserInputError('The page cursor is not valid.', 'bad_cursor');
  return { t: Number(t), id: id.toLowerCase() };
}

export function cursorOf(row: { created_at: number; id: string }): string {
  return `${row.created_at}_${row.id}`;
}

export const LIST_COLUMNS = [
  'id', 'order_id', 'amount', 'currency', 'payer_amount', 'payer_currency', 'network', 'status', 'payment_amount', 'created_at', 'address', 'txid',
] as const;

function filtered(db: Kysely<DB>, merchantId: string, f: InvoiceFilter): SelectQueryBuilder<DB, 'invoices', object> {
  let q = db.selectFrom('invoices').where('merchant_id', '=', merchantId);
  if (f.status) q = q.where('status', '=', f.status);
  if (f.currency) q = q.where((eb) => eb.or([eb('payer_currency', '=', f.currency), eb('currency', '=', f.currency)]));
  if (f.network) q = q.where('network', '=', f.network);
  if (f.from !== null) q = q.where('created_at', '>=', f.from);
  if (f.to !== null) q = q.where('created_at', '<', f.to);
  if (f.q) {
    const term = f.q;
    // Each alternative is an indexed equality: order_id (unique per merchant), id, address, txid,
    // and the txid of any transfer paid into the invoice.
    q = q.where((eb: ExpressionBuilder<DB, 'invoices'>) =>
      eb.or([
        eb('order_id', '=', term),
        ...(UUID.test(term) ? [eb('id', '=', term.toLowerCase())] : []),
        eb('address', '=', term),
        eb('txid', '=', term),
        eb('id', 'in', eb.selectFrom('chain_transfers').select('owner_id').where('txid', '=', term).where('owner_kind', '=', 'invoice')),
      ]),
    );
  }
  return q;
}

function after(q: SelectQueryBuilder<DB, 'invoices', object>, c: Cursor | null) {
  // A row-value comparison: both databases walk the (merchant_id, [status,] created_at, id) index
  // from the cursor, where the equivalent OR made PostgreSQL filter a deep page row by row.
  return c ? q.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(c.t, c.id))) : q;
}

export type ListedInvoice = Pick<DB['invoices'], (typeof LIST_COLUMNS)[number]>;

/** One page, newest first; `next` is the cursor of the following page or null. */
export async function searchInvoices(db: Kysely<DB>, merchantId: string, f: InvoiceFilter, cursor: Cursor | null, size = PAGE_SIZE): Promise<{ items: ListedInvoice[]; next: string | null }> {
  const rows = await after(filtered(db, merchantId, f), cursor)
    .select(LIST_COLUMNS)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(size + 1)
    .execute();
  const items = rows.slice(0, size);
  return { items, next: rows.length > size ? cursorOf(items[items.length - 1]!) : null };
}

export const CSV_COLUMNS = [
  'uuid', 'order_id', 'created_at', 'status', 'amount', 'currency', 'payer_amount', 'payer_currency', 'network', 'payment_amount', 'payment_amount_usd', 'merchant_amount', 'address', 'txid',
] as const;

/** A spreadsheet must never run what a payer or merchant typed: =, +, -, @ lead no cell. */
export function csvCell(v: string | number | null): string {
  if (v === null) return '';
  let s = String(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n']/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

type CsvRow = Pick<
  DB['invoices'],
  'id' | 'order_id' | 'created_at' | 'status' | 'amount' | 'currency' | 'payer_amount' | 'payer_currency' | 'network' | 'payment_amount' | 'payment_amount_usd' | 'merchant_amount' | 'address' | 'txid'
>;

/** The CSV of every invoice the filter matches, in batches (memory stays flat whatever the count). */
export async function* invoicesCsv(db: Kysely<DB>, merchantId: string, f: InvoiceFilter): AsyncGenerator<string> {
  yield CSV_COLUMNS.join(',') + '\r\n';
  let cursor: Cursor | null = null;
  for (;;) {
    const rows: CsvRow[] = await after(filtered(db, merchantId, f), cursor)
      .select(['id', 'order_id', 'created_at', 'status', 'amount', 'currency', 'payer_amount', 'payer_currency', 'network', 'payment_amount', 'payment_amount_usd', 'merchant_amount', 'address', 'txid'])
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(CSV_BATCH)
      .execute();
    let chunk = '';
    for (const r of rows) {
      chunk +=
        [r.id, r.order_id, new Date(Number(r.created_at)).toISOString(), r.status, r.amount, r.currency, r.payer_amount, r.payer_currency, r.network, r.payment_amount, r.payment_amount_usd, r.merchant_amount, r.address, r.txid]
          .map(csvCell)
          .join(',') + '\r\n';
    }
    if (chunk) yield chunk;
    if (rows.length < CSV_BATCH) return;
    const last: CsvRow = rows[rows.length - 1]!;
    cursor = { t: Number(last.created_at), id: last.id };
  }
}
