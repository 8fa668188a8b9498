// POST /v1/payment/refund: sends (part of) what an invoice received back out, from the merchant's
// business balance, and moves the invoice through refund_process -> refund_paid | refund_fail.
import type { Ctx } from '../context.ts';
import { BusinessError, Msg, ValidationError } from '../errors.ts';
import { isMissing, toBoolean, validate, type Input } from '../contracts/rules.ts';
import { isValidAddress } from '../chain/address/index.ts';
import { enqueueInvoiceWebhook } from '../invoices/lifecycle.ts';
import type { InvoiceRow } from '../invoices/model.ts';
import { InsufficientFunds } from '../ledger/index.ts';
import type { Merchant } from '../merchants/store.ts';
import { Decimal } from '../money/decimal.ts';
import { newOutgoing, reserveFunds } from '../payouts/outgoing.ts';
import { networkFee } from '../payouts/pricing.ts';
import { isWalletActive } from '../wallets/merchant-wallets.ts';
import { refundInvoiceOp } from '../contracts/merchant-api/invoices.ts';

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
 * happen with the invoice row locked, so concurrent refunds cannot exceed what was paid.
 */
export async function refundInvoice(ctx: Ctx, merchant: Merchant, input: Input): Promise<[]> {
  validate(input, refundInvoiceOp.params);
  const address = String(input.address);
  const isSubtract = toBoolean(input.is_subtract, false);
  await ctx.storage.write(async (trx) => {
    let q = trx.selectFrom('invoices').selectAll().where('merchant_id', '=', merchant.id);
    q = !isMissing(input.uuid) ? q.where('id', '=', String(input.uuid).toLowerCase()) : q.where('order_id', '=', String(input.order_id));
    const inv = await ctx.storage.forUpdate(q).executeTakeFirst();
    if (!inv) throw new BusinessError(Msg.refundPaymentNotFound);
    if (inv.payer_currency && !(await isWalletActive(ctx, trx, merchant.id, 'business', inv.payer_currency))) {
      throw new BusinessError(Msg.undefinedMerchantWallet);
    }
    const network = ctx.registry.network(inv.network);
    const currency = network && inv.payer_currency ? ctx.registry.currencyOn(network.code, inv.payer_currency) : undefined;
    if (!REFUNDABLE.has(inv.status) || inv.is_final !== 1 || !inv.payment_amount || !network || !currency) {
      throw new BusinessError(Msg.refundOnlyCompleted);
    }
    if (!isValidAddress(network.address_format, address, network.chain)) throw new ValidationError({ address: ['validation.regex'] });

    const earlier = await trx
      .selectFrom('payouts')
      .select('amount')
      .where('kind', '=', 'refund')
      .where('ref_id', '=', inv.id)
      .where('status', 'in', SPENT)
      .execute();
    const refundable = Decimal.parse(inv.payment_amount).sub(earlier.reduce((s, r) => s.add(r.amount), Decimal.ZERO));
    const amount = isMissing(input.amount) ? refundable : Decimal.parse(String(input.amount).trim()).round(currency.decimals, 'down');
    if (!amount.gt('0') || amount.gt(refundable)) throw new BusinessError(Msg.refundTooMuch);

    const fee = await networkFee(ctx, network, currency, 'recommended');
    const sent = isSubtract ? amount : amount.sub(fee);
    if (!sent.gt('0')) throw new BusinessError(Msg.withdrawalTooSmall);
    const now = ctx.now();
    const out = newOutgoing({
      merchantId: merchant.id,
      kind: 'refund',
      refId: inv.id,
      amount: amount.toString(),
      currency: currency.code,
      network: network.code,
      address,
      isSubtract,
      payerAmount: sent.toString(),
      commission: fee.toString(),
      merchantAmount: (isSubtract ? amount.add(fee) : amount).toString(),
      now,
    });
    await trx.insertInto('payouts').values(out).execute();
    try {
      await reserveFunds(ctx, trx, out);
    } catch (e) {
      if (e instanceof InsufficientFunds) throw new BusinessError(Msg.notEnoughFunds);
      throw e;
    }
    const patch: Partial<InvoiceRow> = { status: 'refund_process', updated_at: now, version: inv.version + 1 };
    await trx.updateTable('invoices').set(patch).where('id', '=', inv.id).execute();
    await enqueueInvoiceWebhook(ctx, trx, { ...inv, ...patch });
  });
  return [];
}
