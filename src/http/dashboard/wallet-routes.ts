// The dashboard's static wallets (list, detail, block, refund of blocked funds), its webhooks view
// with "retry now", and the merchant's default URLs. Actions go through the same operations as the
// signed API and are written to the audit log.
import type { Merchant } from '../../merchants/store.ts';
import { merchantDefaults } from '../../merchants/store.ts';
import { BusinessError, Msg, NotFoundError } from '../../errors.ts';
import { audit } from '../../dashboard/audit.ts';
import { parseCursor, parseWalletFilter, searchWallets, walletDetail } from '../../dashboard/wallets.ts';
import { listDeliveries, parseShow, retryNow } from '../../dashboard/webhooks.ts';
import { saveDefaults } from '../../dashboard/settings.ts';
import { blockWallet } from '../../wallets/create.ts';
import { blockedAddressRefund } from '../../wallets/blocked-refund.ts';
import { isUuid } from '../../contracts/rules.ts';
import { blockedWalletRefundOp, blockWalletOp } from '../../contracts/merchant-api/wallets.ts';
import { paramsFor } from '../signed-api.ts';
import { dashboardRoute, type DashboardRouteGroup } from './api.ts';
import { walletApi } from '../../contracts/dashboard/wallets.ts';

function uuidParam(params: unknown, what: string): string {
  const id = (params as { id?: unknown }).id;
  if (!isUuid(id)) throw new NotFoundError(`${what} not found`);
  return id.toLowerCase();
}

/** As the signed API answers a blocked merchant's money-moving request. */
function notBlocked(merchant: Merchant): void {
  if (merchant.is_blocked) throw new BusinessError(Msg.forbidden);
}

export const walletRoutes: DashboardRouteGroup = async (app, { ctx }) => {
  dashboardRoute(app, walletApi.wallets, async ({ merchant, query }) => searchWallets(ctx.storage.db, merchant.id, parseWalletFilter(query), parseCursor(query.after)));

  dashboardRoute(app, walletApi.wallet, async ({ merchant, req }) => walletDetail(ctx, merchant, uuidParam(req.params, 'Wallet')));

  dashboardRoute(
    app,
    walletApi.block,
    async ({ merchant, req, body, actor }) => {
      const id = uuidParam(req.params, 'Wallet');
      const force = body.is_force_refund === true;
      const r = await blockWallet(ctx, merchant.id, paramsFor(ctx, blockWalletOp, { uuid: id, is_force_refund: force }));
      await audit(ctx.storage.db, actor, { merchantId: merchant.id, action: 'wallet_block', target: id, detail: { is_force_refund: force } }, ctx.now());
      return r;
    },
  );

  dashboardRoute(
    app,
    walletApi.refund,
    async ({ merchant, req, body, actor }) => {
      notBlocked(merchant);
      const id = uuidParam(req.params, 'Wallet');
      const address = typeof body.address === 'string' ? body.address.trim() : body.address;
      const r = await blockedAddressRefund(ctx, merchant.id, paramsFor(ctx, blockedWalletRefundOp, { uuid: id, address }));
      await audit(ctx.storage.db, actor, { merchantId: merchant.id, action: 'wallet_refund', target: id, detail: { address: String(address), amount: r.amount } }, ctx.now());
      return r;
    },
  );

  dashboardRoute(app, walletApi.webhooks, async ({ merchant, query }) => listDeliveries(ctx.storage.db, merchant.id, parseShow(query.show), query.after));

  dashboardRoute(
    app,
    walletApi.retry,
    async ({ merchant, req, actor }) => {
      const id = uuidParam(req.params, 'Webhook');
      const r = await retryNow(ctx, merchant.id, id);
      await audit(ctx.storage.db, actor, { merchantId: merchant.id, action: 'webhook_retry', target: id, detail: { due: r.due } }, ctx.now());
      return r;
    },
  );

  dashboardRoute(app, walletApi.settings, async ({ merchant }) => merchantDefaults(merchant));

  dashboardRoute(
    app,
    walletApi.saveSettings,
    async ({ merchant, body, actor }) => {
      const before = merchantDefaults(merchant);
      const saved = await saveDefaults(ctx.storage.db, merchant, before, body);
      ctx.merchants.invalidate(merchant.id);
      await audit(ctx.storage.db, actor, { merchantId: merchant.id, action: 'settings_update', detail: { ...saved } }, ctx.now());
      return saved;
    },
  );
};
