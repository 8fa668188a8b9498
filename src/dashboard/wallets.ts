// The dashboard's static wallets: a list with filters (status, currency, network, search by
// order_id, uuid or address) in keyset pages over (created_at, id), and one wallet with its top-ups
// (every chain transfer into its address and what became of it), webhooks and refund.
import type { Kysely } from 'kysely';
import type { Ctx } from '../context.ts';
import type { DB } from '../db/schema.ts';
import { NotFoundError } from '../errors.ts';
import type { Merchant } from '../merchants/store.ts';
import { presentWallet, WALLET_STATUSES } from '../wallets/wallet-object.ts';
import { explorerTxUrl } from '../chain/explorer.ts';
import { cursorOf, parseCursor, PAGE_SIZE, type Cursor } from './invoice-search.ts';
import { parseListFilter, UUID, type ListFilter } from './list-filter.ts';
import { deliveriesOf } from './webhooks.ts';

export type WalletFilter = ListFilter;

export function parseWalletFilter(query: Record<string, unknown>): WalletFilter {
  return parseListFilter(query, WALLET_STATUSES);
}

export const WALLET_LIST_COLUMNS = ['id', 'order_id', 'currency', 'network', 'address', 'status', 'is_force_refund', 'refund_status', 'created_at'] as const;
export type ListedWallet = Pick<DB['static_wallets'], (typeof WALLET_LIST_COLUMNS)[number]>;

/** One page, newest first; `next` is the cursor of the following page or null. */
export async function searchWallets(db: Kysely<DB>, merchantId: string, f: WalletFilter, cursor: Cursor | null, size = PAGE_SIZE): Promise<{ items: ListedWallet[]; next: string | null }> {
  let q = db.selectFrom('static_wallets').where('merchant_id', '=', merchantId);
  if (f.status) q = q.where('status', '=', f.status);
  if (f.currency) q = q.where('currency', '=', f.currency);
  if (f.network) q = q.where('network', '=', f.network);
  if (f.q) {
    const term = f.q;
    q = q.where((eb) => eb.or([eb('order_id', '=', term), eb('address', '=', term), ...(UUID.test(term) ? [eb('id', '=', term.toLowerCase())] : [])]));
  }
  if (cursor) q = q.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(cursor.t, cursor.id)));
  const rows = await q.select(WALLET_LIST_COLUMNS).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(size + 1).execute();
  const items = rows.slice(0, size);
  return { items, next: rows.length > size ? cursorOf(items[items.length - 1]!) : null };
}

export { parseCursor };

export async function walletDetail(ctx: Ctx, merchant: Merchant, id: string) {
  const db = ctx.storage.db;
  const w = await db.selectFrom('static_wallets').selectAll().where('merchant_id', '=', merchant.id).where('id', '=', id).executeTakeFirst();
  if (!w) throw new NotFoundError('Wallet not found');
  const transfers = await db.selectFrom('chain_transfers').selectAll().where('owner_kind', '=', 'wallet').where('owner_id', '=', id).orderBy('seen_at', 'desc').limit(200).execute();
  const topups = await db.selectFrom('wallet_topups').selectAll().where('wallet_id', '=', id).execute();
  const outcome = new Map(topups.map((t) => [`${t.network}:${t.txid}:${t.idx}`, t]));
  const needed = ctx.registry.network(w.network)?.confirmations ?? null;
  const refund = w.refund_id
    ? await db.selectFrom('payouts').select(['id', 'amount', 'payer_amount', 'currency', 'address', 'status', 'txid', 'created_at']).where('id', '=', w.refund_id).executeTakeFirst()
    : undefined;
  const blockedTotal = topups.filter((t) => t.outcome === 'blocked' && t.wallet_refund_id === null && t.currency === w.currency).length;
  return {
    wallet: {
      ...presentWallet(ctx, w),
      status: w.status,
      is_force_refund: w.is_force_refund === 1,
      url_callback: w.url_callback,
      refund_status: w.refund_status,
      blocked_at: w.blocked_at,
      created_at: w.created_at,
    },
    topups: transfers.map((t) => {
      const o = outcome.get(`${t.network}:${t.txid}:${t.idx}`);
      return {
        txid: t.txid,
        idx: t.idx,
        network: t.network,
        currency: t.currency,
        amount: t.amount,
        from_address: t.from_address,
        confirmations: t.confirmations,
        confirmations_needed: needed,
        status: t.status,
        seen_at: t.seen_at,
        explorer: explorerTxUrl(ctx, t.network, t.txid),
        outcome: o?.outcome ?? null,
        merchant_amount: o?.merchant_amount ?? null,
        commission: o?.commission ?? null,
        creation_fee: o?.creation_fee ?? null,
      };
    }),
    refund: refund ?? null,
    webhooks: await deliveriesOf(db, merchant.id, 'wallet', topups.map((t) => t.id)),
    can: {
      block: true,
      refund: w.status === 'blocked' && w.refund_status !== 'process' && w.refund_status !== 'paid' && blockedTotal > 0,
    },
  };
}
