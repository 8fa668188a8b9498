// History pages (invoice and payout lists): date filters in the API's format and keyset cursors
// over (created_at, id), newest first, so pages stay stable while new records arrive.
import type { ExpressionBuilder, SelectQueryBuilder } from 'kysely';
import { ValidationError } from '../errors.ts';
import { HISTORY_DATE_RULE, isMissing, validate, type Input } from '../contracts/rules.ts';
import type { DB } from './schema.ts';

export const PER_PAGE = 15;

export interface Page<T> {
  items: T[];
  paginate: { count: number; hasPages: boolean; nextCursor: string | null; previousCursor: string | null; perPage: number };
}

interface Cursor {
  d: 'n' | 'p';
  t: number;
  i: string;
}

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify(c)).toString('base64url');
}

function decodeCursor(s: string): Cursor | null {
  try {
    const c = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as Cursor;
    if ((c.d === 'n' || c.d === 'p') && Number.isSafeInteger(c.t) && typeof c.i === 'string' && !c.i.includes('\u0000')) return c;
  } catch {
    /* falls through */
  }
  return null;
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2}) (\d{1,2}):(\d{2}):(\d{2})$/;

/** 'YYYY-MM-DD H:mm:ss' read at UTC+3 (the API's timezone), to epoch milliseconds; null if not a real time. */
export function parseListDate(s: string): number | null {
  const m = DATE_RE.exec(s);
  if (!m) return null;
  const [y, mo, d, h, mi, se] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || se > 59) return null;
  const ms = Date.UTC(y, mo - 1, d, h, mi, se);
  if (new Date(ms).getUTCDate() !== d) return null;
  return ms - 3 * 3600_000;
}

type Keyed = { created_at: number; id: string };
type Table = 'invoices' | 'payouts';

/**
 * Validates the history parameters (dates; the cursor from the query string or, as some clients
 * send it, the body) and returns one page of `base`'s rows, newest first.
 */
export async function historyPage<T extends Table, R extends Keyed>(
  base: SelectQueryBuilder<DB, T, R>,
  input: Input,
  query: Record<string, unknown>,
): Promise<{ rows: R[]; paginate: Page<R>['paginate'] }> {
  validate(input, { date_from: HISTORY_DATE_RULE, date_to: HISTORY_DATE_RULE });
  const errors: Record<string, string[]> = {};
  const from = isMissing(input.date_from) ? null : parseListDate(String(input.date_from));
  const to = isMissing(input.date_to) ? null : parseListDate(String(input.date_to));
  if (!isMissing(input.date_from) && from === null) errors.date_from = ['validation.regex'];
  if (!isMissing(input.date_to) && to === null) errors.date_to = ['validation.regex'];
  const cursorText = !isMissing(query.cursor) ? query.cursor : input.cursor;
  // A cursor that does not decode is no cursor: the first page (the PHP SDK always sends "1").
  const cursor = typeof cursorText === 'string' ? decodeCursor(cursorText) : null;
  if (Object.keys(errors).length) throw new ValidationError(errors);

  // Both tables have created_at and id; Kysely cannot see that through the generic, hence the casts.
  let q = base as unknown as SelectQueryBuilder<DB, 'invoices', R>;
  if (from !== null) q = q.where('created_at', '>=', from);
  if (to !== null) q = q.where('created_at', '<=', to + 999);
  const backwards = cursor?.d === 'p';
  if (cursor) {
    const op = backwards ? '>' : '<';
    q = q.where((eb: ExpressionBuilder<DB, 'invoices'>) =>
      eb.or([eb('created_at', op, cursor.t), eb.and([eb('created_at', '=', cursor.t), eb('id', op, cursor.i)])]),
    );
  }
  const dir = backwards ? 'asc' : 'desc';
  const rows = await q.orderBy('created_at', dir).orderBy('id', dir).limit(PER_PAGE + 1).execute();
  const more = rows.length > PER_PAGE;
  const page = rows.slice(0, PER_PAGE);
  if (backwards) page.reverse();
  const first = page[0];
  const last = page[page.length - 1];
  const hasNext = backwards ? page.length > 0 : more;
  const hasPrev = backwards ? more : cursor !== null && page.length > 0;
  const nextCursor = hasNext && last ? encodeCursor({ d: 'n', t: Number(last.created_at), i: last.id }) : null;
  const previousCursor = hasPrev && first ? encodeCursor({ d: 'p', t: Number(first.created_at), i: first.id }) : null;
  return {
    rows: page,
    paginate: { count: page.length, hasPages: nextCursor !== null || previousCursor !== null, nextCursor, previousCursor, perPage: PER_PAGE },
  };
}
