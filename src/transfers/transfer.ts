// POST /v1/transfer/to-business and /v1/transfer/to-personal: moves money between the merchant's
// personal and business wallets in one currency, both ledger entries in one transaction.
import { createHash, randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Ctx } from '../context.ts';
import type { DB } from '../db/schema.ts';
import { BusinessError, Msg, ValidationError } from '../errors.ts';
import { entriesByKey, InsufficientFunds, lockBalances, post, type Wallet } from '../ledger/index.ts';
import type { Merchant } from '../merchants/store.ts';
import { Decimal } from '../money/decimal.ts';
import { isWalletActive } from '../ledger/merchant-wallets.ts';
import type { TransferParams } from '../contracts/merchant-api/transfers.ts';

export type TransferDirection = 'to-business' | 'to-personal';

export interface TransferResult {
  user_wallet_transaction_uuid: string;
  user_wallet_balance: string;
  merchant_transaction_uuid: string;
  merchant_balance: string;
}

/**
 * Transfer limits of a currency that is not tied to a network: from the smallest of its offered networks'
 * minimums to the largest of their maximums; amounts may carry as many places as its most precise
 * network.
 */
export function transferLimits(ctx: Ctx, currency: string): { min: string; max: string; decimals: number } | null {
  // The networks merchants can use now; with none offered (all switched off), a balance on the
  // books can still move between wallets, within the limits of every network carrying it.
  const offered = ctx.chains.offeredNetworksOf(currency);
  const networks = offered.length > 0 ? offered : ctx.registry.networksOf(currency);
  const defs = networks.map((n) => ctx.registry.currencyOn(n.code, currency)!);
  if (defs.length === 0) return null;
  const min = defs.map((d) => Decimal.parse(d.min)).reduce((a, b) => a.min(b));
  const max = defs.map((d) => Decimal.parse(d.max)).reduce((a, b) => a.max(b));
  return { min: min.toString(), max: max.toString(), decimals: Math.max(...defs.map((d) => d.decimals)) };
}

/** Both balances, locked in one fixed order (business, then personal): a transfer each way at
 * once would otherwise each hold one lock and wait for the other. */
const LOCK_ORDER: readonly Wallet[] = ['business', 'personal'];

/** A stable transfer id per merchant and order_id (its ledger keys make the transfer unique). */
function transferIdFor(merchantId: string, orderId: string): string {
  const h = createHash('sha256').update(`transfer\u0000${merchantId}\u0000${orderId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The result of a transfer already booked under `id`, as it was answered then; null if none. */
async function earlierTransfer(db: Kysely<DB> | Transaction<DB>, id: string): Promise<TransferResult | null> {
  const rows = await entriesByKey(db, [`transfer:${id}:out`, `transfer:${id}:in`]);
  const personal = rows.find((r) => r.wallet === 'personal');
  const business = rows.find((r) => r.wallet === 'business');
  if (!personal || !business) return null;
  return {
    user_wallet_transaction_uuid: personal.id,
    user_wallet_balance: Decimal.parse(personal.balanceAfter).toAmount(2),
    merchant_transaction_uuid: business.id,
    merchant_balance: Decimal.parse(business.balanceAfter).toAmount(2),
  };
}

async function entryId(trx: Transaction<DB>, key: string): Promise<string> {
  const [entry] = await entriesByKey(trx, [key]);
  if (!entry) throw new Error(`no ledger entry ${key}`);
  return entry.id;
}

/**
 * Errors, in order: `No found user wallet` / `Merchant wallet not found` (no active wallet in the
 * currency: the source wallet is checked first; a fiat or unknown code has neither),
 * `Minimum amount <min> <currency>` / `Maximum amount <max> <currency>`, `Not enough funds`.
 */
export async function transfer(ctx: Ctx, merchant: Merchant, direction: TransferDirection, params: TransferParams): Promise<TransferResult> {
  const amount = Decimal.parse(params.amount);
  const currency = params.currency;
  const db = ctx.storage.db;
  // With an order_id (optional, so that clients that never send one keep working) the transfer is
  // idempotent, as invoices and payouts are: a replay or a retry returns what the first one did.
  const id = params.order_id === null ? randomUUID() : transferIdFor(merchant.id, params.order_id);
  const done = await earlierTransfer(db, id);
  if (done) return done;
  const order: Array<[Wallet, string]> =
    direction === 'to-business'
      ? [['personal', Msg.noUserWallet], ['business', Msg.merchantWalletNotFound]]
      : [['business', Msg.merchantWalletNotFound], ['personal', Msg.noUserWallet]];
  for (const [kind, message] of order) {
    if (!(await isWalletActive(ctx, db, merchant.id, kind, currency))) throw new BusinessError(message);
  }
  const limits = transferLimits(ctx, currency)!;
  if (!amount.gt('0') || amount.lt(limits.min)) throw new BusinessError(Msg.minAmount(limits.min, currency));
  if (amount.gt(limits.max)) throw new BusinessError(Msg.maxAmount(limits.max, currency));
  if (amount.places() > limits.decimals) throw new ValidationError({ amount: ['validation.numeric'] });

  const [from, to] = direction === 'to-business' ? (['personal', 'business'] as const) : (['business', 'personal'] as const);
  const now = ctx.now();
  return ctx.storage.write(async (trx) => {
    await lockBalances(ctx.storage, trx, merchant.id, LOCK_ORDER, currency, now);
    // The same order_id racing in on another connection finished while we waited for the locks.
    const raced = await earlierTransfer(trx, id);
    if (raced) return raced;
    let fromBalance: string;
    try {
      fromBalance = (await post(trx, {
        merchantId: merchant.id,
        wallet: from,
        currency,
        amount: amount.neg().toString(),
        reason: `transfer_${direction.replace('-', '_')}`,
        ref: { kind: 'transfer', id },
        key: `transfer:${id}:out`,
        now,
      }))!;
    } catch (e) {
      if (e instanceof InsufficientFunds) throw new BusinessError(Msg.notEnoughFunds);
      throw e;
    }
    const toBalance = (await post(trx, {
      merchantId: merchant.id,
      wallet: to,
      currency,
      amount: amount.toString(),
      reason: `transfer_${direction.replace('-', '_')}`,
      ref: { kind: 'transfer', id },
      key: `transfer:${id}:in`,
      now,
    }))!;
    const outId = await entryId(trx, `transfer:${id}:out`);
    const inId = await entryId(trx, `transfer:${id}:in`);
    const personal = from === 'personal' ? { id: outId, balance: fromBalance } : { id: inId, balance: toBalance };
    const business = from === 'business' ? { id: outId, balance: fromBalance } : { id: inId, balance: toBalance };
    return {
      user_wallet_transaction_uuid: personal.id,
      user_wallet_balance: Decimal.parse(personal.balance).toAmount(2),
      merchant_transaction_uuid: business.id,
      merchant_balance: Decimal.parse(business.balance).toAmount(2),
    };
  });
}
