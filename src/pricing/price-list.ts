// What the gateway offers, in the shapes Cryptomus clients parse: the payment and payout services
// (POST /v1/payment/services, /v1/payout/services) and exchange rates
// (GET /v1/exchange-rate/{currency}/list).
import type { Ctx } from '../context.ts';
import type { Service } from '../contracts/merchant-api/objects.ts';
import type { ExchangeRates } from '../contracts/merchant-api/account.ts';
import { BusinessError, Msg } from '../errors.ts';
import { commissionPercent } from './rates.ts';
import { Decimal } from '../money/decimal.ts';
import { RateUnavailableError } from '../rates/types.ts';
import { isWalletActive } from '../ledger/merchant-wallets.ts';
import { networkFee } from './payout-quote.ts';

/** A payment or payout service, as the merchant API answers it. */
export type ServiceItem = Service;

/** Limits as Cryptomus writes them: 8 places at least ("1.00000000"), never cutting a digit. */
function limit(v: string): string {
  return Decimal.parse(v).toAmount(8);
}

/**
 * Every (network, currency) pair an invoice can be paid with. Pairs on networks the gateway does
 * not offer (Chains.offered) are left out rather than listed unavailable: a client that shows the
 * list to payers without reading `is_available` must not show a network nothing watches.
 */
export async function paymentServices(ctx: Ctx, merchantId: string): Promise<ServiceItem[]> {
  const out: ServiceItem[] = [];
  for (const { network, currency } of ctx.chains.offeredPairs()) {
    out.push({
      network: network.code,
      currency: currency.code,
      is_available: await isWalletActive(ctx, ctx.storage.db, merchantId, 'business', currency.code),
      limit: { min_amount: limit(currency.min), max_amount: limit(currency.max) },
      commission: {
        fee_amount: '0.00',
        percent: Decimal.parse(commissionPercent(ctx, currency.code, network.code, currency.commission_percent)).toAmount(2),
      },
    });
  }
  return out;
}

/** Every offered pair a payout can be made in: payout limits, and the network fee (recommended priority). */
export async function payoutServices(ctx: Ctx, merchantId: string): Promise<ServiceItem[]> {
  const out: ServiceItem[] = [];
  for (const { network, currency } of ctx.chains.offeredPairs()) {
    let fee: string;
    try {
      fee = (await networkFee(ctx, network, currency, 'recommended')).toAmount(2);
    } catch {
      continue; // a fee in another currency with no rate right now: not offered at the moment
    }
    out.push({
      network: network.code,
      currency: currency.code,
      is_available: await isWalletActive(ctx, ctx.storage.db, merchantId, 'business', currency.code),
      limit: { min_amount: limit(currency.payout_min), max_amount: limit(currency.payout_max) },
      commission: { fee_amount: fee, percent: '0.00' },
    });
  }
  return out;
}

/**
 * The price of one `currency` in every other currency the rates can price (fiat first, then
 * cryptocurrencies), as `[{from, to, course}]`. Unknown currency: `The currency was not found`.
 */
export async function exchangeRateList(ctx: Ctx, currency: string): Promise<ExchangeRates> {
  const from = currency.toUpperCase();
  if (!ctx.registry.isKnownCurrency(from)) throw new BusinessError(Msg.currencyNotFound);
  const crypto = [...new Set(ctx.registry.networks.flatMap((n) => n.currencies.map((c) => c.code.toUpperCase())))].sort();
  const targets = [...ctx.registry.fiat.map((f) => f.code.toUpperCase()), ...crypto].filter((c) => c !== from);
  // Asked together: an exchange that answers every pair in one call (Exmo) is called once, and a
  // source that hangs costs one timeout, not one per target.
  const rows = await Promise.all(
    targets.map(async (to) => {
      try {
        const { rate } = await ctx.rates.quote(from, to, null);
        return { from, to, course: Decimal.parse(rate).toAmount(8) };
      } catch (e) {
        // No fresh price for this pair: left out, like a pair no source lists.
        if (e instanceof RateUnavailableError) return null;
        throw e;
      }
    }),
  );
  return rows.filter((r) => r !== null);
}
