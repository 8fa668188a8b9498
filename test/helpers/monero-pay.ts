// Helpers of the Monero payout tests on top of the rig (./monero-rig.ts): a float wallet funded
// from the rig's payer, and a sink that keeps what the payout path reports.
import type { ChainSink } from '../../src/chain/contract.ts';
import type { MoneroRig, WalletRpc } from './monero-rig.ts';

/**
 * A full wallet in its own monero-wallet-rpc, holding one output of each of `amounts` (piconero)
 * paid by the rig's payer in one transaction, unlocked (10 blocks mined on top) and refreshed.
 */
export async function fundedFloat(rig: MoneroRig, name: string, amounts: readonly bigint[]): Promise<WalletRpc> {
  const w = await rig.startWalletRpc();
  await w.rpc('create_wallet', { filename: name, password: '', language: 'English' });
  const { address } = await w.rpc<{ address: string }>('get_address', { account_index: 0 });
  await rig.payMany(amounts.map((amountAtomic) => ({ address, amountAtomic })));
  await rig.mine(11);
  await w.rpc('refresh', {});
  return w;
}

/** Keeps every `outgoing` report of the payout path. */
export class OutgoingSink implements ChainSink {
  readonly outgoings: Array<{ txid: string; status: 'confirmed' | 'failed'; confirmations: number }> = [];
  async transfer(): Promise<void> {}
  async dropped(): Promise<void> {}
  async outgoing(_network: string, txid: string, status: 'confirmed' | 'failed', confirmations: number): Promise<void> {
    this.outgoings.push({ txid, status, confirmations });
  }
  last(txid: string): { status: string; confirmations: number } | undefined {
    const o = this.outgoings.filter((x) => x.txid === txid).at(-1);
    return o && { status: o.status, confirmations: o.confirmations };
  }
}
