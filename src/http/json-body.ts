import type { FastifyRequest } from 'fastify';
import { parameterWithNul, type Input } from './validation.ts';

/** The JSON object of an unsigned request (payer API, simulator); {} for an empty body; null for
 * a body that is not JSON or carries a NUL character. */
export function jsonBody(req: FastifyRequest): Input | null {
  const raw = req.rawBody;
  if (!raw || raw.length === 0) return {};
  try {
    const v = JSON.parse(raw.toString('utf8')) as unknown;
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return {};
    return parameterWithNul(v as Input) === null ? (v as Input) : null;
  } catch {
    return null;
  }
}
