// What one operation of the signed merchant API is: its path, the key that signs it, whether a
// blocked merchant may call it, its parameters (checked by the rules in ../rules.ts) and its result.
// The HTTP layer registers routes from these, and /openapi.json is generated from the same objects.
import type { RuleSet } from '../rules.ts';

/** The merchant's key that signs a request: the payment key, the payout key, or either of them. */
export type SigningKey = 'payment' | 'payout' | 'payment_or_payout';

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
  /** Body parameters: name -> rule string of ../rules.ts. */
  readonly params?: RuleSet;
  /** A request and its answer. */
  readonly example?: { readonly params: Params; readonly result: Result };
}

/** Declares an operation; the type parameters tie its example to its parameter and result types. */
export function operation<Params, Result>(op: Operation<Params, Result>): Operation<Params, Result> {
  return op;
}

/** The parameter type of an operation. */
export type ParamsOf<O> = O extends Operation<infer P, unknown> ? P : never;
/** The result type of an operation. */
export type ResultOf<O> = O extends Operation<unknown, infer R> ? R : never;
