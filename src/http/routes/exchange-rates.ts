// GET /v1/exchange-rate/{currency}/list: public, no signature (headers, if sent, are ignored), as
// Cryptomus documents it.
import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../../context.ts';
import { exchangeRateList } from '../../pricing/price-list.ts';

export async function exchangeRateRoutes(app: FastifyInstance, ctx: Ctx): Promise<void> {
  app.get<{ Params: { currency: string } }>('/v1/exchange-rate/:currency/list', async (req) => ({
    state: 0,
    result: await exchangeRateList(ctx, req.params.currency),
  }));
}
