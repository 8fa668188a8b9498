// The one interface every chain driver implements (BTCPay-style payment handlers). The invoice,
// wallet and payout logic talks only to this and never knows which driver it has.
import type { NetworkDef, Priority } from '../registry/index.ts';

/** A transfer into one of our addresses, as the chain currently shows it. */
export interface IncomingTransfer {
  network: string;
  /** Registry currency code (native coin or a known token of the network). */
  currency: string;
  txid: string;
  /** Output index (UTXO chains) or log index (EVM tokens); 0 for native account transfers. */
  index: number;
  from: string | null;
  to: string;
  /** Decimal string in currency units (never base units, never a JS number). */
  amount: string;
  /** Null while only in the mempool. */
  blockHeight: number | null;
  blockHash: string | null;
  confirmations: number;
}

export interface ChainSink {
  /** A transfer to a watched address was seen, or its confirmations changed. Idempotent. */
  transfer(t: IncomingTransfer): Promise<void>;
  /** A transfer disappeared (dropped from the mempool, reverted, reorganised away). Idempotent. */
  dropped(network: string, txid: string, index: number): Promise<void>;
  /** What became of a transaction we sent (payout, refund, sweep). Idempotent. */
  outgoing(network: string, txid: string, status: 'confirmed' | 'failed', confirmations: number): Promise<void>;
  /** One of our transactions was replaced by another paying the same (a fee bump): the payment's txid follows it. */
  outgoingReplaced?(network: string, oldTxid: string, newTxid: string): Promise<void>;
}

export interface SendRequest {
  /** Idempotency key (payout id): sending the same id twice must never pay twice. */
  id: string;
  network: string;
  currency: string;
  to: string;
  amount: string;
  priority: Priority;
  memo?: string | null;
}

export interface ChainDriver {
  readonly kind: string;
  readonly network: NetworkDef;
  /** Follow an address (in memory; the set is rebuilt from the database on start). */
  watch(address: string): void;
  /** Process what is new on the chain since the last call and deliver it to the sink. */
  poll(sink: ChainSink): Promise<void>;
  /** Broadcast a payment from the hot wallet; idempotent on `req.id`. */
  send(req: SendRequest): Promise<{ txid: string }>;
  close(): Promise<void>;
}
