// Payout info, history and the test-webhook lookup.
import type { Ctx } from '../context.ts';
import { BusinessError, Msg, ValidationError } from '../errors.ts';
import { isMissing, validate, type Input } from '../http/validation.ts';
import { parseListDate, type Page } from '../invoices/queries.ts';
import { balanceOf } from '../ledger/index.ts';
import type { PayoutWebhookSource } from '../webhooks/payload.ts';
import { payoutWebhookSourceOf, presentPayout, type PayoutRow } from './model.ts';

export const PER_PAGE = 15;

/** POST /v1/payout/info: uuid or order_id (1..32); `order_id` wins. Unknown: `Not found payout`. */
export async function payoutInfo(ctx: Ctx, merchantId: string, input: Input): Promise<Record<string, unknown>> {
  validate(input, {
    uuid: 'required_without:order_id|uuid',
    order_id: 'required_without:uuid|string|min:1|max:32|alpha_dash',
  });
  let q = ctx.storage.db.selectFrom('payouts').selectAll().where('merchant_id', '=', merchantId).where('kind', '=', 'payout');
  q = isMissing(input.order_id) ? q.where('id', '=', String(input.uuid).toLowerCase()) : q.where('order_id', '=', String(input.order_id));
  const row = await q.executeTakeFirst();
  if (!row) throw new BusinessError(Msg.testPayoutNotFound);
  return presentPayout(row, { balance: await balanceOf(ctx.storage.db, merchantId, 'business', row.debit_currency) });
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

/**
 * POST /v1/payout/list: `{merchant_uuid, items, paginate}`, newest first, 15 per page, keyset cursors
 * in `?cursor=` (or the body), `date_from` / `date_to` as for invoice history.
 */
export async function listPayouts(
  ctx: Ctx,
  merchantId: string,
  input: Input,
  query: Record<string, unknown>,
): Promise<{ merchant_uuid: string } & Page<Record<string, unknown>>> {
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

  let q = ctx.storage.db.selectFrom('payouts').selectAll().where('merchant_id', '=', merchantId).where('kind', '=', 'payout');
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
  const balances = new Map<string, string>();
  const items: Record<string, unknown>[] = [];
  for (const r of page) {
    if (!balances.has(r.debit_currency)) balances.set(r.debit_currency, await balanceOf(ctx.storage.db, merchantId, 'business', r.debit_currency));
    items.push(presentPayout(r, { balance: balances.get(r.debit_currency)!, times: true }));
  }
  return {
    merchant_uuid: merchantId,
    items,
    paginate: {
      count: page.length,
      hasPages: nextCursor !== null || previousCursor !== null,
      nextCursor,
      previousCursor,
      perPage: PER_PAGE,
    },
  };
}

/** The merchant's payout a test webhook names (uuid first, else order_id), or null. */
export async function findPayoutForTest(ctx: Ctx, merchantId: string, target: { uuid?: string | null; order_id?: string | null }): Promise<PayoutRow | null> {
  let q = ctx.storage.db.selectFrom('payouts').selectAll().where('merchant_id', '=', merchantId).where('kind', '=', 'payout');
  if (target.uuid) q = q.where('id', '=', target.uuid.toLowerCase());
  else if (target.order_id) q = q.where('order_id', '=', target.order_id);
  else return null;
  return (await q.executeTakeFirst()) ?? null;
}

/** findPayoutForTest, as the webhook source `src/webhooks/test-webhooks.ts` builds the body from. */
export async function findPayoutWebhookSourceForTest(
  ctx: Ctx,
  merchantId: string,
  target: { uuid?: string | null; order_id?: string | null },
): Promise<PayoutWebhookSource | null> {
  const row = await findPayoutForTest(ctx, merchantId, target);
  return row ? payoutWebhookSourceOf(row) : null;
}
