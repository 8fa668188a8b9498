// Invoice info, history and QR for the merchant API.
import type { Ctx } from '../context.ts';
import { BusinessError, Msg, ValidationError } from '../errors.ts';
import { isMissing, validate, type Input } from '../http/validation.ts';
import { presentInvoice, type InvoiceRow } from './model.ts';
import { qrDataUrl } from './qr.ts';
import { prepared } from '../db/prepared.ts';

export const PER_PAGE = 15;

const ID_RULES = {
  uuid: 'required_without:order_id|uuid',
  order_id: 'required_without:uuid|string|min:1|max:128|alpha_dash',
};

const byId = prepared((db, merchantId: string, id: string) =>
  db.selectFrom('invoices').selectAll().where('merchant_id', '=', merchantId).where('id', '=', id),
);
const byOrder = prepared((db, merchantId: string, orderId: string) =>
  db.selectFrom('invoices').selectAll().where('merchant_id', '=', merchantId).where('order_id', '=', orderId),
);

/** uuid or order_id; `order_id` wins when both are passed. */
export async function findInvoice(ctx: Ctx, merchantId: string, input: Input, rules = ID_RULES): Promise<InvoiceRow | undefined> {
  validate(input, rules);
  const rows = isMissing(input.order_id)
    ? await byId(ctx.storage.db, merchantId, String(input.uuid).toLowerCase())
    : await byOrder(ctx.storage.db, merchantId, String(input.order_id));
  return rows[0];
}

export async function invoiceInfo(ctx: Ctx, merchantId: string, input: Input): Promise<Record<string, unknown>> {
  const row = await findInvoice(ctx, merchantId, input);
  if (!row) throw new BusinessError(Msg.paymentNotFound);
  return presentInvoice(row, { publicUrl: ctx.config.publicUrl });
}

export async function invoiceQr(ctx: Ctx, merchantId: string, input: Input): Promise<{ image: string }> {
  validate(input, { merchant_payment_uuid: 'required|string|uuid' });
  const row = await ctx.storage.db
    .selectFrom('invoices')
    .select(['id', 'address'])
    .where('merchant_id', '=', merchantId)
    .where('id', '=', String(input.merchant_payment_uuid).toLowerCase())
    .executeTakeFirst();
  if (!row) throw new BusinessError(Msg.paymentNotFound);
  // Before the payer has chosen a currency there is no address yet: the QR opens the payment page.
  return { image: await qrDataUrl(row.address ?? `${ctx.config.publicUrl}/pay/${row.id}`) };
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2}) (\d{1,2}):(\d{2}):(\d{2})$/;

/** 'YYYY-MM-DD H:mm:ss' read at UTC+3 (the API's timezone), to epoch milliseconds; null if not a real time. */
export function parseListDate(s: string): number | null {
  const m = DATE_RE.exec(s);
  if (!m) return null;
  const [y, mo, d, h, mi, se] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || se > 59) return null;
  const ms = Date.UTC(y, mo - 1, d, h, mi, se);
  if (new Date(ms).getUTCDate() !== d) return null;
  return ms - 3 * 3600_000;
}

interface Cursor {
  d: 'n' | 'p';
  t: number;
  i: string;
}

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify(c)).toString('base64url');
}

function decodeCursor(s: string): Cursor | null {
  try {
    const c = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as Cursor;
    if ((c.d === 'n' || c.d === 'p') && Number.isSafeInteger(c.t) && typeof c.i === 'string') return c;
  } catch {
    /* falls through */
  }
  return null;
}

export interface Page<T> {
  items: T[];
  paginate: { count: number; hasPages: boolean; nextCursor: string | null; previousCursor: string | null; perPage: number };
}

/** Keyset pagination over (created_at, id), newest first: pages stay stable while invoices are added. */
export async function listInvoices(ctx: Ctx, merchantId: string, input: Input, query: Record<string, unknown>): Promise<Page<Record<string, unknown>>> {
  const re = '/^\\d{4}-\\d{2}-\\d{2} \\d{1,2}:\\d{2}:\\d{2}$/';
  validate(input, { date_from: `string|regex:${re}`, date_to: `string|regex:${re}` });
  const errors: Record<string, string[]> = {};
  const from = isMissing(input.date_from) ? null : parseListDate(String(input.date_from));
  const to = isMissing(input.date_to) ? null : parseListDate(String(input.date_to));
  if (!isMissing(input.date_from) && from === null) errors.date_from = ['validation.regex'];
  if (!isMissing(input.date_to) && to === null) errors.date_to = ['validation.regex'];
  const cursorText = !isMissing(query.cursor) ? query.cursor : input.cursor;
  const cursor = isMissing(cursorText) ? null : typeof cursorText === 'string' ? decodeCursor(cursorText) : null;
  if (!isMissing(cursorText) && !cursor) errors.cursor = ['validation.regex'];
  if (Object.keys(errors).length) throw new ValidationError(errors);

  let q = ctx.storage.db.selectFrom('invoices').selectAll().where('merchant_id', '=', merchantId);
  if (from !== null) q = q.where('created_at', '>=', from);
  if (to !== null) q = q.where('created_at', '<=', to + 999);
  const backwards = cursor?.d === 'p';
  if (cursor) {
    const op = backwards ? '>' : '<';
    q = q.where((eb) => eb.or([eb('created_at', op, cursor.t), eb.and([eb('created_at', '=', cursor.t), eb('id', op, cursor.i)])]));
  }
  const dir = backwards ? 'asc' : 'desc';
  const rows = await q.orderBy('created_at', dir).orderBy('id', dir).limit(PER_PAGE + 1).execute();
  const more = rows.length > PER_PAGE;
  const page = rows.slice(0, PER_PAGE);
  if (backwards) page.reverse();
  const first = page[0];
  const last = page[page.length - 1];
  const hasNext = backwards ? page.length > 0 : more;
  const hasPrev = backwards ? more : cursor !== null && page.length > 0;
  const nextCursor = hasNext && last ? encodeCursor({ d: 'n', t: Number(last.created_at), i: last.id }) : null;
  const previousCursor = hasPrev && first ? encodeCursor({ d: 'p', t: Number(first.created_at), i: first.id }) : null;
  return {
    items: page.map((r) => presentInvoice(r, { publicUrl: ctx.config.publicUrl })),
    paginate: {
      count: page.length,
      hasPages: nextCursor !== null || previousCursor !== null,
      nextCursor,
      previousCursor,
      perPage: PER_PAGE,
    },
  };
}
