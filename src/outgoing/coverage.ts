// Whether the network's hot wallet can pay an outgoing payment now (the amount, or the fee in the
// native coin), asked before anything is recorded or debited: payouts, invoice refunds and
// blocked-wallet refunds are refused alike when it cannot (docs/payouts.md).
import type { Ctx } from '../context.ts';
import type { PaymentRequest } from '../chain/contract.ts';
import { ChainError } from '../chain/errors.ts';
import { BusinessError } from '../errors.ts';
import { checkFloatCaps } from './float.ts';

/** The answer to a payment the gateway's hot wallet cannot send now (nothing is recorded or debited). */
export function hotWalletShort(currency: string): BusinessError {
  return new BusinessError(`The gateway cannot send this payout now: not enough ${currency} in its hot wallet`);
}

/**
 * Refuses a payment the network's hot wallet cannot cover. On a watch-only network the hot wallet
 * is the payout float: a network without one, or an amount beyond its `max_per_payout`, is refused
 * first (./float.ts; the day's cap is checked in the transaction that records the payment). A node
 * that cannot be asked does not refuse it: the payment is accepted and waits (see
 * outgoing/sender.ts for a wallet that stays short).
 */
export async function ensureHotWalletCovers(ctx: Ctx, req: PaymentRequest): Promise<void> {
  checkFloatCaps(ctx, req);
  let coverage;
  try {
    coverage = await ctx.chains.driver(req.network).canCover(req);
  } catch (err) {
    if (err instanceof ChainError) return; // the node cannot tell now
    throw err;
  }
  if (!coverage.covered) throw hotWalletShort(coverage.currency);
}
