// What the payer may see of a recurrence (the page is public, whoever holds the link): what is
// subscribed to, the choice of currency and network while it is open, and where it stands. Never
// the merchant's url_callback, additional_data or order_id.
import type { Ctx } from '../context.ts';
import { NotFoundError } from '../errors.ts';
import { money } from '../money/format.ts';
import { currencyNetworkLabel } from '../registry/index.ts';
import { getPublicProfile } from '../merchants/profile.ts';
import { isUuid } from '../contracts/rules.ts';
import type { PayerCurrencyOption, PayerRecurrence } from '../contracts/payer.ts';
import type { RecurrencePeriod, RecurrenceStatus } from '../contracts/recurrence-status.ts';
import type { RecurrenceRow } from './recurrence-object.ts';
import { autoRenewOffered } from './allowance.ts';

export const RECURRENCE_NOT_FOUND = 'Recurrence not found';

/** The statuses in which the payer may cancel from the page: the subscription is running. */
export const PAYER_CANCELLABLE: ReadonlySet<string> = new Set(['active', 'wait_payment']);

export async function loadRecurrence(ctx: Ctx, uuid: string): Promise<RecurrenceRow> {
  const rec = isUuid(uuid) ? await ctx.storage.db.selectFrom('recurrences').selectAll().where('id', '=', uuid.toLowerCase()).executeTakeFirst() : undefined;
  if (!rec) throw new NotFoundError(RECURRENCE_NOT_FOUND);
  return rec;
}

const seconds = (ms: number | string | null): number | null => (ms === null ? null : Math.floor(Number(ms) / 1000));

/** When the current period began or the next begins, as the payer is told it. */
function nextPayment(ctx: Ctx, rec: RecurrenceRow): number | null {
  if (rec.status === 'active') return seconds(rec.next_due_at);
  if (rec.status === 'wait_payment' && rec.grace_until !== null) return seconds(Number(rec.grace_until) - ctx.config.recurrenceGraceMs);
  return null;
}

/** The payer's view of the recurrence `uuid` (404 when there is none). */
export async function recurrencePayerView(ctx: Ctx, uuid: string): Promise<PayerRecurrence> {
  const rec = await loadRecurrence(ctx, uuid);
  const network = rec.network ? ctx.registry.network(rec.network) : undefined;
  const currency = network && rec.payer_currency ? ctx.registry.currencyOn(network.code, rec.payer_currency) : undefined;
  let options: PayerCurrencyOption[] | null = null;
  let test = ctx.chains.isTestNetwork(rec.network);
  if (rec.status === 'wait_accept' && rec.network === null) {
    const o = await ctx.features.invoices.payerOptions(ctx, rec.merchant_id, { amount: rec.amount, currency: rec.currency }, { currency: rec.payer_currency });
    options = o.list;
    test = o.test;
  }
  return {
    kind: 'recurrence',
    uuid: rec.id,
    name: rec.name,
    status: rec.status as RecurrenceStatus,
    amount: money(rec.amount)!,
    currency: rec.currency,
    currency_is_fiat: !ctx.registry.isCrypto(rec.currency),
    period: rec.period as RecurrencePeriod,
    discount_amount: money(rec.discount_amount),
    discount_days: rec.discount_days === null ? null : Number(rec.discount_days),
    end_of_discount: seconds(rec.end_of_discount),
    payer_currency: rec.payer_currency,
    network: network ? network.code : null,
    network_name: network && currency ? currencyNetworkLabel(network, currency) : null,
    payer_amount: money(rec.payer_amount),
    next_payment_at: nextPayment(ctx, rec),
    pay_before: rec.status === 'wait_payment' ? seconds(rec.grace_until) : null,
    invoice_uuid: rec.invoice_id,
    options,
    can_cancel: PAYER_CANCELLABLE.has(rec.status),
    auto_renew: autoRenewOffered(ctx, rec),
    merchant: await getPublicProfile(ctx.storage.db, rec.merchant_id),
    test_mode: test,
    server_time: ctx.now(),
  };
}
