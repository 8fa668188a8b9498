// Invoice info, history and QR for the merchant API.
import type { Ctx } from '../context.ts';
import { BusinessError, Msg } from '../errors.ts';
import { isMissing, validate, type Input } from '../contracts/rules.ts';
import { PRESENTED_COLUMNS, presentInvoice, type PresentedInvoice } from './model.ts';
import { qrDataUrl } from '../chain/address/qr.ts';
import { statement } from '../db/statement.ts';
import { BatchedLookup } from '../db/batched-lookup.ts';
import { gathersLookups } from '../db/differences.ts';
import type { Storage } from '../db/storage.ts';
import { sql } from 'kysely';
import { historyPage, type Page } from '../db/history.ts';
import type { Invoice } from '../contracts/merchant-api/objects.ts';
import { invoiceInfoOp, invoiceQrOp } from '../contracts/merchant-api/invoices.ts';


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

/** uuid or order_id; `order_id` wins when both are passed. */
export async function findInvoice(ctx: Ctx, merchantId: string, input: Input, rules = invoiceInfoOp.params): Promise<PresentedInvoice | undefined> {
  validate(input, rules);
  const byUuid = isMissing(input.order_id);
  if (gathersLookups(ctx.storage)) {
    const l = lookupsOf(ctx.storage);
    return byUuid ? l.byId.load({ merchantId, id: String(input.uuid).toLowerCase() }) : l.byOrder.load({ merchantId, orderId: String(input.order_id) });
  }
  // SQLite's reads that arrive together share one read transaction by themselves (db/sqlite.ts).
  const { rows } = byUuid
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
