// Resolving an unmatched payment (./record.ts): the merchant assigns it to one of its invoices, which
// is then credited exactly as if the payment had been made to the invoice's deposit address (the same
// sink as every payment: statuses, webhooks and the ledger behave as for any other), or says it
// returned the money itself. Nothing moves on chain here: on a watch-only network the gateway holds
// no key of the merchant's wallet.
import type { Ctx } from '../context.ts';
import type { DB, UnmatchedPaymentsTable } from '../db/schema.ts';
import type { Transaction } from 'kysely';
import { BusinessError, NotFoundError } from '../errors.ts';
import { createSink } from '../chain/ingest.ts';
import { writeAudit, type AuditActor } from '../custody/audit.ts';

export const UNMATCHED_ASSIGN_ACTION = 'unmatched_assign';
export const UNMATCHED_REFUNDED_ACTION = 'unmatched_refunded';

/** Notes longer than this are cut: a txid or a sentence, not a document. */
const NOTE_MAX = 500;

/** A resolution that cannot be made; the message is for the merchant and says nothing changed. */
export class UnmatchedError extends BusinessError {
  constructor(
    readonly problem: 'already_resolved' | 'unknown_invoice' | 'wrong_network' | 'wrong_currency' | 'final_invoice' | 'no_deposit' | 'already_recorded' | 'not_credited',
    message: string,
  ) {
    super(message, problem);
    this.name = 'UnmatchedError';
  }
}

export interface AssignRequest {
  id: string;
  merchantId: string;
  invoiceUuid: string;
  actor: AuditActor;
}

export interface AssignResult {
  payment: UnmatchedPaymentsTable;
  invoice: { id: string; status: string; is_final: boolean };
}

/** How long a claim may wait for its credit before an assign to the same invoice may finish it: a
 * process that died between the two left it, and no assign still under way takes this long. */
const STALE_CLAIM_MS = 60_000;

async function lockPayment(ctx: Ctx, trx: Transaction<DB>, id: string, merchantId: string, resume?: (row: UnmatchedPaymentsTable) => Promise<boolean>): Promise<UnmatchedPaymentsTable> {
  const row = await ctx.storage.forUpdate(trx.selectFrom('unmatched_payments').selectAll().where('id', '=', id)).executeTakeFirst();
  // Another merchant's payment reads as no payment at all: ids are not a way to learn of others'.
  if (!row || row.merchant_id !== merchantId) throw new NotFoundError(`No unmatched payment ${id} of this merchant`);
  if (row.status !== 'open' && !(resume && (await resume(row)))) {
    throw new UnmatchedError(
      'already_resolved',
      row.status === 'assigned' ? `Payment ${id} was already assigned to invoice ${row.invoice_id}: nothing was changed.` : `Payment ${id} was already marked refunded: nothing was changed.`,
    );
  }
  return row;
}

/**
 * Credits the payment to the invoice. Claimed first (open → assigned, under the row's lock, so a
 * second or concurrent assign is refused), then fed to the sink, which credits in its own
 * transaction and is idempotent on the payment's (network, txid, index): a race credits once. If the
 * credit fails, the claim is undone and the payment is open again; if the process dies between the
 * two, assigning it to the same invoice again a minute later finishes the credit.
 */
