// POST /v1/wallet, /v1/wallet/qr and /v1/wallet/block-address.
import { randomUUID } from 'node:crypto';
import type { Ctx } from '../context.ts';
import { BusinessError, Msg, ValidationError } from '../errors.ts';
import type { Merchant } from '../merchants/store.ts';
import { allocateAddress } from '../chain/allocate.ts';
import { depositParts } from '../chain/watch-paths.ts';
import { receivingOffer } from '../custody/offer.ts';
import { qrDataUrl } from '../qr/png.ts';
import { isWalletActive } from '../ledger/merchant-wallets.ts';
import { presentWallet, type StaticWalletRow } from './wallet-object.ts';
import { claimOrderId } from '../merchants/order-ids.ts';
import type { StaticWallet } from '../contracts/merchant-api/objects.ts';
import type { CreateWalletParams } from '../contracts/merchant-api/wallets.ts';
import type { RecordRef } from '../contracts/merchant-api/parse.ts';

export async function findWalletByOrder(ctx: Ctx, merchantId: string, orderId: string): Promise<StaticWalletRow | undefined> {
  return ctx.storage.db.selectFrom('static_wallets').selectAll().where('merchant_id', '=', merchantId).where('order_id', '=', orderId).executeTakeFirst();
}

class OrderIdTaken extends Error {}

/**
 * Creates a static wallet, or returns the merchant's wallet with this order_id (whatever else the
 * request says). An order_id that one of the merchant's invoices already uses answers
 * `{"order_id":["validation.unique"]}`: the spec makes order_id unique across both. Errors: `The
 * service was not found` (a currency or network the registry does not have, or a network that
 * does not carry the currency), `Wallet not found` (the business wallet is switched off).
 */
export async function createStaticWallet(ctx: Ctx, merchant: Merchant, params: CreateWalletParams): Promise<StaticWallet> {
  const orderId = params.order_id;
  const existing = await findWalletByOrder(ctx, merchant.id, orderId);
  if (existing) return presentWallet(ctx, existing);
  const invoice = await ctx.storage.db
    .selectFrom('invoices')
    .select('id')
    .where('merchant_id', '=', merchant.id)
    .where('order_id', '=', orderId)
    .executeTakeFirst();
  if (invoice) throw new ValidationError({ order_id: ['validation.unique'] });

  const network = ctx.registry.network(params.network);
  const currency = network ? ctx.registry.currencyOn(network.code, params.currency) : undefined;
  // A network the gateway does not offer (Chains.offered) is no service: nothing would watch the address.
  if (!network || !currency || !ctx.chains.offered(network.code)) throw new BusinessError(Msg.serviceNotFound);
  if (!(await isWalletActive(ctx, ctx.storage.db, merchant.id, 'business', currency.code))) throw new BusinessError(Msg.walletNotFound);
  // A watch-only network needs the merchant's own receiving material (src/custody/).
  if (!(await receivingOffer(ctx, merchant.id)).offered(network.code)) throw new BusinessError(Msg.walletNotFound);

  const now = ctx.now();
  const row: StaticWalletRow = {
    id: randomUUID(),
    merchant_id: merchant.id,
    order_id: orderId,
    currency: currency.code,
    network: network.code,
    address: '',
    address_path: '',
    payment_comment: null,
    url_callback: params.url_callback ?? merchant.default_url_callback ?? null,
    from_referral_code: params.from_referral_code,
    status: 'active',
    is_force_refund: 0,
    fee_charged: 0,
    refund_status: null,
    refund_id: null,
    blocked_at: null,
    created_at: now,
    updated_at: now,
  };
  const inserted = await ctx.storage
    .write(async (trx) => {
      if ((await claimOrderId(trx, merchant.id, orderId, 'wallet')) !== 'wallet') throw new ValidationError({ order_id: ['validation.unique'] });
      const a = await allocateAddress(trx, ctx, network, { kind: 'wallet', id: row.id, merchantId: merchant.id }, now);
      // A deposit key (a network that tells payments apart by a comment): the account and the comment.
      const parts = depositParts(a.address);
      row.address = parts.address;
      row.payment_comment = parts.reference;
      row.address_path = a.path;
      const r = await trx
        .insertInto('static_wallets')
        .values(row)
        .onConflict((oc) => oc.columns(['merchant_id', 'order_id']).doNothing())
        .executeTakeFirst();
      // Rolls the address back with it: none is handed out for a wallet that does not exist.
      if (Number(r.numInsertedOrUpdatedRows ?? 0n) === 0) throw new OrderIdTaken();
      return true;
    })
    .catch((e: unknown) => {
      if (e instanceof OrderIdTaken || ctx.storage.isUniqueViolation(e)) return false;
      throw e;
    });
  if (!inserted) {
    const winner = await findWalletByOrder(ctx, merchant.id, orderId);
    if (!winner) throw new Error('order_id conflict without a wallet');
    return presentWallet(ctx, winner);
  }
  return presentWallet(ctx, row);
}

/** POST /v1/wallet/qr: `wallet_address_uuid` (or, as some clients send it, `merchant_payment_uuid`). */
export async function walletQr(ctx: Ctx, merchantId: string, params: { wallet_address_uuid: string }): Promise<{ image: string }> {
  const w = await ctx.storage.db
    .selectFrom('static_wallets')
    .select(['network', 'address', 'payment_comment'])
    .where('merchant_id', '=', merchantId)
    .where('id', '=', params.wallet_address_uuid)
    .executeTakeFirst();
  if (!w) throw new BusinessError(Msg.notFound);
  const network = ctx.registry.network(w.network);
  const content = network && w.payment_comment !== null ? ctx.chains.families.addresses.depositQrContent(network, w.address, w.payment_comment) : w.address;
  return { image: await qrDataUrl(content) };
}

/**
 * POST /v1/wallet/block-address: uuid or order_id (1..32; `order_id` wins). Blocking again is
 * allowed and sets `is_force_refund` to the value given. Unknown wallet: `Not found`.
 */
export async function blockWallet(ctx: Ctx, merchantId: string, params: RecordRef & { is_force_refund: boolean }): Promise<{ uuid: string; status: 'blocked' }> {
  const force = params.is_force_refund ? 1 : 0;
  return ctx.storage.write(async (trx) => {
    let q = trx.selectFrom('static_wallets').selectAll().where('merchant_id', '=', merchantId);
    q = params.uuid !== null ? q.where('id', '=', params.uuid) : q.where('order_id', '=', params.order_id);
    const w = await ctx.storage.forUpdate(q).executeTakeFirst();
    if (!w) throw new BusinessError(Msg.notFound);
    const now = ctx.now();
    await trx
      .updateTable('static_wallets')
      .set({ status: 'blocked', is_force_refund: force, blocked_at: w.blocked_at ?? now, updated_at: now })
      .where('id', '=', w.id)
      .execute();
    return { uuid: w.id, status: 'blocked' };
  });
}
