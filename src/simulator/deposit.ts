// `satchel simulate deposit`: money arriving in a merchant's personal wallet (test mode), so that
// transfers to the business wallet can be tried without a real personal account.
import { randomUUID } from 'node:crypto';
import type { Ctx } from '../context.ts';
import { AMOUNT_REFUSED, SimulatorError } from './payments.ts';
import { isUuid } from '../contracts/rules.ts';
import { entriesByKey, post } from '../ledger/index.ts';
import { findMerchant } from '../merchants/store.ts';
import { Decimal } from '../money/decimal.ts';
import { isWalletActive } from '../ledger/merchant-wallets.ts';

export interface DepositResult {
  /** The ledger entry of the deposit. */
  transaction_uuid: string;
  merchant: string;
  currency: string;
  amount: string;
  /** The personal wallet's balance after it. */
  balance: string;
}

/** Credits `amount` of `currency` to the merchant's personal wallet. */
export async function simulateDeposit(ctx: Ctx, opts: { merchant: string; currency: string; amount: string }): Promise<DepositResult> {
  const merchant = isUuid(opts.merchant) ? await findMerchant(ctx.storage.db, opts.merchant.toLowerCase()) : undefined;
  if (!merchant) throw new SimulatorError('Merchant not found', 404);
  const currency = String(opts.currency ?? '').toUpperCase();
  if (!(await isWalletActive(ctx, ctx.storage.db, merchant.id, 'personal', currency))) throw new SimulatorError('No personal wallet in this currency', 404);
  const amount = Decimal.tryParse(String(opts.amount ?? '').trim());
  if (!amount || !amount.gt('0') || !amount.isBoundedAmount()) throw new SimulatorError(AMOUNT_REFUSED);
  const id = randomUUID();
  const key = `deposit:${id}`;
  return ctx.storage.write(async (trx) => {
    const balance = (await post(trx, {
      merchantId: merchant.id,
      wallet: 'personal',
      currency,
      amount: amount.toString(),
      reason: 'deposit',
      ref: { kind: 'deposit', id },
      key,
      now: ctx.now(),
    }))!;
    const [entry] = await entriesByKey(trx, [key]);
    if (!entry) throw new Error(`no ledger entry ${key}`);
    return { transaction_uuid: entry.id, merchant: merchant.id, currency, amount: amount.toString(), balance: Decimal.parse(balance).toString() };
  });
}
