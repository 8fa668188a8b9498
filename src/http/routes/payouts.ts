// Payouts and invoice refunds (signed with the payout key), and the unauthenticated simulator
// routes for money going out.
import type { FastifyInstance } from 'fastify';
import { simulatorRoute } from './simulator.ts';
import type { Ctx } from '../../context.ts';
import type { V1 } from '../merchant-api.ts';
import type { Input } from '../../contracts/rules.ts';
import { calcPayout, createPayout } from '../../payouts/create.ts';
import { listPayouts, payoutInfo } from '../../payouts/queries.ts';
import { payoutServices } from '../../payouts/services.ts';
import { refundInvoice } from '../../refunds/refund.ts';
import { simulateConfirmOutgoing, simulateFailOutgoing } from '../../chain/simulated/outgoing.ts';
import { simulateDeposit } from '../../transfers/deposit.ts';

export function payoutRoutes(v1: V1): void {
  const { ctx } = v1;
  v1.post('/v1/payout', async ({ input, merchant }) => createPayout(ctx, merchant, input));
  for (const path of ['/v1/payout/calc', '/v1/payout/calculate']) {
    v1.post(path, async ({ input, merchant }) => calcPayout(ctx, merchant, input));
  }
  v1.post('/v1/payout/info', async ({ input, merchant }) => payoutInfo(ctx, merchant.id, input), { forbidIfBlocked: false });
  v1.post('/v1/payout/list', async ({ input, merchant, query }) => listPayouts(ctx, merchant.id, input, query), { forbidIfBlocked: false });
  v1.post('/v1/payout/services', async ({ merchant }) => payoutServices(ctx, merchant.id), { forbidIfBlocked: false });
  v1.post('/v1/payment/refund', async ({ input, merchant }) => refundInvoice(ctx, merchant, input));
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** /simulator/payout/confirm, /simulator/payout/fail `{"payout":"<uuid>"}` and /simulator/deposit
 * `{"merchant","currency","amount"}` (test mode; see docs/payouts.md). */
export async function moneyOutSimulatorRoutes(app: FastifyInstance, ctx: Ctx): Promise<void> {
  const route = (path: string, run: (input: Input) => Promise<unknown>) => simulatorRoute(app, path, run);
  route('/simulator/payout/confirm', (i) => simulateConfirmOutgoing(ctx, str(i.payout)));
  route('/simulator/payout/fail', (i) => simulateFailOutgoing(ctx, str(i.payout)));
  route('/simulator/deposit', (i) => simulateDeposit(ctx, { merchant: str(i.merchant), currency: str(i.currency), amount: str(i.amount) }));
}