export async function assignUnmatched(ctx: Ctx, req: AssignRequest): Promise<AssignResult> {
  const invoiceId = req.invoiceUuid.trim().toLowerCase();
  const { payment, deposit } = await ctx.storage.write(async (trx) => {
    const recorded = async (p: UnmatchedPaymentsTable) =>
      (await trx.selectFrom('chain_transfers').select('owner_id').where('network', '=', p.network).where('txid', '=', p.txid).where('idx', '=', p.idx).executeTakeFirst()) !== undefined;
    // A claim for this same invoice whose credit never happened (the process died in between) is
    // finished by assigning again.
    const stale = async (p: UnmatchedPaymentsTable) =>
      p.status === 'assigned' && p.invoice_id === invoiceId && Number(p.resolved_at ?? 0) <= ctx.now() - STALE_CLAIM_MS && !(await recorded(p));
    const p = await lockPayment(ctx, trx, req.id, req.merchantId, stale);
    const resuming = p.status === 'assigned';
    const inv = await trx.selectFrom('invoices').select(['id', 'merchant_id', 'network', 'payer_currency', 'status', 'is_final']).where('id', '=', invoiceId).executeTakeFirst();
    if (!inv || inv.merchant_id !== req.merchantId) throw new UnmatchedError('unknown_invoice', `No invoice ${req.invoiceUuid} of this merchant: nothing was changed.`);
    if (inv.network !== p.network) {
      throw new UnmatchedError('wrong_network', `Invoice ${inv.id} is paid on ${inv.network ?? 'a network its payer has not chosen yet'}, this payment arrived on ${p.network}: nothing was changed.`);
    }
    if (inv.payer_currency !== p.currency) {
      throw new UnmatchedError('wrong_currency', `Invoice ${inv.id} is paid in ${inv.payer_currency ?? 'a currency its payer has not chosen yet'}, this payment is ${p.currency}: nothing was changed.`);
    }
    if (Number(inv.is_final) === 1) throw new UnmatchedError('final_invoice', `Invoice ${inv.id} is final (${inv.status}) and takes no more payments: nothing was changed.`);
    const address = await trx
      .selectFrom('addresses')
      .select('address')
      .where('owner_kind', '=', 'invoice')
      .where('owner_id', '=', inv.id)
      .where('network', '=', p.network)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!address) throw new UnmatchedError('no_deposit', `Invoice ${inv.id} has no deposit on ${p.network} to credit: nothing was changed.`);
    if (await recorded(p)) throw new UnmatchedError('already_recorded', `The transaction ${p.txid} is already recorded as a payment: nothing was changed.`);
    if (resuming) return { payment: p, deposit: address.address };
    const now = ctx.now();
    await trx
      .updateTable('unmatched_payments')
      .set({ status: 'assigned', invoice_id: inv.id, resolved_by: req.actor.email, resolved_at: now })
      .where('id', '=', p.id)
      .where('status', '=', 'open')
      .execute();
    await writeAudit(trx, req.actor, { merchantId: req.merchantId, action: UNMATCHED_ASSIGN_ACTION, target: p.id, detail: { invoice: inv.id, network: p.network, currency: p.currency, amount: p.amount, txid: p.txid } }, now);
    return { payment: p, deposit: address.address };
  });
  const credited = async () =>
    (await ctx.storage.db.selectFrom('chain_transfers').select('owner_id').where('network', '=', payment.network).where('txid', '=', payment.txid).where('idx', '=', payment.idx).executeTakeFirst())?.owner_id === invoiceId;
  try {
    await createSink(ctx).transfer({
      network: payment.network,
      currency: payment.currency,
      txid: payment.txid,
      index: payment.idx,
      from: payment.from_address,
      to: deposit,
      amount: payment.amount,
      blockHeight: payment.block_height === null ? null : Number(payment.block_height),
      blockHash: null,
      // Drivers report only settled payments as unmatched, and none will report this one again
      // under the deposit: it is credited as final.
      confirmations: Math.max(payment.confirmations, ctx.chains.confirmations(payment.network)),
    });
    if (!(await credited())) throw new UnmatchedError('not_credited', `Payment ${payment.id} could not be credited to invoice ${invoiceId}: it is open again.`);
  } catch (err) {
    if (!(await credited())) await reopen(ctx, payment, req.actor, err);
    throw err;
  }
  const inv = await ctx.storage.db.selectFrom('invoices').select(['id', 'status', 'is_final']).where('id', '=', invoiceId).executeTakeFirstOrThrow();
  const after = await ctx.storage.db.selectFrom('unmatched_payments').selectAll().where('id', '=', payment.id).executeTakeFirstOrThrow();
  return { payment: after, invoice: { id: inv.id, status: inv.status, is_final: Number(inv.is_final) === 1 } };
}

/** Undoes a claim whose credit failed, so the payment can be assigned again. */
async function reopen(ctx: Ctx, p: UnmatchedPaymentsTable, actor: AuditActor, err: unknown): Promise<void> {
  await ctx.storage.write(async (trx) => {
    await trx.updateTable('unmatched_payments').set({ status: 'open', invoice_id: null, resolved_by: null, resolved_at: null }).where('id', '=', p.id).where('status', '=', 'assigned').execute();
    await writeAudit(trx, actor, { merchantId: p.merchant_id, action: 'unmatched_reopened', target: p.id, detail: { error: err instanceof Error ? err.message.slice(0, 200) : 'unknown' } }, ctx.now());
  });
}

export interface RefundedRequest {
  id: string;
  merchantId: string;
  actor: AuditActor;
  /** What the merchant says: the txid it returned the money with, or a note. */
  note?: string | null;
}

/** The merchant says it returned the payment itself; no funds move and nothing is credited. */
export async function markRefunded(ctx: Ctx, req: RefundedRequest): Promise<UnmatchedPaymentsTable> {
  const note = typeof req.note === 'string' && req.note.trim() !== '' ? [...req.note.trim()].slice(0, NOTE_MAX).join('') : null;
  return ctx.storage.write(async (trx) => {
    const p = await lockPayment(ctx, trx, req.id, req.merchantId);
    const now = ctx.now();
    await trx.updateTable('unmatched_payments').set({ status: 'refunded', resolved_by: req.actor.email, resolved_at: now, resolution_note: note }).where('id', '=', p.id).execute();
    await writeAudit(trx, req.actor, { merchantId: req.merchantId, action: UNMATCHED_REFUNDED_ACTION, target: p.id, detail: { network: p.network, currency: p.currency, amount: p.amount, txid: p.txid, note } }, now);
    return { ...p, status: 'refunded', resolved_by: req.actor.email, resolved_at: now, resolution_note: note };
  });
}
