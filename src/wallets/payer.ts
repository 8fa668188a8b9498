// What the payer page and the simulator see of a static wallet, and the test-webhook lookup.
import { randomUUID } from 'node:crypto';
import type { Ctx } from '../context.ts';
import { currencyNetworkLabel } from '../registry/index.ts';
import { depositKey } from '../chain/watch-paths.ts';
import { isUuid } from '../contracts/rules.ts';
import { Decimal } from '../money/decimal.ts';
import type { PayerWallet } from '../contracts/payer.ts';
import type { StaticWalletRow, TopupRow } from './wallet-object.ts';
import { topupWebhookFields } from './webhook.ts';
import { getPublicProfile } from '../merchants/profile.ts';
import type { PaymentWebhook } from '../contracts/merchant-api/webhooks.ts';

async function byId(ctx: Ctx, uuid: string): Promise<StaticWalletRow | undefined> {
  if (!isUuid(uuid)) return undefined;
  return ctx.storage.db.selectFrom('static_wallets').selectAll().where('id', '=', uuid.toLowerCase()).executeTakeFirst();
}

/** The payer page's view of a wallet (no order_id, no callback, no balances). */
export async function walletView(ctx: Ctx, uuid: string): Promise<PayerWallet | null> {
  const w = await byId(ctx, uuid);
  if (!w) return null;
  const network = ctx.registry.network(w.network);
  const currency = network ? ctx.registry.currencyOn(network.code, w.currency) : undefined;
  if (!network || !currency) return null;
  // A wallet on a network that is no longer offered shows no address: nothing watches it.
  const unavailable = ctx.chains.offered(network.code) ? null : 'network';
  const merchant = await getPublicProfile(ctx.storage.db, w.merchant_id);
  // The token the network's driver watches (the operator's settings over the registry's).
  const target = ctx.chains.family(network.code)?.paymentTarget?.(network, ctx.config.networks[network.code], currency) ?? null;
  const uri = {
    format: network.address_format,
    scheme: network.uri_scheme,
    address: w.address,
    decimals: currency.decimals,
    contract: target ? target.contract : currency.contract,
    native: currency.native === true,
    chainId: target ? target.chainId : network.chain_id,
    reference: w.payment_comment ?? undefined,
    label: merchant.display_name ?? undefined,
  };
  return {
    kind: 'wallet',
    uuid: w.id,
    status: w.status as PayerWallet['status'],
    currency: currency.code,
    network: network.code,
    network_name: currencyNetworkLabel(network, currency),
    address: unavailable ? null : w.address,
    payment_comment: unavailable ? null : ctx.chains.families.addresses.shownComment(network, w.payment_comment),
    qr_content: unavailable ? null : ctx.chains.families.addresses.qrContent(uri),
    wallet_uri: unavailable ? null : ctx.chains.families.addresses.paymentUri(uri),
    merchant,
    // Nothing can be paid to an unavailable wallet: no test tools either.
    test_mode: !unavailable && ctx.chains.isTestNetwork(network.code),
    unavailable,
    server_time: ctx.now(),
  };
}

/** Where a simulated payment to the wallet goes. */
export async function walletAddress(ctx: Ctx, uuid: string): Promise<{ address: string; network: string; currency: string } | null> {
  const w = await byId(ctx, uuid);
  // The address a payment is matched by: with a payment comment, the deposit key (account and comment).
  return w ? { address: w.payment_comment === null ? w.address : depositKey(w.address, w.payment_comment), network: w.network, currency: w.currency } : null;
}

/** The merchant's static wallet a test webhook names (uuid first, else order_id), or null. */
export async function findWalletForTest(ctx: Ctx, merchantId: string, target: { uuid?: string | null; order_id?: string | null }): Promise<StaticWalletRow | null> {
  let q = ctx.storage.db.selectFrom('static_wallets').selectAll().where('merchant_id', '=', merchantId);
  if (target.uuid) q = q.where('id', '=', target.uuid.toLowerCase());
  else if (target.order_id) q = q.where('order_id', '=', target.order_id);
  else return null;
  return (await q.executeTakeFirst()) ?? null;
}

/**
 * The fields (without `sign`) of a test `wallet` webhook about the wallet a test names: its latest
 * top-up, or a made-up one of ten times the currency's minimum when it has none; null if no such
 * wallet. The caller sets `status` and `is_final`.
 */
export async function walletTestWebhookFields(
  ctx: Ctx,
  merchantId: string,
  target: { uuid?: string | null; order_id?: string | null },
): Promise<PaymentWebhook | null> {
  const w = await findWalletForTest(ctx, merchantId, target);
  if (!w) return null;
  let t = await ctx.storage.db.selectFrom('wallet_topups').selectAll().where('wallet_id', '=', w.id).orderBy('created_at', 'desc').limit(1).executeTakeFirst();
  if (!t) {
    const def = ctx.registry.currencyOn(w.network, w.currency);
    const amount = Decimal.parse(def?.min ?? '1').mul('10').toString();
    const made: TopupRow = {
      id: randomUUID(),
      wallet_id: w.id,
      merchant_id: w.merchant_id,
      network: w.network,
      txid: randomUUID().replace(/-/g, '').padEnd(64, '0'),
      idx: 0,
      currency: w.currency,
      amount,
      from_address: null,
      outcome: 'credited',
      commission: '0',
      creation_fee: '0',
      merchant_amount: amount,
      payment_amount_usd: null,
      refund_id: null,
      wallet_refund_id: null,
      created_at: ctx.now(),
      updated_at: ctx.now(),
    };
    t = made;
  }
  return topupWebhookFields(w, t, 'paid');
}
