// Invoice info, history and QR for the merchant API.
import type { Ctx } from '../context.ts';
import { BusinessError, Msg } from '../errors.ts';
import { isMissing, validate, type Input } from '../contracts/rules.ts';
import { PRESENTED_COLUMNS, presentInvoice, type PresentedInvoice } from './model.ts';
import { qrDataUrl } from '../chain/address/qr.ts';
import { statement } from '../db/statement.ts';
import { historyPage, type Page } from '../db/history.ts';
import type { Invoice } from '../contracts/merchant-api/objects.ts';
import { invoiceInfoOp, invoiceQrOp } from '../contracts/merchant-api/invoices.ts';


const byId = statement((db, p: { merchantId: string; id: string }) =>
  db.selectFrom('invoices').select(PRESENTED_COLUMNS).where('merchant_id', '=', p.merchantId).where('id', '=', p.id),
);
const byOrder = statement((db, p: { merchantId: string; orderId: string }) =>
  db.selectFrom('invoices').select(PRESENTED_COLUMNS).where('merchant_id', '=', p.merchantId).where('order_id', '=', p.orderId),
);

/** uuid or order_id; `order_id` wins when both are passed. */
export async function findInvoice(ctx: Ctx, merchantId: string, input: Input, rules = invoiceInfoOp.params): Promise<PresentedInvoice | undefined> {
  validate(input, rules);
  const { rows } = isMissing(input.order_id)
    ? await byId(ctx.storage.db, { merchantId, id: String(input.uuid).toLowerCase() })
    : await byOrder(ctx.storage.db, { merchantId, orderId: String(input.order_id) });
  return rows[0];
}

export async function invoiceInfo(ctx: Ctx, merchantId: string, input: Input): Promise<Invoice> {
  const row = await findInvoice(ctx, merchantId, input);
  if (!row) throw new BusinessError(Msg.paymentNotFound);
  return presentInvoice(row, { publicUrl: ctx.config.publicUrl });
}

export async function invoiceQr(ctx: Ctx, merchantId: string, input: Input): Promise<{ image: string }> {
  validate(input, invoiceQrOp.params);
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

/** Invoice history: newest first, keyset cursors, date filters (src/db/history.ts). */
export async function listInvoices(ctx: Ctx, merchantId: string, input: Input, query: Record<string, unknown>): Promise<Page<Invoice>> {
  const base = ctx.storage.db.selectFrom('invoices').selectAll().where('merchant_id', '=', merchantId);
  const { rows, paginate } = await historyPage(base, input, query);
  return { items: rows.map((r) => presentInvoice(r, { publicUrl: ctx.config.publicUrl })), paginate };
}
