// The OpenAPI 3.1 description of the merchant API, generated from the operation definitions (the
// same rule strings that validate parameters and the same zod schemas the features' results are
// typed by), so it cannot drift from what the gateway checks and answers.
import * as z from 'zod';
import type { Operation } from './operation.ts';
import { paramsSchema, type JsonSchema } from './params-schema.ts';
import { ExchangeRates, EXCHANGE_RATES_EXAMPLE, EXCHANGE_RATES_PATH } from './account.ts';

const KEY_TEXT: Record<Operation<unknown, unknown>['signedWith'], string> = {
  payment: 'Signed with the payment key.',
  payout: 'Signed with the payout key.',
  payment_or_payout: 'Signed with the payment key or the payout key.',
  refund: 'Signed with the payout key (or also the payment key, if the merchant set its refund key to `either`).',
};

/** A zod schema as plain JSON Schema 2020-12, without its `$schema` line (OpenAPI 3.1 names the dialect once). */
export function resultSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output' }) as JsonSchema;
  return rest;
}

const failure = (description: string) => ({ $ref: `#/components/responses/${description}` });

function success(result: JsonSchema, example: unknown): JsonSchema {
  return {
    description: 'Success envelope: `state` 0 and the operation\'s `result`.',
    content: {
      'application/json': {
        schema: { type: 'object', properties: { state: { const: 0 }, result }, required: ['state', 'result'] },
        example: { state: 0, result: example },
      },
    },
  };
}

export function openApiDocument(operations: ReadonlyArray<Operation<unknown, unknown>>, info: { version: string }): JsonSchema {
  const paths: Record<string, JsonSchema> = {};
  for (const op of operations) {
    const query = Object.entries(op.query ?? {}).map(([name, rules]) => ({ name, in: 'query', required: false, schema: paramsSchema({ [name]: rules }).properties }));
    paths[op.path] = {
      post: {
        operationId: op.id,
        summary: op.summary,
        description: `${KEY_TEXT[op.signedWith]}${op.blockedMerchant === 'forbidden' ? ' A blocked merchant is answered `You are forbidden`.' : ''}`,
        tags: [op.group],
        security: [{ merchant: [], sign: [] }],
        'x-signing-key': op.signedWith,
        ...(query.length > 0
          ? { parameters: query.map((q) => ({ name: q.name, in: q.in, required: q.required, schema: (q.schema as Record<string, JsonSchema>)[q.name] })) }
          : {}),
        requestBody: {
          description: 'An empty body, `{}` and `[]` all mean "no parameters".',
          required: false,
          content: { 'application/json': { schema: paramsSchema(op.params), example: op.example.params } },
        },
        responses: {
          '200': success(resultSchema(op.result), op.example.result),
          '400': failure('BadRequest'),
          '401': failure('Unauthorized'),
          '415': failure('BadRequest'),
          '422': failure('Unprocessable'),
          '500': failure('ServerError'),
          '503': failure('ServerError'),
        },
      },
    };
  }
  paths[EXCHANGE_RATES_PATH] = {
    get: {
      operationId: 'exchangeRateList',
      summary: 'Exchange rates of a currency to every other one the gateway prices (public, not signed)',
      tags: ['account'],
      security: [],
      parameters: [{ name: 'currency', in: 'path', required: true, schema: { type: 'string' } }],
      responses: { '200': success(resultSchema(ExchangeRates), EXCHANGE_RATES_EXAMPLE), '422': failure('Unprocessable') },
    },
  };
  const message = { type: 'object', properties: { state: { const: 1 }, message: { type: 'string' } }, required: ['state', 'message'] };
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Satchel merchant API',
      version: info.version,
      description: 'Every operation is a POST with a JSON body, signed (see the `merchant` and `sign` security schemes). Success: `{"state":0,"result":...}`; failure: `{"state":1,"message":...}` or `{"state":1,"errors":{...}}`.',
    },
    tags: [...new Set(operations.map((op) => op.group))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        merchant: { type: 'apiKey', in: 'header', name: 'merchant', description: 'The merchant\'s uuid.' },
        sign: {
          type: 'apiKey',
          in: 'header',
          name: 'sign',
          description: 'md5 hex of (base64 of the raw request body bytes + the API key). Each operation says which key: the payment key or the payout key (`x-signing-key`). Sent together with `merchant`.',
        },
      },
      schemas: {
        Failure: message,
        ValidationFailure: {
          type: 'object',
          properties: { state: { const: 1 }, errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } } },
          required: ['state', 'errors'],
        },
        ServerFailure: { type: 'object', properties: { message: { type: 'string' }, code: { type: 'integer' }, error: { type: 'null' } }, required: ['message', 'code', 'error'] },
      },
      responses: {
        BadRequest: { description: 'The body is not JSON, nests too deep, or is not JSON at all.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Failure' } } } },
        Unauthorized: { description: 'Unknown merchant or a wrong signature.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Failure' }, example: { state: 1, message: 'Invalid Sign.' } } } },
        Unprocessable: {
          description: 'A parameter breaks a rule (`errors`) or the request cannot be done (`message`).',
          content: { 'application/json': { schema: { oneOf: [{ $ref: '#/components/schemas/Failure' }, { $ref: '#/components/schemas/ValidationFailure' }] }, example: { state: 1, errors: { amount: ['validation.required'] } } } },
        },
        ServerError: { description: 'Server failure (500), or the database out of reach (503, worth retrying).', content: { 'application/json': { schema: { $ref: '#/components/schemas/ServerFailure' }, example: { message: 'Server error', code: 500, error: null } } } },
      },
    },
  };
}
