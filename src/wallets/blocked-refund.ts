// POST /v1/wallet/blocked-address-refund: the one refund of what a blocked static wallet received.
import type { Kysely } from 'kysely';
import type { Ctx } from '../context.ts';
import type { DB } from '../db/schema.ts';
import type { StaticWalletRow } from './wallet-object.ts';
import { BusinessError, Msg, ValidationError } from '../errors.ts';
import type { RecordRef } from '../contracts/merchant-api/parse.ts';
import { Decimal } from '../money/decimal.ts';
import { ensureHotWalletCovers } from '../outgoing/coverage.ts';
import { enqueueOutgoing, newOutgoing } from '../outgoing/lifecycle.ts';
import { destinationFee, networkFee } from '../pricing/payout-quote.ts';

/**
 * Sends every blocked top-up of the wallet (in its currency; not credited, not refunded to its
 * sender) to `address`, less the network fee. uuid or order_id (1..32): `uuid` wins here. Errors,
 * in order: `Not found`, `Refund is in process`, `You can withdraw only once` (the refund was made,
 * or the wallet refunds to senders and one such refund was made), `Nothing to withdraw` (not
 * blocked, or nothing blocked), `The amount is too small` (less than the payout minimum after the
 * fee). A refund that fails on chain leaves the funds refundable again. The money was never the
 * merchant's (never credited), so no balance moves. Before anything is recorded, the same checks
 * on the wallet as it stands, then `The gateway cannot send this payout now: not enough <C> in its
 * hot wallet` when the network's hot wallet cannot pay it, as for payouts.
 */
export async function blockedAddressRefund(ctx: Ctx, merchantId: string, params: RecordRef & { address: string }): Promise<{ commission: string; amount: string }> {
  const { address } = params;
  const first = await prepareWalletRefund(ctx, ctx.storage.db, merchantId, params, address, false);
  await ensureHotWalletCovers(ctx, { network: first.network, currency: first.currency, to: address, amount: first.amount.toString(), priority: 'recommended' });
  return ctx.storage.write(async (trx) => {
    const p = await prepareWalletRefund(ctx, trx, merchantId, params, address, true);
    const now = ctx.now();
    const out = newOutgoing({
      merchantId,
      kind: 'wallet_refund',
      refId: p.wallet.id,
      amount: p.total.toString(),
      currency: p.currency,
      network: p.network,
      address,
      isSubtract: false,
      payerAmount: p.amount.toString(),
      commission: p.fee.toString(),
      merchantAmount: '0',
      now,
    });
    await enqueueOutgoing(ctx, trx, out);
    await trx
      .updateTable('wallet_topups')
      .set({ wallet_refund_id: out.id, updated_at: now })
      .where('id', 'in', p.blocked)
      .execute();
    await trx.updateTable('static_wallets').set({ refund_status: 'process', refund_id: out.id, updated_at: now }).where('id', '=', p.wallet.id).execute();
    return { commission: p.fee.toAmount(2), amount: p.amount.toAmount(2) };
  });
}

interface WalletRefundPlan {
  wallet: StaticWalletRow;
  /** The blocked top-ups it returns. */
  blocked: string[];
  network: string;
  currency: string;
  total: Decimal;
  fee: Decimal;
  /** What the address receives. */
  amount: Decimal;
}

/** Every check of the refund, in the answer's order; with `lock`, on the wallet row locked. */
async function prepareWalletRefund(ctx: Ctx, db: Kysely<DB>, merchantId: string, ref: RecordRef, address: string, lock: boolean): Promise<WalletRefundPlan> {
  let q = db.selectFrom('static_wallets').selectAll().where('merchant_id', '=', merchantId);
  q = ref.uuid !== null ? q.where('id', '=', ref.uuid) : q.where('order_id', '=', ref.order_id);
  const w = await (lock ? ctx.storage.forUpdate(q) : q).executeTakeFirst();
  if (!w) throw new BusinessError(Msg.notFound);
  if (w.refund_status === 'process') throw new BusinessError(Msg.refundInProcess);
  if (w.refund_status === 'paid') throw new BusinessError(Msg.withdrawOnlyOnce);
  if (w.is_force_refund === 1) {
    const forced = await db
      .selectFrom('wallet_topups')
      .select('id')
      .where('wallet_id', '=', w.id)
      .where('outcome', 'in', ['force_refund', 'refunded'])
      .executeTakeFirst();
    if (forced) throw new BusinessError(Msg.withdrawOnlyOnce);
  }
  if (w.status !== 'blocked') throw new BusinessError(Msg.nothingToWithdraw);
  const blocked = await db
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
  // The refund goes out on the wallet's network: not on one the gateway does not offer (Chains.offered).
  if (!network || !currency || !ctx.chains.offered(network.code)) throw new BusinessError(Msg.serviceNotFound);
  if (!ctx.chains.families.addresses.isValid(network.address_format, address, network.chain)) throw new ValidationError({ address: ['validation.regex'] });
  const fee = (await networkFee(ctx, network, currency, 'recommended')).add(await destinationFee(ctx, network, currency, address, total));
  const amount = total.sub(fee);
  if (amount.lt(currency.payout_min) || !amount.gt('0')) throw new BusinessError(Msg.amountTooSmall);
  return { wallet: w, blocked: blocked.map((t) => t.id), network: network.code, currency: currency.code, total, fee, amount };
}
