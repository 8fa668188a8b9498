// Payout info and history.
import type { Ctx } from '../context.ts';
import { BusinessError, Msg } from '../errors.ts';
import { historyPage, type Page } from '../db/history.ts';
import { balanceOf } from '../ledger/index.ts';
import { presentPayout } from './payout-object.ts';
import type { Payout } from '../contracts/merchant-api/objects.ts';
import type { HistoryParams } from '../contracts/merchant-api/invoices.ts';
import type { RecordRef } from '../contracts/merchant-api/parse.ts';


/** POST /v1/payout/info: uuid or order_id (1..32); `order_id` wins. Unknown: `Not found payout`. */
export async function payoutInfo(ctx: Ctx, merchantId: string, ref: RecordRef): Promise<Payout> {
  let q = ctx.storage.db.selectFrom('payouts').selectAll().where('merchant_id', '=', merchantId).where('kind', '=', 'payout');
  q = ref.uuid !== null ? q.where('id', '=', ref.uuid) : q.where('order_id', '=', ref.order_id);
  const row = await q.executeTakeFirst();
  if (!row) throw new BusinessError(Msg.testPayoutNotFound);
  return presentPayout(row, { balance: await balanceOf(ctx.storage.db, merchantId, 'business', row.debit_currency) });
}

/**
 * POST /v1/payout/list: `{merchant_uuid, items, paginate}`, newest first, 15 per page, keyset cursors
 * in `?cursor=` (or the body), `date_from` / `date_to` as for invoice history.
 */
export async function listPayouts(
  ctx: Ctx,
  merchantId: string,
  params: HistoryParams,
): Promise<{ merchant_uuid: string } & Page<Payout>> {
  const base = ctx.storage.db.selectFrom('payouts').selectAll().where('merchant_id', '=', merchantId).where('kind', '=', 'payout');
  const { rows: page, paginate } = await historyPage(base, params);
  const balances = new Map<string, string>();
  const items: Payout[] = [];
  for (const r of page) {
    if (!balances.has(r.debit_currency)) balances.set(r.debit_currency, await balanceOf(ctx.storage.db, merchantId, 'business', r.debit_currency));
    items.push(presentPayout(r, { balance: balances.get(r.debit_currency)!, times: true }));
  }
  return {
    merchant_uuid: merchantId,
    items,
    paginate,
  };
}
