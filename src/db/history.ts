// History pages (invoice and payout lists): date filters in the API's format and keyset cursors
// over (created_at, id), newest first, so pages stay stable while new records arrive.
import type { ExpressionBuilder, SelectQueryBuilder } from 'kysely';
import type { HistoryParams } from '../contracts/merchant-api/invoices.ts';
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

type Keyed = { created_at: number; id: string };
type Table = 'invoices' | 'payouts' | 'recurrences';

/** One page of `base`'s rows, newest first, within the dates and after the cursor of `params`. */
export async function historyPage<T extends Table, R extends Keyed>(
  base: SelectQueryBuilder<DB, T, R>,
  params: HistoryParams,
): Promise<{ rows: R[]; paginate: Page<R>['paginate'] }> {
  const { date_from: from, date_to: to } = params;
  // A cursor that does not decode is no cursor: the first page (the PHP SDK always sends "1").
  const cursor = params.cursor !== null ? decodeCursor(params.cursor) : null;

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
