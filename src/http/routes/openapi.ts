// GET /openapi.json: the OpenAPI 3.1 description of the merchant API, built once from the same
// operation definitions the signed routes are registered from.
import type { FastifyInstance } from 'fastify';
import { MERCHANT_OPERATIONS } from '../../contracts/merchant-api/index.ts';
import { openApiDocument } from '../../contracts/merchant-api/openapi.ts';

/** The version of the description (not of the gateway): the API is `/v1`. */
export const OPENAPI_VERSION = '1.0.0';

export async function openApiRoutes(app: FastifyInstance): Promise<void> {
  const body = JSON.stringify(openApiDocument(MERCHANT_OPERATIONS, { version: OPENAPI_VERSION }));
  app.get('/openapi.json', async (_req, reply) => reply.type('application/json; charset=utf-8').send(body));
}
