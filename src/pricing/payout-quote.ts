// What a payout costs, exactly (docs/payouts.md has the formulas). Creating a payout and
// /v1/payout/calc both call quotePayout, so the calculation is what creation charges.
import { readFileSync } from 'node:fs';
import type { Ctx } from '../context.ts';
import { BusinessError, Msg } from '../errors.ts';
import { ChainError, SendRejectedError } from '../chain/errors.ts';
import { quoteRate } from './rates.ts';
import { Decimal } from '../money/decimal.ts';
import type { CurrencyDef, NetworkDef, Priority } from '../registry/index.ts';
import { PRIORITIES } from '../contracts/merchant-api/payouts.ts';

const FEES = JSON.parse(readFileSync(new URL('./fees.json', import.meta.url), 'utf8')) as { convert_percent: string };

/** Fee on the amount swapped when a payout is taken from another balance (`from_currency`). */
export const CONVERT_PERCENT = Decimal.parse(FEES.convert_percent).toString();

export { PRIORITIES };

/**
 * The spec: `priority` is applied only on BTC, ETH, POLYGON and BSC; elsewhere it is `recommended`.
 * Satchel adds XMR, whose wallet builds a payout at one of four priorities (docs/payouts.md).
 */
const PRIORITY_NETWORKS: ReadonlySet<string> = new Set(['BTC', 'ETH', 'POLYGON', 'BSC', 'XMR']);

/** The only balance a payout may be converted from (the spec's `from_currency`). */
export const CONVERT_FROM = 'USDT';

export function effectivePriority(network: NetworkDef, asked: Priority): Priority {
  return PRIORITY_NETWORKS.has(network.code.toUpperCase()) ? asked : 'recommended';
}

/**
 * The network fee of sending `currency` on `network` at `priority`, in `currency`, rounded up to
 * its decimals: the registry's fee table of the currency (tokens) or of the network (native coins),
 * the `recommended` fee when the priority has none, converted from `fee_currency` when that differs.
 */
export async function networkFee(ctx: Ctx, network: NetworkDef, currency: CurrencyDef, priority: Priority): Promise<Decimal> {
  const table = currency.fees ?? network.fees;
  const text = table[effectivePriority(network, priority)] ?? table.recommended ?? '0';
  let fee = Decimal.parse(text);
  const feeCurrency = (currency.fee_currency ?? currency.code).toUpperCase();
  if (feeCurrency !== currency.code.toUpperCase()) fee = fee.mul((await quoteRate(ctx, feeCurrency, currency.code, null)).rate);
  return fee.round(currency.decimals, 'up');
}

export interface PayoutService {
  network: NetworkDef;
  /** The cryptocurrency the address receives. */
  payer: CurrencyDef;
  /** Where it goes: a network whose driver prices destinations (ChainDriver.destinationFee) adds that fee. */
  address?: string;
}

/**
 * The driver's fee for sending `payer` to `address` beyond the fee table (a token account the
 * payment must create), converted from the native coin at the gateway's rate into the payer
 * currency and rounded up; zero when the driver has none. A destination the driver refuses is a
 * business error naming why; a node that cannot tell refuses the quote rather than undercharge.
 */
export async function destinationFee(ctx: Ctx, network: NetworkDef, payer: CurrencyDef, address: string | undefined, amount: Decimal, priority: Priority = 'recommended'): Promise<Decimal> {
  if (address === undefined) return Decimal.parse('0');
  const driver = ctx.chains.driver(network.code);
  if (!driver.destinationFee) return Decimal.parse('0');
  let native: Decimal;
  try {
    native = Decimal.parse(await driver.destinationFee({ network: network.code, currency: payer.code, to: address, amount: amount.toString(), priority: effectivePriority(network, priority) }));
  } catch (err) {
    if (err instanceof SendRejectedError) throw new BusinessError(err.message);
    if (err instanceof ChainError) throw new BusinessError(`The ${network.code} node cannot price this payout now (${err.message.slice(0, 200)}); try again later`);
    throw err;
  }
  if (!native.gt('0')) return Decimal.parse('0');
  const nativeCode = network.currencies.find((c) => c.native)?.code ?? payer.code;
  const fee = nativeCode.toUpperCase() === payer.code.toUpperCase() ? native : native.mul((await quoteRate(ctx, nativeCode, payer.code, null)).rate);
  return fee.round(payer.decimals, 'up');
}

