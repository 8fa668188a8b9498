// Beyond the spec, as merchants' Cryptomus clients expect: balances, payment services, and the
// exchange rates (an unsigned GET, as Cryptomus documents it).
import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../../context.ts';
import type { V1 } from '../merchant-api.ts';
import { merchantBalances } from '../../wallets/merchant-wallets.ts';
import { exchangeRateList, paymentServices } from '../../payouts/services.ts';

export function extraRoutes(v1: V1): void {
  const { ctx } = v1;
  v1.post('/v1/balance', async ({ merchant }) => merchantBalances(ctx, merchant.id), { forbidIfBlocked: false });
  v1.post('/v1/payment/services', async ({ merchant }) => paymentServices(ctx, merchant.id), { forbidIfBlocked: false });
}

/** GET /v1/exchange-rate/{currency}/list: public, no signature (headers, if sent, are ignored). */
export async function exchangeRateRoutes(app: FastifyInstance, ctx: Ctx): Promise<void> {
  app.get<{ Params: { currency: string } }>('/v1/exchange-rate/:currency/list', async (req) => ({
    state: 0,
    result: await exchangeRateList(ctx, req.params.currency),
  }));
}
