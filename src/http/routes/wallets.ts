// Static wallets: creation, QR code, blocking and the refund of a blocked wallet's funds.
import { signedRoute, type SignedRouteGroup } from '../signed-api.ts';
import { blockedWalletRefundOp, blockWalletOp, createWalletOp, walletQrOp } from '../../contracts/merchant-api/wallets.ts';
import { blockWallet, createStaticWallet, walletQr } from '../../wallets/create.ts';
import { blockedAddressRefund } from '../../wallets/blocked-refund.ts';

export const walletRoutes: SignedRouteGroup = async (app, { ctx }) => {
  signedRoute(app, createWalletOp, async ({ input, merchant }) => createStaticWallet(ctx, merchant, input));
  signedRoute(app, walletQrOp, async ({ input, merchant }) => walletQr(ctx, merchant.id, input));
  signedRoute(app, blockWalletOp, async ({ input, merchant }) => blockWallet(ctx, merchant.id, input));
  signedRoute(app, blockedWalletRefundOp, async ({ input, merchant }) => blockedAddressRefund(ctx, merchant.id, input));
};
