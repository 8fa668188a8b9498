// The float's node (SolanaPayoutNode) answered straight from LiteSVM, for the payout tests that run
// before and beside the JSON-RPC double: every balance, account and execution is the runtime's.
// Block height is modelled here (LiteSVM keeps none): a blockhash given out at height h is valid
// through h + 150, as on a real cluster, and a transaction whose blockhash is past that is refused
// as a node refuses it. Faults a test can switch on: a broadcast the network loses, a node that
// refuses the broadcast, statuses only `processed`.
import { FailedTransactionMetadata, type LiteSVM } from 'litesvm';
import { getTransactionDecoder, type Address, type Signature } from '@solana/kit';
import { base58 } from '@scure/base';
import { NodeError } from '../../../src/chain/errors.ts';
import type { SignatureStatus, SolanaAccount, SolanaPayoutNode } from '../../../src/chain/solana/payment.ts';
import { requiredSignatures, splitTransaction } from '../../../src/chain/solana/tx.ts';

export const VALID_BLOCKS = 150;
const LAMPORTS_PER_SIGNATURE = 5000n;

export class SvmPayoutNode implements SolanaPayoutNode {
  height = 1000;
  /** Blockhash → the last block height it is valid at. */
  private readonly valid = new Map<string, number>();
  /** Broadcasts the network loses (the node says nothing, nothing executes). */
  loseBroadcasts = false;
  refuseBroadcasts = false;
  onlyProcessed = false;
  readonly sent: string[] = [];
  readonly calls: string[] = [];

  constructor(readonly svm: LiteSVM) {}

  /** Moves past every blockhash given so far: LiteSVM gets a new one; old transactions can never land. */
  expire(): void {
    this.height += VALID_BLOCKS + 1;
    this.svm.expireBlockhash();
  }

  async latestBlockhash() {
    this.calls.push('getLatestBlockhash');
    const blockhash = this.svm.latestBlockhash();
    if (!this.valid.has(blockhash)) this.valid.set(blockhash, this.height + VALID_BLOCKS);
    return { blockhash, lastValidBlockHeight: this.valid.get(blockhash)! };
  }

  async blockHeight() {
    this.calls.push('getBlockHeight');
    return this.height;
  }

  private blockhashOf(message: Uint8Array): string {
    const n = message[3]!;
    // header (3) + compact-u16 count (1 byte below 128 accounts) + keys.
    return base58.encode(message.subarray(4 + 32 * n, 4 + 32 * n + 32));
  }

  async feeForMessage(message: Uint8Array) {
    this.calls.push('getFeeForMessage');
    const until = this.valid.get(this.blockhashOf(message));
    if (until === undefined || this.height > until) return null;
    return LAMPORTS_PER_SIGNATURE * BigInt(requiredSignatures(message));
  }

  async sendTransaction(wire: Uint8Array) {
    this.calls.push('sendTransaction');
    if (this.refuseBroadcasts) throw new NodeError('sendTransaction', -32005, 'Node is behind');
    const { message, signature } = splitTransaction(wire);
    const until = this.valid.get(this.blockhashOf(message));
    if (until === undefined || this.height > until) throw new NodeError('sendTransaction', -32002, 'Transaction simulation failed: Blockhash not found');
    if (this.loseBroadcasts) return;
    if (this.svm.getTransaction(signature as Signature)) throw new NodeError('sendTransaction', -32002, 'Transaction simulation failed: This transaction has already been processed');
    this.sent.push(signature);
    this.svm.sendTransaction(getTransactionDecoder().decode(wire));
  }

  async signatureStatuses(signatures: readonly string[]): Promise<(SignatureStatus | null)[]> {
    this.calls.push('getSignatureStatuses');
    return signatures.map((s) => {
      const meta = this.svm.getTransaction(s as Signature);
      if (!meta) return null;
      const err = meta instanceof FailedTransactionMetadata ? String(meta.err()) : null;
      return { slot: 1, confirmations: this.onlyProcessed ? 0 : null, err, confirmationStatus: this.onlyProcessed ? 'processed' : 'finalized' };
    });
  }

  async accountInfo(address: string): Promise<SolanaAccount | null> {
    this.calls.push('getAccountInfo');
    const acc = this.svm.getAccount(address as Address);
    if (!acc.exists) return null;
    return { lamports: BigInt(acc.lamports), owner: acc.programAddress, executable: acc.executable, data: new Uint8Array(acc.data) };
  }

  async rentExemption(size: number) {
    this.calls.push('getMinimumBalanceForRentExemption');
    return this.svm.minimumBalanceForRentExemption(BigInt(size));
  }
}
