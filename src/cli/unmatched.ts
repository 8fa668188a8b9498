// `satchel unmatched list|assign|refunded`: payments that arrived at a merchant's receiving account
// but named no invoice (src/unmatched/). Listing is for the operator; assigning and marking
// refunded act for the merchant the payment's account belongs to, audited with the actor `cli`.
// What a payer wrote (the memo) is printed with its control characters made visible: it is text a
// stranger chose, and must not drive the operator's terminal.
import { parseArgs } from 'node:util';
import type { Config } from '../config.ts';
import type { Ctx } from '../context.ts';
import { isUuid } from '../contracts/rules.ts';
import { CLI_ACTOR } from '../custody/audit.ts';
import type { UnmatchedPaymentsTable } from '../db/schema.ts';
import { NotFoundError } from '../errors.ts';
import { isUnmatchedStatus, listUnmatched, unmatchedById } from '../unmatched/list.ts';
import { assignUnmatched, markRefunded, UnmatchedError } from '../unmatched/resolve.ts';
import type { Out } from './api.ts';

export const UNMATCHED_USAGE = `  unmatched list [--network CODE] [--merchant <uuid>] [--status open|assigned|refunded|all]
                                         payments to a receiving account that named no invoice (default: open ones)
  unmatched assign <id> --invoice <uuid> credit an unmatched payment to an invoice of its merchant
  unmatched refunded <id> [--note TEXT]  the merchant returned it itself: close it, crediting nothing`;

const REASONS: Record<string, string> = {
  no_reference: '(no comment)',
  unknown_reference: '(unknown comment)',
  unreadable_reference: '(unreadable comment)',
  bounced: '(bounced)',
};

/** Text a payer chose, safe for a terminal: control and formatting characters shown as `?`. */
export function printable(s: string): string {
  return s.replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, '?');
}

function cut(s: string, n: number): string {
  const chars = [...s];
  return chars.length > n ? `${chars.slice(0, n - 1).join('')}…` : s;
}

/** How long ago, in the largest whole unit: `45s`, `12m`, `3h`, `9d`. */
export function age(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

function memoOrReason(r: UnmatchedPaymentsTable): string {
  return r.memo !== null ? `"${cut(printable(r.memo), 30)}"` : (REASONS[r.reason] ?? r.reason);
}

/** The list as a table with aligned columns. */
export function unmatchedTable(rows: readonly UnmatchedPaymentsTable[], now: number): string {
  const head = ['id', 'network', 'amount', 'from', 'memo or reason', 'txid', 'age', 'status'];
  const body = rows.map((r) => [
    r.id,
    r.network,
    `${r.amount} ${r.currency}`,
    r.from_address === null ? '-' : printable(r.from_address),
    memoOrReason(r),
    printable(r.txid),
    age(now - Number(r.created_at)),
    r.status === 'assigned' && r.invoice_id ? `assigned to ${r.invoice_id}` : r.status,
  ]);
  const widths = head.map((h, i) => Math.max([...h].length, ...body.map((row) => [...row[i]!].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c + ' '.repeat(widths[i]! - [...c].length))).join('  ');
  return [line(head), ...body.map(line)].join('\n');
}

export async function unmatchedCli(action: string | undefined, args: string[], config: Config, out: Out, open: (config: Config) => Promise<Ctx>): Promise<number> {
  if (action !== 'list' && action !== 'assign' && action !== 'refunded') {
    out.error(`Usage:\n${UNMATCHED_USAGE}`);
    return 2;
  }
  let values: { network?: string; merchant?: string; status?: string; invoice?: string; note?: string };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args,
      options: { network: { type: 'string' }, merchant: { type: 'string' }, status: { type: 'string' }, invoice: { type: 'string' }, note: { type: 'string' } },
      allowPositionals: true,
      strict: true,
    }));
  } catch (e) {
    out.error(`unmatched ${action}: ${e instanceof Error ? e.message : String(e)}`);
    return 2;
  }
  if (action === 'list') {
    if (positionals.length > 0) return fail(out, 'unmatched list takes no bare arguments');
    if (values.merchant !== undefined && !isUuid(values.merchant)) return fail(out, `--merchant needs a merchant uuid, not "${values.merchant}"`);
    const status = values.status ?? 'open';
    if (!isUnmatchedStatus(status)) return fail(out, `--status is open, assigned, refunded or all, not "${status}"`);
    const ctx = await open(config);
    try {
      const rows = await listUnmatched(ctx.storage.db, { network: values.network?.trim(), merchantId: values.merchant?.toLowerCase(), status });
      if (rows.length === 0) out.log(status === 'all' ? 'No unmatched payments.' : `No ${status} unmatched payments.`);
      else out.log(unmatchedTable(rows, ctx.now()));
      return 0;
    } finally {
      await close(ctx);
    }
  }
  const id = positionals[0];
  if (positionals.length !== 1 || !id || !isUuid(id)) return fail(out, `unmatched ${action} needs the payment's id (satchel unmatched list shows it)`);
  if (action === 'assign' && (!values.invoice || !isUuid(values.invoice))) return fail(out, 'unmatched assign needs --invoice <uuid>: the invoice to credit');
  const ctx = await open(config);
  try {
    const row = await unmatchedById(ctx.storage.db, id.toLowerCase());
    if (!row) return fail(out, `No unmatched payment ${id}`);
    if (!row.merchant_id) return fail(out, `Payment ${row.id} arrived at ${printable(row.to_address)}, which no merchant's receiving material names: it has no merchant to resolve it for.`);
    if (action === 'assign') {
      const r = await assignUnmatched(ctx, { id: row.id, merchantId: row.merchant_id, invoiceUuid: values.invoice!, actor: CLI_ACTOR });
      out.log(`Payment ${row.id} (${row.amount} ${row.currency} on ${row.network}) is credited to invoice ${r.invoice.id}, now ${r.invoice.status}.`);
      return 0;
    }
    const r = await markRefunded(ctx, { id: row.id, merchantId: row.merchant_id, actor: CLI_ACTOR, note: values.note ?? null });
    out.log(`Payment ${row.id} (${row.amount} ${row.currency} on ${row.network}) is marked refunded${r.resolution_note ? ` (${printable(r.resolution_note)})` : ''}. The gateway moved no funds.`);
    return 0;
  } catch (e) {
    if (e instanceof UnmatchedError || e instanceof NotFoundError) return fail(out, e.message);
    throw e;
  } finally {
    await close(ctx);
  }
}

async function close(ctx: Ctx): Promise<void> {
  await ctx.chains.close();
  await ctx.storage.close();
}

function fail(out: Out, msg: string): number {
  out.error(msg);
  return 2;
}
