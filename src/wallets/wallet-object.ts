// The static wallet record and the spec's creation result.
import type { Ctx } from '../context.ts';
import type { StaticWalletsTable, WalletTopupsTable } from '../db/schema.ts';
import { walletUuid } from '../ledger/merchant-wallets.ts';
import type { StaticWallet } from '../contracts/merchant-api/objects.ts';

export type StaticWalletRow = StaticWalletsTable;
export type TopupRow = WalletTopupsTable;

export const WALLET_STATUSES = ['active', 'blocked', 'in_active'] as const;

/** The spec's static wallet creation result, fields in the spec's order. */
export function presentWallet(ctx: Ctx, w: StaticWalletRow): StaticWallet {
  return {
    wallet_uuid: walletUuid(w.merchant_id, 'business', w.currency),
    uuid: w.id,
    order_id: w.order_id,
    address: w.address,
    payment_comment: ctx.chains.families.addresses.shownComment(ctx.registry.network(w.network), w.payment_comment),
    network: w.network,
    currency: w.currency,
    url: walletUrl(ctx, w.id),
  };
}

/** A static wallet's payment page: {public base}/pay/wallet/{uuid}. */
export function walletUrl(ctx: Ctx, id: string): string {
  return `${ctx.config.publicUrl}/pay/wallet/${id}`;
}
