// A body that passed its operation's checks, turned into the typed parameters its feature takes:
// the one place the merchant API's parameters are validated and coerced.
import { ValidationError } from '../../errors.ts';
import { courseSourceName, isMissing, toBoolean, validationErrors, type Input } from '../rules.ts';
import type { Operation, ParseEnv } from './operation.ts';

/** Validates `input` with the operation's checks (ValidationError) and returns its parameters. */
export function parseParams<Params, Result, Body>(op: Operation<Params, Result, Body>, input: Input, env: ParseEnv): Params {
  const errors = op.check ? op.check(input, env) : validationErrors(input, op.params);
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return op.parse(input as Body, env);
}

/** A parameter's text, or null when not given (absent, null and "" all mean that). */
export function text(v: unknown): string | null {
  return isMissing(v) ? null : String(v);
}

/** A currency or network code in capitals, or null when not given. */
export function code(v: unknown): string | null {
  return text(v)?.toUpperCase() ?? null;
}

/** A uuid in lower case (as stored), or null when not given. */
export function lowerUuid(v: unknown): string | null {
  return text(v)?.toLowerCase() ?? null;
}

/** A decimal amount's text without surrounding spaces, or null when not given. */
export function decimalText(v: unknown): string | null {
  return text(v)?.trim() ?? null;
}

/** An integer parameter, or `fallback` when not given. */
export function integer<F extends number | null>(v: unknown, fallback: F): number | F {
  return isMissing(v) ? fallback : Number(v);
}

/** A boolean parameter (`1`, `"true"`, ... as clients send them), or `fallback` when not given. */
export function flag(v: unknown, fallback: boolean): boolean {
  return toBoolean(v, fallback);
}

/** The rate source a `course_source` names, or null when not given. */
export function courseSource(v: unknown): string | null {
  const t = text(v);
  return t ? courseSourceName(t) : null;
}

/** A record named by its uuid (in lower case) or by the merchant's order_id: exactly one of them. */
export type RecordRef = { uuid: string; order_id: null } | { uuid: null; order_id: string };

/**
 * The uuid or the order_id of a body whose rules require one of them; `wins` says which one the
 * operation reads when both are given.
 */
export function recordRef(body: { uuid?: unknown; order_id?: unknown }, wins: 'uuid' | 'order_id'): RecordRef {
  const uuid = lowerUuid(body.uuid);
  const orderId = text(body.order_id);
  if (orderId !== null && (wins === 'order_id' || uuid === null)) return { uuid: null, order_id: orderId };
  return { uuid: uuid!, order_id: null };
}
