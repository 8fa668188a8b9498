// A merchant's business and personal wallets: one of each per cryptocurrency of the registry. Their
// money lives in the ledger (balances, ledger_entries); this module gives each a stable uuid, says
// whether it is active (an operator may switch one off), and lists them with their balances.
import { statement } from '../db/statement.ts';
import { createHash } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Ctx } from '../context.ts';
import type { DB } from '../db/schema.ts';
import { balances, type Wallet } from './index.ts';
import { money } from '../money/format.ts';
import { Decimal } from '../money/decimal.ts';

export type WalletKind = Wallet;
export type WalletStatus = 'active' | 'in_active';

/**
 * The wallet's uuid, derived from what identifies it: stable across restarts and processes, the
 * same on every database, and nothing to store or to race over.
 */
export function walletUuid(merchantId: string, kind: WalletKind, currency: string): string {
  const h = createHash('sha256').update(`satchel:wallet:${merchantId.toLowerCase()}:${kind}:${currency.toUpperCase()}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x80; // RFC 9562 version 8 (custom)
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** Every cryptocurrency code of the registry, sorted. */
export function walletCurrencies(ctx: Ctx): string[] {
  return [...new Set(ctx.registry.networks.flatMap((n) => n.currencies.map((c) => c.code.toUpperCase())))].sort();
}

// Read on every invoice creation: compiled once (db/statement.ts).
const walletStatus = statement((db, p: { merchantId: string; kind: string; currency: string }) =>
  db.selectFrom('merchant_wallets').select('status').where('merchant_id', '=', p.merchantId).where('kind', '=', p.kind).where('currency', '=', p.currency),
);

/** True when the merchant has an active wallet of this kind in `currency` (a cryptocurrency the
 * registry knows, not switched off by the operator). */
export async function isWalletActive(
  ctx: Ctx,
  db: Kysely<DB> | Transaction<DB>,
  merchantId: string,
  kind: WalletKind,
  currency: string,
): Promise<boolean> {
  if (!ctx.registry.isCrypto(currency)) return false;
  const { rows: [row] } = await walletStatus(db, { merchantId, kind, currency: currency.toUpperCase() });
  return !row || row.status === 'active';
}

/** Switches a merchant wallet on or off (operators; `in_active` answers "wallet not found"). */
export async function setWalletStatus(ctx: Ctx, merchantId: string, kind: WalletKind, currency: string, status: WalletStatus): Promise<void> {
  const now = ctx.now();
  await ctx.storage.db
    .insertInto('merchant_wallets')
    .values({ merchant_id: merchantId, kind, currency: currency.toUpperCase(), status, updated_at: now })
    .onConflict((oc) => oc.columns(['merchant_id', 'kind', 'currency']).doUpdateSet({ status, updated_at: now }))
    .execute();
}

export interface WalletBalance {
  uuid: string;
  balance: string;
  currency_code: string;
  balance_usd: string | null;
}

/**
 * POST /v1/balance: `[{"balance":{"merchant":[...],"user":[...]}}]`, the business wallets under
 * `merchant` and the personal ones under `user`, one per cryptocurrency (zero balances included),
 * as Cryptomus clients parse it.
 */
export async function merchantBalances(ctx: Ctx, merchantId: string): Promise<Array<{ balance: { merchant: WalletBalance[]; user: WalletBalance[] } }>> {
  const rows = await balances(ctx.storage.db, merchantId);
  const held = new Map(rows.map((r) => [`${r.wallet}:${r.currency}`, r.amount]));
  const codes = new Set(walletCurrencies(ctx));
  // A balance in a currency the registry no longer lists is still shown: money is never hidden.
  for (const r of rows) codes.add(r.currency);
  const usd = new Map<string, string | null>();
  const list = async (kind: WalletKind): Promise<WalletBalance[]> => {
    const out: WalletBalance[] = [];
    for (const code of [...codes].sort()) {
      const amount = held.get(`${kind}:${code}`) ?? '0';
      if (!usd.has(code)) usd.set(code, await usdRate(ctx, code));
      const rate = usd.get(code);
      out.push({
        uuid: walletUuid(merchantId, kind, code),
        balance: money(amount)!,
        currency_code: code,
        balance_usd: rate === null || rate === undefined ? null : Decimal.parse(amount).mul(rate).round(2, 'down').toAmount(2),
      });
    }
    return out;
  };
  return [{ balance: { merchant: await list('business'), user: await list('personal') } }];
}

async function usdRate(ctx: Ctx, currency: string): Promise<string | null> {
  try {
    return (await ctx.rates.quote(currency, 'USD', null)).rate;
  } catch {
    return null;
  }
}
