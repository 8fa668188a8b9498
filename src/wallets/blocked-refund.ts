// POST /v1/wallet/blocked-address-refund: the one refund of what a blocked static wallet received.
import type { Ctx } from '../context.ts';
import { BusinessError, Msg, ValidationError } from '../errors.ts';
import { isMissing, validate, type Input } from '../contracts/rules.ts';
import { isValidAddress } from '../chain/address/index.ts';
import { Decimal } from '../money/decimal.ts';
import { newOutgoing } from '../payouts/outgoing.ts';
import { networkFee } from '../payouts/pricing.ts';
import { blockedWalletRefundOp } from '../contracts/merchant-api/wallets.ts';

/**
 * Sends every blocked top-up of the wallet (in its currency; not credited, not refunded to its
 * sender) to `address`, less the network fee. uuid or order_id (1..32): `uuid` wins here. Errors,
 * in order: `Not found`, `Refund is in process`, `You can withdraw only once` (the refund was made,
 * or the wallet refunds to senders and one such refund was made), `Nothing to withdraw` (not
 * blocked, or nothing blocked), `The amount is too small` (less than the payout minimum after the
 * fee). A refund that fails on chain leaves the funds refundable again. The money was never the
 * merchant's (never credited), so no balance moves.
 */
export async function blockedAddressRefund(ctx: Ctx, merchantId: string, input: Input): Promise<{ commission: string; amount: string }> {
  validate(input, blockedWalletRefundOp.params);
  const address = String(input.address);
  return ctx.storage.write(async (trx) => {
    let q = trx.selectFrom('static_wallets').selectAll().where('merchant_id', '=', merchantId);
    q = !isMissing(input.uuid) ? q.where('id', '=', String(input.uuid).toLowerCase()) : q.where('order_id', '=', String(input.order_id));
    const w = await ctx.storage.forUpdate(q).executeTakeFirst();
    if (!w) throw new BusinessError(Msg.notFound);
    if (w.refund_status === 'process') throw new BusinessError(Msg.refundInProcess);
    if (w.refund_status === 'paid') throw new BusinessError(Msg.withdrawOnlyOnce);
    if (w.is_force_refund === 1) {
      const forced = await trx
        .selectFrom('wallet_topups')
        .select('id')
        .where('wallet_id', '=', w.id)
        .where('outcome', 'in', ['force_refund', 'refunded'])
        .executeTakeFirst();
      if (forced) throw new BusinessError(Msg.withdrawOnlyOnce);
    }
    if (w.status !== 'blocked') throw new BusinessError(Msg.nothingToWithdraw);
    const blocked = await trx
      .selectFrom('wallet_topups')
      .select(['id', 'amount'])
      .where('wallet_id', '=', w.id)
      .where('outcome', '=', 'blocked')
      .where('currency', '=', w.currency)
      .where('wallet_refund_id', 'is', null)
      .execute();
    const total = blocked.reduce((s, t) => s.add(t.amount), Decimal.ZERO);
    if (!total.gt('0')) throw new BusinessError(Msg.nothingToWithdraw);

    const network = ctx.registry.network(w.network);
    const currency = network ? ctx.registry.currencyOn(network.code, w.currency) : undefined;
    if (!network || !currency) throw new BusinessError(Msg.serviceNotFound);
    if (!isValidAddress(network.address_format, address, network.chain)) throw new ValidationError({ address: ['validation.regex'] });
    const fee = await networkFee(ctx, network, currency, 'recommended');
    const amount = total.sub(fee);
    if (amount.lt(currency.payout_min) || !amount.gt('0')) throw new BusinessError(Msg.amountTooSmall);

    const now = ctx.now();
    const out = newOutgoing({
      merchantId,
      kind: 'wallet_refund',
      refId: w.id,
      amount: total.toString(),
      currency: currency.code,
      network: network.code,
      address,
      isSubtract: false,
      payerAmount: amount.toString(),
      commission: fee.toString(),
      merchantAmount: '0',
      now,
    });
    await trx.insertInto('payouts').values(out).execute();
    await trx
      .updateTable('wallet_topups')
      .set({ wallet_refund_id: out.id, updated_at: now })
      .where('id', 'in', blocked.map((t) => t.id))
      .execute();
    await trx.updateTable('static_wallets').set({ refund_status: 'process', refund_id: out.id, updated_at: now }).where('id', '=', w.id).execute();
    return { commission: fee.toAmount(2), amount: amount.toAmount(2) };
  });
}
