// The filter the dashboard's lists read from their query string: status, currency, network and a
// search term, each refused with a clear message when it cannot be used. A list adds its own fields
// (the invoices' dates) after these.
import { UserInputError } from './errors.ts';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CODE = /^[A-Za-z0-9_-]{1,20}$/;

export interface ListFilter {
  status: string | null;
  currency: string | null;
  network: string | null;
  q: string | null;
}

/** Non-empty strings only; anything else in the query string reads as no value. */
function queryText(query: Record<string, unknown>, k: string): string | null {
  return typeof query[k] === 'string' && query[k] !== '' ? (query[k] as string) : null;
}

/** `statuses`: the ones this list knows; currency and network codes come back upper case. */
export function parseListFilter(query: Record<string, unknown>, statuses: readonly string[]): ListFilter {
  const status = queryText(query, 'status');
  if (status && !statuses.includes(status)) throw new UserInputError('Unknown status.', 'unknown_status', { status });
  const currency = queryText(query, 'currency');
  if (currency && !CODE.test(currency)) throw new UserInputError('Unknown currency.', 'unknown_currency', { currency });
  const network = queryText(query, 'network');
  if (network && !CODE.test(network)) throw new UserInputError('Unknown network.', 'unknown_network', { network });
  const q = queryText(query, 'q')?.trim() ?? null;
  if (q && (q.length > 200 || q.includes('\u0000'))) throw new UserInputError('The search is too long.', 'search_too_long');
  return { status, currency: currency?.toUpperCase() ?? null, network: network?.toUpperCase() ?? null, q: q || null };
}
