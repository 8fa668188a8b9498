// What a `solana` driver reported, as the gateway's sink would record it (the last word per transfer).
import type { ChainSink, IncomingTransfer, UnmatchedTransfer } from '../../../src/chain/contract.ts';

export class RecordingSink implements ChainSink {
  readonly transfers = new Map<string, IncomingTransfer>();
  readonly calls: IncomingTransfer[] = [];
  readonly unmatchedList: UnmatchedTransfer[] = [];
  readonly droppedList: string[] = [];
  async transfer(t: IncomingTransfer) {
    this.calls.push(t);
    this.transfers.set(`${t.txid}:${t.index}`, t);
  }
  async unmatched(t: UnmatchedTransfer) {
    this.unmatchedList.push(t);
  }
  async dropped(_n: string, txid: string, index: number) {
    this.droppedList.push(`${txid}:${index}`);
  }
  async outgoing() {}
  credited(): IncomingTransfer[] {
    return [...this.transfers.values()];
  }
}

