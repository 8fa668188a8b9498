// The spec's Payout object, as payout info, history and creation answer it.
import type { Payout, PayoutConvert } from '../contracts/merchant-api/objects.ts';
import { isoMsk, money } from '../money/format.ts';
import type { PayoutRow, PayoutStatus } from '../outgoing/payout-record.ts';

export interface PresentPayoutOptions {
  /** Remaining funds of the balance the payout was taken from. */
  balance: string;
  /** Include `commission` and `merchant_amount` (the spec shows them in the creation response). */
  creation?: boolean;
  /** Include `created_at` / `updated_at` (history items). */
  times?: boolean;
}

/**
 * The spec's Payout object, fields in the spec's order. `balance` and `payer_amount` are JSON
 * numbers, as the spec types them (display values: every other amount is an exact string).
 */
export function presentPayout(row: PayoutRow, opts: PresentPayoutOptions): Payout {
  return {
    uuid: row.id,
    amount: money(row.amount),
    currency: row.currency,
    network: row.network,
    address: row.address,
    txid: row.txid,
    status: row.status as PayoutStatus,
    is_final: row.is_final === 1,
    balance: Number(opts.balance),
    payer_currency: row.payer_currency,
    payer_amount: Number(row.payer_amount),
    ...(opts.creation ? { commission: money(row.commission), merchant_amount: money(row.merchant_amount) } : {}),
    ...(row.convert ? { convert: JSON.parse(row.convert) as PayoutConvert } : {}),
    ...(opts.times ? { created_at: isoMsk(Number(row.created_at)), updated_at: isoMsk(Number(row.updated_at)) } : {}),
  };
}
