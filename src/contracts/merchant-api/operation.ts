// What one operation of the signed merchant API is: its path, the key that signs it, whether a
// blocked merchant may call it, its parameters (rule strings checked by ../rules.ts, the only
// validation), how a body that passed them becomes the feature's typed parameters, and its result
// (a zod schema, whose inferred type the feature returns). The HTTP layer registers routes from
// these objects and /openapi.json is generated from the same objects.
import type * as z from 'zod';
import type { Input, RuleSet } from '../rules.ts';

/**
 * The merchant's key that signs a request: the payment key, the payout key, or either of them;
 * `refund`: the payout key, and the payment key too for a merchant whose refund-key setting is
 * `either` (the common SDKs sign refunds with the payment key).
 */
export type SigningKey = 'payment' | 'payout' | 'payment_or_payout' | 'refund';

/** What parsing may need beyond the body. */
export interface ParseEnv {
  /** Whether a currency code is a fiat currency (the gateway's registry says). */
  readonly isFiat: (code: string) => boolean;
  /** The query string (history cursors). */
  readonly query?: Input;
}

/**
 * One operation: `Params` is what the feature is handed, `Result` what it returns, `Body` what a
 * client sends (the wire form the rules check and the example shows).
 */
export interface Operation<Params, Result, Body = Params> {
  /** A stable name (the OpenAPI operationId). */
  readonly id: string;
  readonly path: string;
  readonly summary: string;
  /** A group of operations (the OpenAPI tag). */
  readonly group: string;
  readonly signedWith: SigningKey;
  /** `forbidden` answers a blocked merchant `You are forbidden`; `allowed` lets it read. */
  readonly blockedMerchant: 'forbidden' | 'allowed';
  /**
   * A read-only operation that accepts a received webhook body passed on as its parameters (shop
   * code does this with info routes), when signed as a request over those bytes: the webhook-only
   * fields are ignored. Every operation that changes anything leaves this unset and refuses such
   * bodies, and a replayed webhook (its own webhook signature) is refused everywhere.
   */
  readonly acceptsWebhookBody?: true;
  /** Body parameters: name -> rule string of ../rules.ts (`list.*.field` for array items). */
  readonly params: RuleSet;
  /** Query-string parameters, as rule strings too. */
  readonly query?: RuleSet;
  /**
   * The validation errors of a body, for an operation whose rules depend on the body or on the
   * gateway's registry; without it, the errors of `params`.
   */
  check?(input: Input, env: ParseEnv): Record<string, string[]>;
  /** The feature's parameters from a body that passed the checks (may refuse what rules cannot say). */
  parse(body: Body, env: ParseEnv): Params;
  /** What `result` of the success envelope holds. */
  readonly result: z.ZodType<Result>;
  /** A request and its answer; the OpenAPI test checks both against the schemas. */
  readonly example: { readonly params: Body; readonly result: Result };
}

/** Declares an operation; the type parameters tie its example and parsing to its types. */
export function operation<Params, Result, Body = Params>(op: Operation<Params, Result, Body>): Operation<Params, Result, Body> {
  return op;
}

/** The result type of an operation. */
export type ResultOf<O> = O extends Operation<unknown, infer R, unknown> ? R : never;
/** The parameters type of an operation (what its feature takes). */
export type ParamsOf<O> = O extends Operation<infer P, unknown, unknown> ? P : never;

/** A boolean parameter as clients send it (clients also send `1`, `"true"`). */
export type WireBoolean = boolean | 0 | 1 | '0' | '1' | 'true' | 'false';
/** An integer parameter as clients send it: a number or its digits in a string. */
export type WireInteger = number | string;
/** An optional parameter: absent, null and "" all mean "not given". */
export type Maybe<T> = T | null | undefined;
