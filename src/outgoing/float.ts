// The payout float's caps (docs/custody.md, "The payout float"): on a watch-only network every
// outgoing payment (payout, invoice refund, blocked-wallet refund) is paid from the float, a hot key
// the operator funds and caps per network and currency:
// - `max_per_payout`: the most one payment may send (what the address receives; fees apart);
// - `max_per_day`: the most the float may send in a UTC day, across merchants. Payments accepted that
//   day and not failed count, sent or not yet sent.
// A payment beyond a cap, or on a watch-only network without a float, is refused at creation with a
// 422 and nothing recorded or debited. The day's total is summed inside the transaction that
// records the payment, under a lock per float, so two payments racing for the last of the day's
// allowance cannot both be accepted.
import type { Kysely, Transaction } from 'kysely';
import type { Ctx } from '../context.ts';
import type { DB } from '../db/schema.ts';
import type { Config } from '../config.ts';
import { payoutSource, type PayoutSource } from '../chain/payout-float.ts';
import { BusinessError } from '../errors.ts';
import { Decimal } from '../money/decimal.ts';
import type { PayoutRow } from './payout-record.ts';

/** Payments that no longer count toward a day: they sent nothing. */
const NOT_SENT = ['fail', 'cancel', 'system_fail'];

const DAY_MS = 86_400_000;

const sources = new WeakMap<Config, Map<string, PayoutSource>>();

/** How network `code` pays (hot seed, float, or nothing), from the settings checked at start. */
export function payoutSourceOf(ctx: Ctx, code: string): PayoutSource {
  const upper = code.toUpperCase();
  let byNetwork = sources.get(ctx.config);
  if (!byNetwork) sources.set(ctx.config, (byNetwork = new Map()));
  let source = byNetwork.get(upper);
  if (!source) {
    const network = ctx.registry.network(upper);
    source = !network || ctx.chains.isSimulated(upper) ? { kind: 'seed' } : payoutSource(network, ctx.config.networks[upper], ctx.chains.family(upper)?.payoutFloat);
    byNetwork.set(upper, source);
  }
  return source;
}

/** The start (ms) of the UTC day that holds `ms`. */
export function utcDayStart(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** What the network's payments in `currency` accepted in the UTC day of `now` and not failed send in all. */
export async function spentToday(db: Kysely<DB> | Transaction<DB>, network: string, currency: string, now: number, except?: string): Promise<Decimal> {
  let q = db
    .selectFrom('payouts')
    .select('payer_amount')
    .where('network', '=', network.toUpperCase())
    .where('payer_currency', '=', currency)
    .where('created_at', '>=', utcDayStart(now))
    .where('status', 'not in', NOT_SENT);
  if (except) q = q.where('id', '!=', except);
  const rows = await q.execute();
  return rows.reduce((sum, r) => sum.add(r.payer_amount), Decimal.ZERO);
}

/** The refusal of a payment on a watch-only network that has no float. */
export function noPayoutFloat(network: string, why: string): BusinessError {
  return new BusinessError(`${network} has no payout float configured, so the gateway cannot send payouts or refunds on it (watch-only network: ${why})`);
}

function capCode(source: Extract<PayoutSource, { kind: 'float' }>, caps: 'maxPerPayout' | 'maxPerDay', currency: string): string | undefined {
  return source.settings[caps][currency.toUpperCase()];
}

/**
 * What can be asked before the transaction: a float exists, and the amount is within
 * `max_per_payout`. `amount`: what the address receives. Throws the 422.
 */
export function checkFloatCaps(ctx: Ctx, req: { network: string; currency: string; amount: string }): void {
  const source = payoutSourceOf(ctx, req.network);
  const network = req.network.toUpperCase();
  if (source.kind === 'seed') return;
  if (source.kind === 'none') throw noPayoutFloat(network, source.why);
  const per = capCode(source, 'maxPerPayout', req.currency);
  if (per !== undefined && Decimal.parse(req.amount).gt(per)) {
    throw new BusinessError(
      `The payout float of ${network} sends at most ${Decimal.parse(per).toAmount(2)} ${req.currency} per payout (max_per_payout): ` +
        `${Decimal.parse(req.amount).toAmount(2)} ${req.currency} is more. Send a smaller amount, or ask the operator to raise the cap`,
    );
  }
}

/**
 * Inside the transaction that records payment `row`, before it commits: the float's checks again,
 * and the day's total (this payment included) within `max_per_day`, summed under the float's lock.
 * Throws the 422, which rolls the transaction back: no row, no debit.
 */
export async function holdFloat(ctx: Ctx, trx: Transaction<DB>, row: PayoutRow): Promise<void> {
  const req = { network: row.network, currency: row.payer_currency, amount: row.payer_amount };
  checkFloatCaps(ctx, req);
  const source = payoutSourceOf(ctx, row.network);
  if (source.kind !== 'float') return;
  const day = capCode(source, 'maxPerDay', row.payer_currency);
  if (day === undefined) return;
  const network = row.network.toUpperCase();
  await ctx.storage.transactionLock(trx, `payout-float:${network}:${row.payer_currency.toUpperCase()}`);
  const spent = await spentToday(trx, network, row.payer_currency, row.created_at, row.id);
  if (spent.add(row.payer_amount).gt(day)) {
    const left = Decimal.parse(day).sub(spent).max(Decimal.ZERO);
    throw new BusinessError(
      `The payout float of ${network} sends at most ${Decimal.parse(day).toAmount(2)} ${row.payer_currency} a day (max_per_day, UTC day): ` +
        `${left.toAmount(2)} ${row.payer_currency} is left today, less than ${Decimal.parse(row.payer_amount).toAmount(2)} ${row.payer_currency}. ` +
        'Send a smaller amount, try again after 00:00 UTC, or ask the operator to raise the cap',
    );
  }
}
