// Request bodies as JSON objects. JSON.parse itself is iterative, but anything that walks the result
// recursively (a NUL check, a serializer, a log line) can overflow the stack on a few KB of
// `[[[[...`, so nesting is limited here, once, by an iterative walk, before any handler sees it.
import type { FastifyRequest } from 'fastify';
import { parameterWithNul, type Input } from '../contracts/rules.ts';

/** Deepest nesting a request may have; the deepest real parameter (`currencies[i].network`) needs 3. */
export const MAX_JSON_DEPTH = 16;

/** Values visited by the depth walk since the process started (the bad-input tests budget work by it). */
export const jsonWork = { steps: 0 };

export type BodyResult =
  | { ok: true; input: Input }
  | { ok: false; reason: 'malformed' | 'too-deep' }
  | { ok: false; reason: 'nul' | 'prototype'; field: string };

/** Keys that mean something to JavaScript objects rather than to the API. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** True when `v` nests deeper than `max` arrays/objects; visits each value once, without recursion. */
export function nestsDeeperThan(v: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[v, 0]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    jsonWork.steps++;
    if (value === null || typeof value !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(value) ? value : Object.values(value)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
      else jsonWork.steps++;
    }
  }
  return false;
}

/** The first key at any depth that names a prototype slot, with the top-level parameter holding it. */
function prototypeKey(input: Input): string | null {
  for (const [top, v] of Object.entries(input)) {
    if (PROTOTYPE_KEYS.has(top)) return top;
    const stack: unknown[] = [v];
    while (stack.length > 0) {
      const value = stack.pop();
      if (value === null || typeof value !== 'object') continue;
      if (!Array.isArray(value) && Object.keys(value).some((k) => PROTOTYPE_KEYS.has(k))) return top;
      stack.push(...(Array.isArray(value) ? value : Object.values(value)));
    }
  }
  return null;
}

/**
 * Parses a request body: empty, `{}`, `[]` and any non-object JSON mean "no parameters", as clients
 * send them. Refuses malformed JSON, nesting deeper than MAX_JSON_DEPTH, NUL characters (no
 * database stores one in text) and prototype keys anywhere.
 */
export function parseJsonBody(raw: Buffer | string): BodyResult {
  const text = typeof raw === 'string' ? raw : raw.toString('utf8');
  if (text.trim() === '') return { ok: true, input: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (nestsDeeperThan(parsed, MAX_JSON_DEPTH)) return { ok: false, reason: 'too-deep' };
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return { ok: true, input: {} };
  const input = parsed as Input;
  const nul = parameterWithNul(input);
  if (nul !== null) return { ok: false, reason: 'nul', field: nul };
  const proto = prototypeKey(input);
  if (proto !== null) return { ok: false, reason: 'prototype', field: proto };
  return { ok: true, input };
}

/** The JSON object of an unsigned request (payer API, simulator), or null for a body it refuses. */
export function jsonBody(req: FastifyRequest): Input | null {
  const r = parseJsonBody(req.rawBody ?? '');
  return r.ok ? r.input : null;
}
