// Transfers between the merchant's personal and business wallets.
import { signedRoute, type SignedRouteGroup } from '../signed-api.ts';
import { transferToBusinessOp, transferToPersonalOp } from '../../contracts/merchant-api/transfers.ts';
import { transfer } from '../../transfers/transfer.ts';

export const transferRoutes: SignedRouteGroup = async (app, { ctx }) => {
  signedRoute(app, transferToBusinessOp, async ({ params, merchant }) => transfer(ctx, merchant, 'to-business', params));
  signedRoute(app, transferToPersonalOp, async ({ params, merchant }) => transfer(ctx, merchant, 'to-personal', params));
};
