// Static wallets: creation, QR code, blocking and the refund of a blocked wallet's funds.
import { signedRoute, type SignedRouteGroup } from '../signed-api.ts';
import { blockedWalletRefundOp, blockWalletOp, createWalletOp, walletQrOp } from '../../contracts/merchant-api/wallets.ts';
import { blockWallet, createStaticWallet, walletQr } from '../../wallets/create.ts';
import { blockedAddressRefund } from '../../wallets/blocked-refund.ts';

export const walletRoutes: SignedRouteGroup = async (app, { ctx }) => {
  signedRoute(app, createWalletOp, async ({ params, merchant }) => createStaticWallet(ctx, merchant, params));
  signedRoute(app, walletQrOp, async ({ params, merchant }) => walletQr(ctx, merchant.id, params));
  signedRoute(app, blockWalletOp, async ({ params, merchant }) => blockWallet(ctx, merchant.id, params));
  signedRoute(app, blockedWalletRefundOp, async ({ params, merchant }) => blockedAddressRefund(ctx, merchant.id, params));
};
