// Plugs money going out and static wallets into the hooks of the layers below them. The gateway
// calls this once at startup; calling it again changes nothing.
import { ownerHandlers } from '../chain/ingest.ts';
import { simulatorHooks } from '../chain/simulated/hooks.ts';
import { payerHooks } from '../invoices/payer-hooks.ts';
import { extraJobs, type Job } from '../worker/index.ts';
import { walletAddress, walletView } from '../wallets/payer.ts';
import { onWalletTransfer } from '../wallets/topups.ts';
import { applyPendingEvents, onOutgoingEvent, onOutgoingReplaced } from './outgoing.ts';
import { sendDuePayouts } from './worker.ts';

/** The worker job: send the payouts (and refunds) that are due; apply chain reports that a race left behind. */
export const payoutJob: Job = async (ctx, signal) => {
  await applyPendingEvents(ctx);
  return sendDuePayouts(ctx, 25, signal);
};

export function installMoneyOut(): void {
  ownerHandlers.wallet = onWalletTransfer;
  ownerHandlers.outgoing = onOutgoingEvent;
  ownerHandlers.outgoingReplaced = onOutgoingReplaced;
  simulatorHooks.walletAddress = walletAddress;
  payerHooks.walletView = async (ctx, uuid) => (await walletView(ctx, uuid)) as Record<string, unknown> | null;
  if (!extraJobs.includes(payoutJob)) extraJobs.push(payoutJob);
}
