// POST /v1/payout and /v1/payout/calc: a payout from the business balance, its funds reserved in
// the same transaction that records it, so two payouts can never spend the same money.
import { randomUUID } from 'node:crypto';
import type { Ctx } from '../context.ts';
import { BusinessError, Msg, ValidationError } from '../errors.ts';
import { balanceOf, InsufficientFunds } from '../ledger/index.ts';
import type { Merchant } from '../merchants/store.ts';
import { Decimal } from '../money/decimal.ts';
import { isWalletActive } from '../ledger/merchant-wallets.ts';
import type { PayoutRow } from '../outgoing/payout-record.ts';
import { presentPayout } from './payout-object.ts';
import { ensureHotWalletCovers } from '../outgoing/coverage.ts';
import { enqueueOutgoing } from '../outgoing/lifecycle.ts';
import { CONVERT_FROM, quotePayout, type PayoutQuote, type PayoutService } from '../pricing/payout-quote.ts';
import type { Payout } from '../contracts/merchant-api/objects.ts';
import type { CalcPayoutParams, CreatePayoutParams } from '../contracts/merchant-api/payouts.ts';

export interface PayoutPlan extends PayoutService {
  quote: PayoutQuote;
  address: string;
  memo: string | null;
  isSubtract: boolean;
}

/**
 * Resolves what a payout or calc request asks for and prices it. Business errors, in
 * this order: `The currency was not found`, `Not found service to_currency`, `The service was not
 * found` (a from_currency other than USDT, an unknown or not offered network, or a currency the
 * network does not carry), `Wallet not found` (the balance's wallet is switched off), then the quote's errors.
 */
export async function planPayout(ctx: Ctx, merchantId: string, params: CalcPayoutParams & { memo?: string | null }): Promise<PayoutPlan> {
  const { registry } = ctx;
  const currency = params.currency;
  if (!registry.isKnownCurrency(currency)) throw new BusinessError(Msg.currencyNotFound);
  const toCurrency = params.to_currency;
  if (toCurrency && !registry.isCrypto(toCurrency)) throw new BusinessError(Msg.toCurrencyNotFound);
  const payerCode = toCurrency ?? currency;
  const from = params.from_currency;
  if (from && from !== CONVERT_FROM) throw new BusinessError(Msg.serviceNotFound);

  const networkCode = params.network;
  let network = networkCode ? registry.network(networkCode) : undefined;
  // A network the gateway does not offer (Chains.offered) is no service: nothing sends on it.
  if (networkCode && (!network || !ctx.chains.offered(networkCode))) throw new BusinessError(Msg.serviceNotFound);
  if (!network) {
    const nets = ctx.chains.offeredNetworksOf(payerCode);
    if (nets.length === 0 && registry.isCrypto(payerCode)) throw new BusinessError(Msg.serviceNotFound);
    if (nets.length !== 1) throw new ValidationError({ network: ['validation.required'] });
    network = nets[0]!;
  }
  const payer = registry.currencyOn(network.code, payerCode);
  if (!payer) throw new BusinessError(Msg.serviceNotFound);
  const address = params.address;
  if (!ctx.chains.families.addresses.isValid(network.address_format, address, network.chain)) throw new ValidationError({ address: ['validation.regex'] });

  const debitCurrency = from ?? payer.code.toUpperCase();
  if (!(await isWalletActive(ctx, ctx.storage.db, merchantId, 'business', debitCurrency))) throw new BusinessError(Msg.walletNotFound);
  const isSubtract = params.is_subtract;
  const quote = await quotePayout(
    ctx,
    { network, payer, address },
    {
      amount: Decimal.parse(params.amount),
      currency,
      payerCurrency: payer.code,
      debitCurrency,
      isSubtract,
      priority: params.priority,
      courseSource: params.course_source,
    },
  );
  return { network, payer, quote, address, memo: network.memo ? (params.memo ?? null) : null, isSubtract };
}

/** The spec's "not enough" message for a balance that cannot cover a quote. */
export function shortOfFunds(quote: PayoutQuote, payerCode: string): BusinessError {
  return new BusinessError(
    quote.debitCurrency === payerCode.toUpperCase() ? Msg.notEnoughFunds : Msg.notEnoughForConvert(quote.debitCurrency, payerCode.toUpperCase()),
  );
}

