// What one operation of the signed merchant API is: its path, the key that signs it, whether a
// blocked merchant may call it, its parameters (rule strings checked by ../rules.ts, the only
// validation) and its result (a zod schema, whose inferred type the feature returns). The HTTP layer
// registers routes from these objects and /openapi.json is generated from the same objects.
import type * as z from 'zod';
import type { RuleSet } from '../rules.ts';

/**
 * The merchant's key that signs a request: the payment key, the payout key, or either of them;
 * `refund`: the payout key, and the payment key too for a merchant whose refund-key setting is
 * `either` (the common SDKs sign refunds with the payment key).
 */
export type SigningKey = 'payment' | 'payout' | 'payment_or_payout' | 'refund';

export interface Operation<Params, Result> {
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
  /** What `result` of the success envelope holds. */
  readonly result: z.ZodType<Result>;
  /** A request and its answer; the OpenAPI test checks both against the schemas. */
  readonly example: { readonly params: Params; readonly result: Result };
}

/** Declares an operation; the type parameters tie its example to its parameter and result types. */
export function operation<Params, Result>(op: Operation<Params, Result>): Operation<Params, Result> {
  return op;
}

/** The result type of an operation. */
export type ResultOf<O> = O extends Operation<unknown, infer R> ? R : never;

/** A boolean parameter as clients send it (clients also send `1`, `"true"`). */
export type WireBoolean = boolean | 0 | 1 | '0' | '1' | 'true' | 'false';
/** An integer parameter as clients send it: a number or its digits in a string. */
export type WireInteger = number | string;
/** An optional parameter: absent, null and "" all mean "not given". */
export type Maybe<T> = T | null | undefined;
