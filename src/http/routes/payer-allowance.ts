// Automatic renewals on the payer API (docs/recurring.md): what to approve, and the approval
// recorded once the chain shows it. Registered inside the payer API's scope (its CORS and rate limit).
import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../../context.ts';
import { allowanceTerms, recordAllowance } from '../../recurrences/allowance.ts';
import { jsonBody } from '../json-body.ts';

export function allowanceRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.get<{ Params: { uuid: string } }>('/recurrence/:uuid/allowance', async (req, reply) => {
    reply.header('cache-control', 'no-store');
    return reply.send({ state: 0, result: await allowanceTerms(ctx, req.params.uuid) });
  });

  app.post<{ Params: { uuid: string } }>('/recurrence/:uuid/allowance', async (req, reply) => {
    const body = jsonBody(req);
    if (body === null) return reply.code(400).send({ state: 1, message: 'Malformed JSON' });
    return reply.send({ state: 0, result: await recordAllowance(ctx, req.params.uuid, body.address, body.tx_hash, body.signature, body.permit) });
  });
}
