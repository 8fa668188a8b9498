// Invoice info, history and QR for the merchant API.
import type { Ctx } from '../context.ts';
import { BusinessError, Msg } from '../errors.ts';
import { PRESENTED_COLUMNS, presentInvoice, presentOptions, type PresentedInvoice } from './invoice-object.ts';
import { qrDataUrl } from '../qr/png.ts';
import { addressQrContent } from './create.ts';
import { statement } from '../db/statement.ts';
import { BatchedLookup } from '../db/batched-lookup.ts';
import { gathersLookups } from '../db/differences.ts';
import type { Storage } from '../db/storage.ts';
import { sql } from 'kysely';
import { historyPage, type Page } from '../db/history.ts';
import type { Invoice } from '../contracts/merchant-api/objects.ts';
import type { HistoryParams } from '../contracts/merchant-api/invoices.ts';
import type { RecordRef } from '../contracts/merchant-api/parse.ts';


const byId = statement((db, p: { merchantId: string; id: string }) =>
  db.selectFrom('invoices').select(PRESENTED_COLUMNS).where('merchant_id', '=', p.merchantId).where('id', '=', p.id),
);
const byOrder = statement((db, p: { merchantId: string; orderId: string }) =>
  db.selectFrom('invoices').select(PRESENTED_COLUMNS).where('merchant_id', '=', p.merchantId).where('order_id', '=', p.orderId),
);

type Owned = PresentedInvoice & { merchant_id: string };
const OWNED_COLUMNS = [...PRESENTED_COLUMNS, 'merchant_id'] as const;
const byIds = statement((db, p: { ids: string[] }) =>
  db.selectFrom('invoices').select(OWNED_COLUMNS).where('id', '=', sql<string>`any(${p.ids}::text[])`),
);
const byOrders = statement((db, p: { merchantIds: string[]; orderIds: string[] }) =>
  db
    .selectFrom('invoices')
    .select(OWNED_COLUMNS)
    .where(sql<boolean>`(merchant_id, order_id) in (select * from unnest(${p.merchantIds}::text[], ${p.orderIds}::text[]))`),
);

interface Lookups {
  byId: BatchedLookup<{ merchantId: string; id: string }, Owned>;
  byOrder: BatchedLookup<{ merchantId: string; orderId: string }, Owned>;
}
const lookups = new WeakMap<Storage, Lookups>();

/** PostgreSQL's: one query for the lookups that arrive together (src/db/batched-lookup.ts). */
function lookupsOf(storage: Storage): Lookups {
  let l = lookups.get(storage);
  if (l) return l;
  const ownId = (merchantId: string, id: string) => `${merchantId}\u0000${id}`;
  const keyed = (rows: Owned[], key: (r: Owned) => string) => new Map(rows.map((r) => [key(r), r]));
  l = {
    byId: new BatchedLookup(
      async (keys) => keyed((await byIds(storage.db, { ids: [...new Set(keys.map((k) => k.id))] })).rows, (r) => ownId(r.merchant_id, r.id)),
      (k) => ownId(k.merchantId, k.id),
    ),
    byOrder: new BatchedLookup(
      async (keys) => {
        const { rows } = await byOrders(storage.db, { merchantIds: keys.map((k) => k.merchantId), orderIds: keys.map((k) => k.orderId) });
        return keyed(rows, (r) => ownId(r.merchant_id, r.order_id));
      },
      (k) => ownId(k.merchantId, k.orderId),
    ),
  };
  lookups.set(storage, l);
  return l;
}

/** By uuid or order_id (`order_id` wins when both are passed: see the operation). */
export async function findInvoice(ctx: Ctx, merchantId: string, ref: RecordRef): Promise<PresentedInvoice | undefined> {
  if (gathersLookups(ctx.storage)) {
    const l = lookupsOf(ctx.storage);
    return ref.uuid !== null ? l.byId.load({ merchantId, id: ref.uuid }) : l.byOrder.load({ merchantId, orderId: ref.order_id });
  }
  // SQLite's reads that arrive together share one read transaction by themselves (db/sqlite.ts).
  const { rows } = ref.uuid !== null
    ? await byId(ctx.storage.db, { merchantId, id: ref.uuid })
    : await byOrder(ctx.storage.db, { merchantId, orderId: ref.order_id });
  return rows[0];
}

export async function invoiceInfo(ctx: Ctx, merchantId: string, ref: RecordRef): Promise<Invoice> {
  const row = await findInvoice(ctx, merchantId, ref);
  if (!row) throw new BusinessError(Msg.paymentNotFound);
  return presentInvoice(row, presentOptions(ctx));
}

export async function invoiceQr(ctx: Ctx, merchantId: string, params: { merchant_payment_uuid: string }): Promise<{ image: string }> {
  const row = await ctx.storage.db
    .selectFrom('invoices')
    .select(['id', 'network', 'address', 'payment_comment'])
    .where('merchant_id', '=', merchantId)
    .where('id', '=', params.merchant_payment_uuid)
    .executeTakeFirst();
  if (!row) throw new BusinessError(Msg.paymentNotFound);
  // Before the payer has chosen a currency there is no address yet: the QR opens the payment page.
  return { image: await qrDataUrl(row.address ? addressQrContent(ctx, row) : `${ctx.config.publicUrl}/pay/${row.id}`) };
}

/** Invoice history: newest first, keyset cursors, date filters (src/db/history.ts). */
export async function listInvoices(ctx: Ctx, merchantId: string, params: HistoryParams): Promise<Page<Invoice>> {
  const base = ctx.storage.db.selectFrom('invoices').selectAll().where('merchant_id', '=', merchantId);
  const { rows, paginate } = await historyPage(base, params);
  const opts = presentOptions(ctx);
  return { items: rows.map((r) => presentInvoice(r, opts)), paginate };
}
