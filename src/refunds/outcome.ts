// An invoice refund that finished: refund_process -> refund_paid | refund_fail, with its webhook.
import type { Transaction } from 'kysely';
import type { Ctx, OutgoingOutcome } from '../context.ts';
import type { DB, InvoicesTable as InvoiceRow } from '../db/schema.ts';
import type { PayoutRow } from '../outgoing/payout-record.ts';

async function settle(ctx: Ctx, trx: Transaction<DB>, row: PayoutRow): Promise<void> {
  if (!row.ref_id || (row.status !== 'paid' && row.status !== 'fail')) return;
  const inv = await ctx.storage.forUpdate(trx.selectFrom('invoices').selectAll().where('id', '=', row.ref_id)).executeTakeFirst();
  if (!inv || inv.status !== 'refund_process') return;
  const patch: Partial<InvoiceRow> = {
    status: row.status === 'paid' ? 'refund_paid' : 'refund_fail',
    updated_at: ctx.now(),
    version: inv.version + 1,
  };
  await trx.updateTable('invoices').set(patch).where('id', '=', inv.id).execute();
  await ctx.features.invoices.enqueueWebhook(ctx, trx, { ...inv, ...patch });
}

export const refundOutcome: OutgoingOutcome = {
  // The invoice is locked before the balance, as payments and refund requests lock them.
  async lock(ctx, trx, row) {
    if (row.ref_id) await ctx.storage.forUpdate(trx.selectFrom('invoices').select('id').where('id', '=', row.ref_id)).execute();
  },
  settle,
};
