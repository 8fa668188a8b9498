// Payouts (signed with the payout key), and the unauthenticated simulator routes for money going out.
import type { FastifyInstance } from 'fastify';
import { simulatorRoute, str } from './simulator.ts';
import type { Ctx } from '../../context.ts';
import { signedRoute, type SignedRouteGroup } from '../signed-api.ts';
import type { Input } from '../../contracts/rules.ts';
import { calcPayoutOp, calculatePayoutOp, createPayoutOp, payoutInfoOp, payoutListOp, payoutServicesOp } from '../../contracts/merchant-api/payouts.ts';
import { calcPayout, createPayout } from '../../payouts/create.ts';
import { listPayouts, payoutInfo } from '../../payouts/queries.ts';
import { payoutServices } from '../../pricing/price-list.ts';
import { simulateConfirmOutgoing, simulateFailOutgoing } from '../../simulator/payouts.ts';
import { simulateDeposit } from '../../simulator/deposit.ts';

export const payoutRoutes: SignedRouteGroup = async (app, { ctx }) => {
  signedRoute(app, createPayoutOp, async ({ params, merchant }) => createPayout(ctx, merchant, params));
  for (const op of [calcPayoutOp, calculatePayoutOp]) signedRoute(app, op, async ({ params, merchant }) => calcPayout(ctx, merchant, params));
  signedRoute(app, payoutInfoOp, async ({ params, merchant }) => payoutInfo(ctx, merchant.id, params));
  signedRoute(app, payoutListOp, async ({ params, merchant }) => listPayouts(ctx, merchant.id, params));
  signedRoute(app, payoutServicesOp, async ({ merchant }) => payoutServices(ctx, merchant.id));
};

/** /simulator/payout/confirm, /simulator/payout/fail `{"payout":"<uuid>"}` and /simulator/deposit
 * `{"merchant","currency","amount"}` (test mode; see docs/payouts.md). */
export async function moneyOutSimulatorRoutes(app: FastifyInstance, ctx: Ctx): Promise<void> {
  const route = (path: string, run: (input: Input) => Promise<unknown>) => simulatorRoute(app, path, run);
  route('/simulator/payout/confirm', (i) => simulateConfirmOutgoing(ctx, str(i.payout) ?? ''));
  route('/simulator/payout/fail', (i) => simulateFailOutgoing(ctx, str(i.payout) ?? ''));
  route('/simulator/deposit', (i) => simulateDeposit(ctx, { merchant: str(i.merchant) ?? '', currency: str(i.currency) ?? '', amount: str(i.amount) ?? '' }));
}
