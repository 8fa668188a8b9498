// The payout float's caps (docs/networks.md, "The payout float"): on a watch-only network every
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

/** A float's balances, asked of the node at most this often. */
const BALANCE_TTL_MS = 30_000;
/** Longest a balance question may take before the last answer is kept. */
const BALANCE_TIMEOUT_MS = 10_000;

interface CachedWallet {
  at: number;
  address: string | null;
  balances: Record<string, string> | null;
  refreshing: Promise<void> | null;
}

const wallets = new WeakMap<Ctx, Map<string, CachedWallet>>();

/**
 * The float's address and balances as last read from the node. Never waits for the node: a stale
 * or missing answer starts one question in the background (bounded by a timeout) and the last
 * answer is returned meanwhile, so /metrics and the dashboard answer at once whatever the node does.
 */
function cachedWallet(ctx: Ctx, network: string): CachedWallet {
  let byNetwork = wallets.get(ctx);
  if (!byNetwork) wallets.set(ctx, (byNetwork = new Map()));
  let entry = byNetwork.get(network);
  if (!entry) byNetwork.set(network, (entry = { at: 0, address: null, balances: null, refreshing: null }));
  const e = entry;
  if (!e.refreshing && Date.now() - e.at >= BALANCE_TTL_MS) {
    let timer: NodeJS.Timeout | undefined;
    const ask = (async () => ctx.chains.driver(network).payoutWallet?.() ?? null)();
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('no answer')), BALANCE_TIMEOUT_MS)));
    e.refreshing = Promise.race([ask, late])
      .then((w) => {
        e.address = w?.address ?? null;
        e.balances = w?.balances ?? null;
      })
      .catch(() => {})
      .finally(() => {
        clearTimeout(timer);
        e.at = Date.now();
        e.refreshing = null;
      });
    ask.catch(() => {});
  }
  return e;
}

/** One currency of one float: what it holds, what it sent today, and its caps (decimal strings). */
export interface FloatLine {
  network: string;
  currency: string;
  /** The float's account; null until the node has been asked once. */
  address: string | null;
  /** As last read from the node; null when not known yet (or the node does not answer). */
  balance: string | null;
  spent_today: string;
  max_per_payout: string | null;
  max_per_day: string | null;
  /** What the day's cap still allows; null when the currency has no day cap. */
  left_today: string | null;
}

/** Every float of the gateway, one line per currency of its network (metrics, dashboard). */
export async function floatLines(ctx: Ctx): Promise<FloatLine[]> {
  const out: FloatLine[] = [];
  const now = ctx.now();
  for (const network of ctx.registry.networks) {
    if (ctx.chains.isDisabled(network.code) || ctx.chains.isSimulated(network.code)) continue;
    const source = payoutSourceOf(ctx, network.code);
    if (source.kind !== 'float') continue;
    const wallet = cachedWallet(ctx, network.code);
    for (const c of network.currencies) {
      const code = c.code.toUpperCase();
      const spent = await spentToday(ctx.storage.db, network.code, c.code, now);
      const day = source.settings.maxPerDay[code] ?? null;
      out.push({
        network: network.code,
        currency: c.code,
        address: wallet.address,
        balance: wallet.balances?.[c.code] ?? null,
        spent_today: spent.toString(),
        max_per_payout: source.settings.maxPerPayout[code] ?? null,
        max_per_day: day,
        left_today: day === null ? null : Decimal.parse(day).sub(spent).max(Decimal.ZERO).toString(),
      });
    }
  }
  return out;
}
