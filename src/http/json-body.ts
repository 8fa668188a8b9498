import type { FastifyRequest } from 'fastify';
import type { Input } from './validation.ts';

/** The JSON object of an unsigned request (payer API, simulator); {} for an empty body. */
export function jsonBody(req: FastifyRequest): Input | null {
  const raw = req.rawBody;
  if (!raw || raw.length === 0) return {};
  try {
    const v = JSON.parse(raw.toString('utf8')) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Input) : {};
  } catch {
    return null;
  }
}
