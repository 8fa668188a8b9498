// Top-ups of static wallets, as the chain sink hands them over (`ctx.features.owners.wallet`): inside the
// transaction that recorded the transfer, and only once it is confirmed. Each confirmed transfer
// becomes one wallet_topups row (unique on the transfer), so one seen twice is handled once.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Transaction } from 'kysely';
import type { Ctx } from '../context.ts';
import type { DB } from '../db/schema.ts';
import { commissionPercent, rateIfQuick } from '../pricing/rates.ts';
import { post } from '../ledger/index.ts';
import { Decimal } from '../money/decimal.ts';
import { enqueueOutgoing, newOutgoing } from '../outgoing/lifecycle.ts';
import { networkFee } from '../pricing/payout-quote.ts';
import type { TopupRow } from './wallet-object.ts';
import { enqueueTopupWebhook } from './webhook.ts';

const FEES = JSON.parse(readFileSync(new URL('./fees.json', import.meta.url), 'utf8')) as {
  creation_fee: { amount: string; currency: string };
};

/** The spec's static wallet creation fee (2 TRX), charged once with the first top-up. */
export const CREATION_FEE = { amount: Decimal.parse(FEES.creation_fee.amount).toString(), currency: FEES.creation_fee.currency.toUpperCase() };

/** The creation fee in `currency`, rounded up to `decimals`; null when there is no rate right now. */
async function creationFeeIn(ctx: Ctx, currency: string, decimals: number): Promise<Decimal | null> {
  if (currency.toUpperCase() === CREATION_FEE.currency) return Decimal.parse(CREATION_FEE.amount).round(decimals, 'up');
  const rate = await rateIfQuick(ctx, CREATION_FEE.currency, currency);
  return rate === null ? null : Decimal.parse(CREATION_FEE.amount).mul(rate).round(decimals, 'up');
}

async function usdValue(ctx: Ctx, amount: Decimal, currency: string): Promise<string | null> {
  const rate = await rateIfQuick(ctx, currency, 'USD');
  return rate === null ? null : amount.mul(rate).round(2, 'down').toString();
}

/**
 * A confirmed top-up of an active (or operator-disabled) wallet is credited to the merchant's
 * business balance less the commission (as for invoices) and, on the first one, the creation fee
 * (capped at what is left; if no rate converts it now, it waits for the next top-up). On a blocked
 * wallet nothing is credited: the top-up is kept for the one refund of blocked funds, or, with
 * is_force_refund, sent back to its sender less the network fee. Each sends a `wallet` webhook.
 */
export async function onWalletTransfer(
  ctx: Ctx,
  trx: Transaction<DB>,
  walletId: string,
  ref: { network: string; txid: string; idx: number },
): Promise<void> {
  const transfer = await trx
    .selectFrom('chain_transfers')
    .selectAll()
    .where('network', '=', ref.network)
    .where('txid', '=', ref.txid)
    .where('idx', '=', ref.idx)
    .executeTakeFirst();
  if (!transfer || transfer.status !== 'confirmed') return;
  const seen = await trx
    .selectFrom('wallet_topups')
    .select('id')
    .where('network', '=', ref.network)
    .where('txid', '=', ref.txid)
    .where('idx', '=', ref.idx)
    .executeTakeFirst();
  if (seen) return;
  const w = await ctx.storage.forUpdate(trx.selectFrom('static_wallets').selectAll().where('id', '=', walletId)).executeTakeFirst();
  if (!w) return;

  const now = ctx.now();
  const network = ctx.registry.network(transfer.network);
  const def = network ? ctx.registry.currencyOn(network.code, transfer.currency) : undefined;
  const decimals = def?.decimals ?? 18;
  const amount = Decimal.parse(transfer.amount);
  const topup: TopupRow = {
    id: randomUUID(),
    wallet_id: w.id,
    merchant_id: w.merchant_id,
    network: transfer.network,
    txid: transfer.txid,
    idx: transfer.idx,
    currency: transfer.currency.toUpperCase(),
    amount: amount.toString(),
    from_address: transfer.from_address,
    outcome: 'credited',
    commission: '0',
    creation_fee: '0',
    merchant_amount: '0',
    payment_amount_usd: await usdValue(ctx, amount, transfer.currency),
    refund_id: null,
    wallet_refund_id: null,
    created_at: now,
    updated_at: now,
  };

  if (w.status === 'blocked') {
    let status = 'locked';
    topup.outcome = 'blocked';
    if (w.is_force_refund === 1 && network && def && transfer.from_address && ctx.chains.families.addresses.isValid(network.address_format, transfer.from_address, network.chain)) {
      const fee = await networkFee(ctx, network, def, 'recommended');
      const back = amount.sub(fee);
      if (back.gt('0')) {
        const out = newOutgoing({
          merchantId: w.merchant_id,
          kind: 'force_refund',
          refId: topup.id,
          amount: amount.toString(),
          currency: def.code,
          network: network.code,
          address: transfer.from_address,
          isSubtract: false,
          payerAmount: back.toString(),
          commission: fee.toString(),
          merchantAmount: '0',
          now,
        });
        await enqueueOutgoing(ctx, trx, out);
        topup.outcome = 'force_refund';
        topup.refund_id = out.id;
        topup.commission = fee.toString();
        status = 'refund_process';
      }
    }
    await trx.insertInto('wallet_topups').values(topup).execute();
    await enqueueTopupWebhook(ctx, trx, w, topup, status);
    return;
  }

  const pct = def && network ? commissionPercent(ctx, def.code, network.code, def.commission_percent) : '0';
  const commission = amount.percent(pct).round(decimals, 'up').min(amount);
  const rest = amount.sub(commission);
  let fee = Decimal.ZERO;
  let feeCharged = w.fee_charged;
  if (feeCharged === 0) {
    const due = await creationFeeIn(ctx, topup.currency, decimals);
    if (due !== null) {
      fee = due.min(rest);
      feeCharged = 1;
    }
  }
  const credit = rest.sub(fee);
  topup.commission = commission.toString();
  topup.creation_fee = fee.toString();
  topup.merchant_amount = credit.toString();
  await trx.insertInto('wallet_topups').values(topup).execute();
  if (credit.gt('0')) {
    await post(trx, {
      merchantId: w.merchant_id,
      wallet: 'business',
      currency: topup.currency,
      amount: credit.toString(),
      reason: 'wallet_topup',
      ref: { kind: 'wallet', id: w.id },
      key: `wallet:${topup.network}:${topup.txid}:${topup.idx}:credit`,
      now,
    });
  }
  await trx.updateTable('static_wallets').set({ fee_charged: feeCharged, updated_at: now }).where('id', '=', w.id).execute();
  await enqueueTopupWebhook(ctx, trx, w, topup, 'paid');
}
