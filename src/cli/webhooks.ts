// `satchel webhooks list [--invoice <uuid>] [--json]`: what was queued, and every attempt at it.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';

export interface WebhooksListOptions {
  /** Only the webhooks about this invoice (or wallet, or payout) id. */
  invoice?: string;
  json?: boolean;
  /** Most recent first, at most this many (default 100). */
  limit?: number;
  /** The database looked in, named when nothing is found (the operator may be looking in the wrong one). */
  where?: string;
}

export async function webhooksList(db: Kysely<DB>, opts: WebhooksListOptions, out: { log(s: string): void }): Promise<void> {
  let q = db.selectFrom('webhooks').selectAll();
  if (opts.invoice) q = q.where('ref_id', '=', opts.invoice.toLowerCase());
  const hooks = (await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(opts.limit ?? 100).execute()).reverse();
  const ids = hooks.map((h) => h.id);
  const attempts = ids.length
    ? await db.selectFrom('webhook_attempts').selectAll().where('webhook_id', 'in', ids).orderBy('at').orderBy('id').execute()
    : [];
  const byHook = new Map<string, typeof attempts>();
  for (const a of attempts) byHook.set(a.webhook_id, [...(byHook.get(a.webhook_id) ?? []), a]);

  if (opts.json) {
    out.log(
      JSON.stringify(
        hooks.map((h) => ({
          id: h.id,
          kind: h.kind,
          ref_id: h.ref_id,
          url: h.url,
          status: h.status,
          attempts: Number(h.attempts),
          created_at: iso(h.created_at),
          next_attempt_at: h.status === 'pending' ? iso(h.next_attempt_at) : null,
          delivered_at: h.delivered_at === null ? null : iso(h.delivered_at),
          last_status: h.last_status,
          last_error: h.last_error,
          body: h.body,
          attempt_log: (byHook.get(h.id) ?? []).map((a) => ({ at: iso(a.at), http_status: a.http_status, latency_ms: Number(a.latency_ms), error: a.error })),
        })),
        null,
        2,
      ),
    );
    return;
  }
  if (hooks.length === 0) {
    const where = opts.where ? ` in ${opts.where}` : '';
    out.log(opts.invoice ? `No webhooks for ${opts.invoice}${where}.` : `No webhooks${where}.`);
    return;
  }
  for (const h of hooks) {
    const last = h.last_error ?? (h.last_status === null ? '-' : `HTTP ${h.last_status}`);
    const when = h.status === 'pending' ? `  next ${iso(h.next_attempt_at)}` : h.delivered_at !== null ? `  delivered ${iso(h.delivered_at)}` : '';
    out.log(`${h.id}  ${h.kind}  ref ${h.ref_id}  ${h.status}  attempts ${h.attempts}  last: ${last}${when}`);
    out.log(`  url ${h.url}`);
    for (const a of byHook.get(h.id) ?? []) {
      const result = a.error ?? `HTTP ${a.http_status}`;
      out.log(`    ${iso(a.at)}  ${a.http_status ?? '---'}  ${a.latency_ms} ms  ${result}`);
    }
  }
}

function iso(ms: number): string {
  return new Date(Number(ms)).toISOString();
}
