// What the merchant's account holds and offers, beyond the spec as merchants' Cryptomus clients
// expect: balances and payment services (signed).
import { signedRoute, type SignedRouteGroup } from '../signed-api.ts';
import { balanceOp, paymentServicesOp } from '../../contracts/merchant-api/account.ts';
import { merchantBalances } from '../../ledger/merchant-wallets.ts';
import { paymentServices } from '../../pricing/price-list.ts';

export const accountRoutes: SignedRouteGroup = async (app, { ctx }) => {
  signedRoute(app, balanceOp, async ({ merchant }) => merchantBalances(ctx, merchant.id));
  signedRoute(app, paymentServicesOp, async ({ merchant }) => paymentServices(ctx, merchant.id));
};
