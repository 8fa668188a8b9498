// POST /v1/payment/refund: sends (part of) what an invoice received back out, from the merchant's
// business balance, and moves the invoice through refund_process -> refund_paid | refund_fail.
import type { Kysely } from 'kysely';
import type { Ctx } from '../context.ts';
import type { DB, InvoicesTable as InvoiceRow } from '../db/schema.ts';
import { BusinessError, Msg, ValidationError } from '../errors.ts';
import { balanceOf, InsufficientFunds } from '../ledger/index.ts';
import type { Merchant } from '../merchants/store.ts';
import { Decimal } from '../money/decimal.ts';
import { ensureHotWalletCovers } from '../outgoing/coverage.ts';
import { enqueueOutgoing, newOutgoing } from '../outgoing/lifecycle.ts';
import { destinationFee, networkFee } from '../pricing/payout-quote.ts';
import { isWalletActive } from '../ledger/merchant-wallets.ts';
import type { RefundParams } from '../contracts/merchant-api/invoices.ts';
import type { RecordRef } from '../contracts/merchant-api/parse.ts';

/** Invoices that may be refunded: finalized and paid (a partial refund leaves them refundable). */
const REFUNDABLE: ReadonlySet<string> = new Set(['paid', 'paid_over', 'refund_paid', 'refund_fail']);

/** Refunds that count against what was paid: every one that did not fail. */
const SPENT = ['process', 'check', 'paid'];

/**
 * Refunds `amount` (default: everything not yet refunded) of a finalized, paid invoice to
 * `address`, in the invoice's payer currency and network. With is_subtract the network fee is taken
 * from the balance on top; without, the address receives the amount less the fee. uuid wins over
 * order_id. Errors, in order: `Payment was not found`, `Undefined merchant wallet` (the business
 * wallet of the invoice's currency is switched off), `Refunds are made only for completed
 * payments`, address `validation.regex`, `The refund amount should not be more than the amount
 * paid` (earlier refunds that did not fail count), `The withdrawal amount is too small` (the fee
 * would take it all), `Not enough funds` (the balance cannot cover it). All checks and the debit
 * happen with the invoice row locked, so concurrent refunds cannot exceed what was paid. Before
 * that, the same checks on the invoice as it stands, and then `The gateway cannot send this payout
 * now: not enough <C> in its hot wallet` when the network's hot wallet cannot pay the refund
 * (nothing is recorded or debited), as for payouts.
 */
export async function refundInvoice(ctx: Ctx, merchant: Merchant, params: RefundParams): Promise<[]> {
  const { address, is_subtract: isSubtract } = params;
  const first = await prepareRefund(ctx, ctx.storage.db, merchant, params, address, isSubtract, false);
  // The merchant's own shortfall answers first (Not enough funds, in the transaction).
  if (!Decimal.parse(await balanceOf(ctx.storage.db, merchant.id, 'business', first.currency)).lt(first.merchantAmount)) {
    await ensureHotWalletCovers(ctx, { network: first.network, currency: first.currency, to: address, amount: first.sent.toString(), priority: 'recommended' });
  }
  await ctx.storage.write(async (trx) => {
    const p = await prepareRefund(ctx, trx, merchant, params, address, isSubtract, true);
    const now = ctx.now();
    const out = newOutgoing({
      merchantId: merchant.id,
      kind: 'refund',
      refId: p.inv.id,
      amount: p.amount.toString(),
      currency: p.currency,
      network: p.network,
      address,
      isSubtract,
      payerAmount: p.sent.toString(),
      commission: p.fee.toString(),
      merchantAmount: p.merchantAmount.toString(),
      now,
    });
    try {
      await enqueueOutgoing(ctx, trx, out);
    } catch (e) {
      if (e instanceof InsufficientFunds) throw new BusinessError(Msg.notEnoughFunds);
      throw e;
    }
    const patch: Partial<InvoiceRow> = { status: 'refund_process', updated_at: now, version: p.inv.version + 1 };
    await trx.updateTable('invoices').set(patch).where('id', '=', p.inv.id).execute();
    await ctx.features.invoices.enqueueWebhook(ctx, trx, { ...p.inv, ...patch });
  });
  return [];
}

interface RefundPlan {
  inv: InvoiceRow;
  network: string;
  currency: string;
  amount: Decimal;
  fee: Decimal;
  /** What the address receives. */
  sent: Decimal;
  /** What the business balance pays. */
  merchantAmount: Decimal;
}

/** Every check of the refund, in the answer's order; with `lock`, on the invoice row locked. */
async function prepareRefund(
  ctx: Ctx,
  db: Kysely<DB>,
  merchant: Merchant,
  params: RecordRef & { amount: string | null },
  address: string,
  isSubtract: boolean,
  lock: boolean,
): Promise<RefundPlan> {
  let q = db.selectFrom('invoices').selectAll().where('merchant_id', '=', merchant.id);
  q = params.uuid !== null ? q.where('id', '=', params.uuid) : q.where('order_id', '=', params.order_id);
  const inv = await (lock ? ctx.storage.forUpdate(q) : q).executeTakeFirst();
  if (!inv) throw new BusinessError(Msg.refundPaymentNotFound);
  if (inv.payer_currency && !(await isWalletActive(ctx, db, merchant.id, 'business', inv.payer_currency))) {
    throw new BusinessError(Msg.undefinedMerchantWallet);
  }
  const network = ctx.registry.network(inv.network);
  const currency = network && inv.payer_currency ? ctx.registry.currencyOn(network.code, inv.payer_currency) : undefined;
  if (!REFUNDABLE.has(inv.status) || inv.is_final !== 1 || !inv.payment_amount || !network || !currency) {
    throw new BusinessError(Msg.refundOnlyCompleted);
  }
  // A refund goes out on the invoice's network: not on one the gateway does not offer (Chains.offered).
  if (!ctx.chains.offered(network.code)) throw new BusinessError(Msg.serviceNotFound);
  if (!ctx.chains.families.addresses.isValid(network.address_format, address, network.chain)) throw new ValidationError({ address: ['validation.regex'] });

  const earlier = await db
    .selectFrom('payouts')
    .select('amount')
    .where('kind', '=', 'refund')
    .where('ref_id', '=', inv.id)
    .where('status', 'in', SPENT)
    .execute();
  const refundable = Decimal.parse(inv.payment_amount).sub(earlier.reduce((s, r) => s.add(r.amount), Decimal.ZERO));
  const amount = params.amount === null ? refundable : Decimal.parse(params.amount).round(currency.decimals, 'down');
  if (!amount.gt('0') || amount.gt(refundable)) throw new BusinessError(Msg.refundTooMuch);

  const fee = (await networkFee(ctx, network, currency, 'recommended')).add(await destinationFee(ctx, network, currency, address, amount));
  const sent = isSubtract ? amount : amount.sub(fee);
  if (!sent.gt('0')) throw new BusinessError(Msg.withdrawalTooSmall);
  return { inv, network: network.code, currency: currency.code, amount, fee, sent, merchantAmount: isSubtract ? amount.add(fee) : amount };
}
