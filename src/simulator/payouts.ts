// The simulator's side of money going out (docs/simulator.md): confirms or fails what the simulated
// driver sent for a payout (or an invoice refund, a blocked-wallet refund, a forced refund). A
// payout that has not been sent yet is sent first, as the worker would.
import type { Ctx } from '../context.ts';
import { isUuid } from '../contracts/rules.ts';
import type { PayoutRow } from '../outgoing/payout-record.ts';
import { sendPayoutNow } from '../outgoing/sender.ts';
import { processNetwork } from '../chain/ingest.ts';
import { nextRev } from '../chain/simulated/driver.ts';
import { SimulatorError } from './payments.ts';

export interface OutgoingResult {
  payout: string;
  txid: string;
  status: string;
}

async function find(ctx: Ctx, ref: string): Promise<PayoutRow> {
  const q = ctx.storage.db.selectFrom('payouts').selectAll();
  const row = isUuid(ref) ? await q.where('id', '=', ref.toLowerCase()).executeTakeFirst() : await q.where('txid', '=', ref).executeTakeFirst();
  if (!row || !ctx.chains.isSimulated(row.network)) throw new SimulatorError('Payout not found', 404);
  return row;
}

async function sent(ctx: Ctx, ref: string): Promise<PayoutRow> {
  let row = await find(ctx, ref);
  if (!row.txid && row.status === 'process') {
    await sendPayoutNow(ctx, row.id);
    row = await find(ctx, row.id);
  }
  if (!row.txid) throw new SimulatorError(row.is_final ? `The payout is ${row.status}` : `The payout could not be sent: ${row.last_error ?? 'not sent yet'}`);
  return row;
}

async function settle(ctx: Ctx, ref: string, patch: { status: 'mined' | 'failed'; confirmations: number }): Promise<OutgoingResult> {
  const row = await sent(ctx, ref);
  await ctx.storage.write(async (trx) => {
    const tx = await trx
      .selectFrom('sim_transactions')
      .select(['txid', 'idx', 'status'])
      .where('network', '=', row.network)
      .where('txid', '=', row.txid!)
      .where('direction', '=', 'out')
      .executeTakeFirst();
    if (!tx) throw new SimulatorError('Transaction not found on the simulated chain', 404);
    if (tx.status !== 'pending') return;
    await trx
      .updateTable('sim_transactions')
      .set({ ...patch, block_height: patch.status === 'mined' ? 1 : null, rev: await nextRev(trx) })
      .where('network', '=', row.network)
      .where('txid', '=', tx.txid)
      .where('idx', '=', tx.idx)
      .execute();
  });
  await processNetwork(ctx, row.network);
  const now = await find(ctx, row.id);
  return { payout: now.id, txid: now.txid!, status: now.status };
}

/** Mines the payout's transaction with the network's required confirmations: the payout is paid. */
export async function simulateConfirmOutgoing(ctx: Ctx, ref: string): Promise<OutgoingResult> {
  const row = await find(ctx, ref);
  return settle(ctx, ref, { status: 'mined', confirmations: ctx.chains.confirmations(row.network) });
}

/** Fails the payout's transaction on chain: the payout fails and its funds return. */
export async function simulateFailOutgoing(ctx: Ctx, ref: string): Promise<OutgoingResult> {
  return settle(ctx, ref, { status: 'failed', confirmations: 0 });
}