/** POST /v1/payout/calc (and /v1/payout/calculate): what creating the payout would charge now. */
export async function calcPayout(ctx: Ctx, merchant: Merchant, params: CalcPayoutParams): Promise<{ commission: string; merchant_amount: string; payout_amount: string }> {
  const plan = await planPayout(ctx, merchant.id, params);
  const balance = await balanceOf(ctx.storage.db, merchant.id, 'business', plan.quote.debitCurrency);
  if (Decimal.parse(balance).lt(plan.quote.debit)) throw shortOfFunds(plan.quote, plan.payer.code);
  return {
    commission: plan.quote.commission.toAmount(2),
    merchant_amount: plan.quote.debit.toAmount(2),
    payout_amount: plan.quote.payerAmount.toAmount(2),
  };
}

class OrderIdTaken extends Error {}

export async function findPayoutByOrder(ctx: Ctx, merchantId: string, orderId: string): Promise<PayoutRow | undefined> {
  return ctx.storage.db
    .selectFrom('payouts')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('kind', '=', 'payout')
    .where('order_id', '=', orderId)
    .executeTakeFirst();
}

async function presentExisting(ctx: Ctx, row: PayoutRow): Promise<Payout> {
  const balance = await balanceOf(ctx.storage.db, row.merchant_id, 'business', row.debit_currency);
  return presentPayout(row, { balance, creation: true });
}

/** Refuses a payout the network's hot wallet cannot cover, before anything is debited. */
async function checkHotWallet(ctx: Ctx, merchantId: string, plan: PayoutPlan): Promise<void> {
  const { quote } = plan;
  // The merchant's own shortfall answers first, with the spec's message, inside the transaction.
  if (Decimal.parse(await balanceOf(ctx.storage.db, merchantId, 'business', quote.debitCurrency)).lt(quote.debit)) return;
  await ensureHotWalletCovers(ctx, {
    network: plan.network.code,
    currency: plan.payer.code,
    to: plan.address,
    amount: quote.payerAmount.toString(),
    priority: quote.priority,
    memo: plan.memo,
  });
}

/**
 * POST /v1/payout. An existing order_id returns that payout (as created) and creates nothing, also
 * when concurrent requests race: the unique (merchant, order_id) constraint lets one insert win.
 * The debit that reserves the funds is booked in the same transaction as the payout row; a
 * balance that cannot cover it rolls both back (`Not enough funds`).
 */
export async function createPayout(ctx: Ctx, merchant: Merchant, params: CreatePayoutParams): Promise<Payout> {
  const orderId = params.order_id;
  const existing = await findPayoutByOrder(ctx, merchant.id, orderId);
  if (existing) return presentExisting(ctx, existing);

  const plan = await planPayout(ctx, merchant.id, params);
  await checkHotWallet(ctx, merchant.id, plan);
  const { quote } = plan;
  const now = ctx.now();
  const row: PayoutRow = {
    id: randomUUID(),
    merchant_id: merchant.id,
    kind: 'payout',
    order_id: orderId,
    ref_id: null,
    amount: quote.amount,
    currency: quote.currency,
    network: plan.network.code,
    address: plan.address,
    memo: plan.memo,
    priority: quote.priority,
    is_subtract: plan.isSubtract ? 1 : 0,
    payer_currency: plan.payer.code,
    payer_amount: quote.payerAmount.toString(),
    commission: quote.commission.toString(),
    merchant_amount: quote.debit.toString(),
    debit_currency: quote.debitCurrency,
    convert: quote.convert ? JSON.stringify(quote.convert) : null,
    course_source: quote.courseSource,
    url_callback: params.url_callback,
    status: 'process',
    is_final: 0,
    txid: null,
    confirmations: 0,
    attempts: 0,
    next_attempt_at: now,
    last_error: null,
    created_at: now,
    updated_at: now,
  };

  let balance: string;
  try {
    balance = await ctx.storage.write(async (trx) => {
      try {
        const r = await enqueueOutgoing(ctx, trx, row);
        if (!r.inserted) throw new OrderIdTaken();
        return r.balance!;
      } catch (e) {
        if (e instanceof InsufficientFunds) throw shortOfFunds(quote, plan.payer.code);
        throw e;
      }
    });
  } catch (e) {
    if (!(e instanceof OrderIdTaken) && !ctx.storage.isUniqueViolation(e)) throw e;
    // A concurrent request with the same order_id won the race: answer with its payout.
    const winner = await findPayoutByOrder(ctx, merchant.id, orderId);
    if (!winner) throw e;
    return presentExisting(ctx, winner);
  }
  return presentPayout(row, { balance, creation: true });
}