export interface PayoutAsk {
  amount: Decimal;
  /** Upper-case codes. */
  currency: string;
  payerCurrency: string;
  debitCurrency: string;
  isSubtract: boolean;
  priority: Priority;
  /** Applied only when `currency` is fiat. */
  courseSource: string | null;
}

export interface PayoutQuote {
  /** Requested amount in `currency` (as given). */
  amount: string;
  currency: string;
  priority: Priority;
  /** The requested amount in the payer currency. */
  value: Decimal;
  /** Network fee, in the payer currency. */
  fee: Decimal;
  /** What the address receives, in the payer currency. */
  payerAmount: Decimal;
  debitCurrency: string;
  /** Taken from the balance in `debitCurrency`, every fee included. */
  debit: Decimal;
  /** Every fee, in `debitCurrency`. */
  commission: Decimal;
  convert: Record<string, string> | null;
  exchangeRate: string;
  courseSource: string | null;
}

/**
 * Prices a payout. Errors: `Error convert to_currency` (no rate), `Minimum amount ...` /
 * `Maximum amount ...` (the requested value against the registry's payout limits), and `The
 * withdrawal amount is too small` (fees would eat the amount when they are taken from it).
 */
export async function quotePayout(ctx: Ctx, svc: PayoutService, ask: PayoutAsk): Promise<PayoutQuote> {
  const { network, payer } = svc;
  const d = payer.decimals;
  const fiat = !!ctx.registry.fiatCurrency(ask.currency);
  const source = fiat ? ask.courseSource : null;
  const r1 = await quoteRate(ctx, ask.currency, payer.code, source);
  const value = ask.amount.mul(r1.rate).round(d, 'half-up');
  if (value.lt(payer.payout_min) || !value.gt('0')) throw new BusinessError(Msg.minAmount(payer.payout_min, payer.code));
  if (value.gt(payer.payout_max)) throw new BusinessError(Msg.maxAmount(payer.payout_max, payer.code));

  const fee = (await networkFee(ctx, network, payer, ask.priority)).add(await destinationFee(ctx, network, payer, svc.address, value, ask.priority));
  const payerAmount = ask.isSubtract ? value : value.sub(fee);
  const total = ask.isSubtract ? value.add(fee) : value;
  if (!payerAmount.gt('0') || payerAmount.lt(payer.payout_min)) throw new BusinessError(Msg.withdrawalTooSmall);

  let debit = total;
  let commission = fee;
  let convert: PayoutQuote['convert'] = null;
  if (ask.debitCurrency !== payer.code.toUpperCase()) {
    const db = ctx.registry.decimalsOf(ask.debitCurrency);
    const r2 = (await quoteRate(ctx, payer.code, ask.debitCurrency, null)).rate;
    const swapped = payerAmount.mul(r2).round(db, 'up');
    const gross = total.mul(r2).round(db, 'up');
    const convertFee = gross.percent(CONVERT_PERCENT).round(db, 'up');
    debit = gross.add(convertFee);
    commission = debit.sub(swapped);
    convert = {
      to_currency: payer.code,
      from_currency: ask.debitCurrency,
      commission: convertFee.toAmount(2),
      rate: Decimal.parse(r2).toString(),
      from_amount: swapped.toAmount(2),
    };
  }
  return {
    amount: ask.amount.toString(),
    currency: ask.currency,
    priority: effectivePriority(network, ask.priority),
    value,
    fee,
    payerAmount,
    debitCurrency: ask.debitCurrency,
    debit,
    commission,
    convert,
    exchangeRate: r1.rate,
    courseSource: source,
  };
}
