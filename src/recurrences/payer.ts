// What the payer may see of a recurrence (the page is public, whoever holds the link): what is
// subscribed to, the choice of currency and network while it is open, and where it stands. Never
// the merchant's url_callback, additional_data or order_id.
import type { Ctx } from '../context.ts';
import { NotFoundError } from '../errors.ts';
import { money } from '../money/format.ts';
import { currencyNetworkLabel } from '../registry/index.ts';
import { getPublicProfile } from '../merchants/profile.ts';
import { isUuid } from '../contracts/rules.ts';
import type { PayerAutoPull, PayerCurrencyOption, PayerRecurrence } from '../contracts/payer.ts';
import { explorerTxUrl } from '../chain/explorer.ts';
import type { RecurrencePeriod, RecurrenceStatus } from '../contracts/recurrence-status.ts';
import type { RecurrenceRow } from './recurrence-object.ts';
import { autoRenewOffered } from './allowance.ts';
import { allowanceCovers, pullerOf, waitsForNode } from './pulls.ts';

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

/**
 * Whether the renewal due is being collected automatically (the page then shows no invoice to pay:
 * paying it by hand as well would pay twice). From the period's pull when there is one: planned is
 * pending, sent and confirmed as they are, skipped or failed is null (the invoice is paid by hand).
 * Before the worker's next round there is none yet: pending when the pull step will pull it, the
 * same conditions as its own (an active allowance on the invoice's network and currency, a collector
 * to pull with, the invoice open with nothing paid to it).
 */
async function autoPull(ctx: Ctx, rec: RecurrenceRow): Promise<PayerAutoPull | null> {
  if (rec.status !== 'wait_payment' || rec.invoice_id === null || rec.period_index < 1) return null;
  const db = ctx.storage.db;
  const pull = await db.selectFrom('recurrence_pulls').selectAll().where('recurrence_id', '=', rec.id).where('period', '=', rec.period_index).executeTakeFirst();
  if (pull) {
    if (pull.status === 'planned') return { status: 'pending', txid: null, explorer_url: null };
    if (pull.status !== 'sent' && pull.status !== 'confirmed') return null;
    return { status: pull.status, txid: pull.txid, explorer_url: explorerTxUrl(ctx, pull.network, pull.txid) };
  }
  const allowance = await db.selectFrom('recurrence_allowances').select(['network', 'currency', 'created_at']).where('recurrence_id', '=', rec.id).where('status', '=', 'active').executeTakeFirst();
  if (!allowance || allowance.network !== rec.network || allowance.currency !== rec.payer_currency) return null;
  const inv = await db.selectFrom('invoices').select(['status', 'payment_amount', 'network', 'payer_currency', 'created_at']).where('id', '=', rec.invoice_id).executeTakeFirst();
  if (!inv || inv.status !== 'process' || inv.payment_amount !== null || inv.network !== allowance.network || inv.payer_currency !== allowance.currency) return null;
  // An allowance recorded after this invoice was made leaves it to the payer (allowanceCovers).
  if (!allowanceCovers(allowance, inv)) return null;
  // A node that has not answered yet: the pull waits for it, it is still pending.
  if (pullerOf(ctx, allowance.network) === null && !waitsForNode(ctx, allowance.network)) return null;
  return { status: 'pending', txid: null, explorer_url: null };
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
    auto_pull: await autoPull(ctx, rec),
    merchant: await getPublicProfile(ctx.storage.db, rec.merchant_id),
    test_mode: test,
    server_time: ctx.now(),
  };
}
