// The one interface every chain driver implements (BTCPay-style payment handlers). The invoice,
// wallet and payout logic talks only to this and never knows which driver it has. A family plugs in
// with factories of this shape, given in its ChainFamily (./family.ts), and throws the classes of
// ./errors.ts.
import type { NetworkConfig } from '../config.ts';
import type { Storage } from '../db/dialect.ts';
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

/** A payment to one of the gateway's receiving accounts that names no deposit of it (a payment
 * without the comment that identifies an invoice, say). Recorded for the merchant to resolve; never
 * credited on its own. */
export interface UnmatchedTransfer {
  network: string;
  currency: string;
  txid: string;
  /** 0 unless a transaction carries several. */
  index: number;
  from: string | null;
  /** The receiving account, in the form the family's custody material stores it. */
  to: string;
  /** Decimal string in currency units. */
  amount: string;
  /** What the payment carried instead of a known reference (a comment), when readable text. */
  memo: string | null;
  reason: 'no_reference' | 'unknown_reference' | 'unreadable_reference' | 'bounced';
  blockHeight: number | null;
  confirmations: number;
}

export interface ChainSink {
  /** A transfer to a watched address was seen, or its confirmations changed. Idempotent. */
  transfer(t: IncomingTransfer): Promise<void>;
  /**
   * Several transfers at once, with the effect of `transfer` called for each in order, recorded in
   * one database transaction (one durable commit for all of them). Optional: a driver that reads
   * many transfers per round uses it when present.
   */
  transferBatch?(list: readonly IncomingTransfer[]): Promise<void>;
  /** A transfer disappeared (dropped from the mempool, reverted, reorganised away). Idempotent. */
  dropped(network: string, txid: string, index: number): Promise<void>;
  /** What became of a transaction we sent (payout, refund, sweep). Idempotent. */
  outgoing(network: string, txid: string, status: 'confirmed' | 'failed', confirmations: number): Promise<void>;
  /** One of our transactions was replaced by another paying the same (a fee bump): the payment's txid follows it. */
  outgoingReplaced?(network: string, oldTxid: string, newTxid: string): Promise<void>;
  /** A settled payment that names no deposit (./contract.ts UnmatchedTransfer). Idempotent on (network, txid, index). */
  unmatched?(t: UnmatchedTransfer): Promise<void>;
}

/** A payment out of the hot wallet, before it has an id. */
export interface PaymentRequest {
  network: string;
  currency: string;
  to: string;
  amount: string;
  priority: Priority;
  memo?: string | null;
}

export interface SendRequest extends PaymentRequest {
  /** Idempotency key (payout id): sending the same id twice must never pay twice. */
  id: string;
}

/** A deposit address the gateway handed out, and the HD path its key derives from. */
export interface WatchedAddress {
  address: string;
  path: string;
}

/** Whether the hot wallet can pay a payment now; when not, what it lacks, in words for the merchant. */
export type Coverage = { covered: true } | { covered: false; currency: string; message: string };

/** The account payouts leave from (the hot wallet, or a watch-only network's float) and what it holds. */
export interface PayoutWallet {
  address: string;
  /** Decimal strings by currency code: the native coin and every configured token. */
  balances: Record<string, string>;
}

/**
 * Pulls from a payer's allowance (automatic renewals, docs/recurring.md): the payer approved the
 * network's collector as spender of a token; each period the gateway moves exactly one period's
 * amount with `transferFrom(payer, deposit address, amount)`. Only that call is ever signed.
 */
export interface AllowancePuller {
  /** The spender a payer approves (the hot wallet or payout float), or null: nothing to pull with. */
  collector(): string | null;
  /** The token contract of `currency` on this network, or null for the native coin or an unknown code. */
  tokenContract(currency: string): string | null;
  /** allowance(owner, collector) and balanceOf(owner) of `currency`, decimal strings, at the latest block. */
  allowanceOf(currency: string, owner: string): Promise<{ allowance: string; balance: string }>;
  /**
   * Signs and stores (never broadcasts) `transferFrom(from, to, amount)`; idempotent on `id`: asked
   * again, answers the stored transaction, never a second signature. Throws ./errors.ts classes.
   */
  preparePull(req: { id: string; currency: string; from: string; to: string; amount: string }): Promise<{ txid: string }>;
  /** Broadcasts the stored pull (again: "already known" counts as sent); `refused`: the node will never take it. */
  broadcastPull(id: string): Promise<'sent' | 'refused'>;
  /** What became of the stored pull: `pending` until final, `unknown` when none is stored. */
  pullStatus(id: string): Promise<'pending' | 'confirmed' | 'failed' | 'unknown'>;
  /** The hash of the pull's stored transaction (signed, whatever became of it), or null when none is stored. Reads the database only. */
  storedPull(id: string): Promise<string | null>;
  /** The address whose key signed `message` (EIP-191 personal_sign) as `signature`, or null when it is not a valid signature. */
  messageSigner(message: string, signature: string): Promise<string | null>;
  /**
   * The token's EIP-712 domain when it has EIP-2612 permit, else null; asked of the chain once and
   * kept. Throws a ChainError when the node cannot be asked (nothing is kept then).
   */
  permitDomain?(currency: string): Promise<PermitDomain | null>;
  /**
   * Whether `address` is a contract (a smart-contract wallet) that accepts `signature` for
   * `message` by EIP-1271 (`isValidSignature(EIP-191 hash of message, signature)` answers the magic
   * value) at the latest block. False for an address without code. Throws a ChainError when the node
   * cannot be asked.
   */
  contractSigned?(address: string, message: string, signature: string): Promise<boolean>;
  /**
   * Checks the owner's permit(owner, collector, value, deadline) signature against the token's
   * current nonce, then signs, stores and broadcasts permit() from the collector (which pays the
   * gas); idempotent on the signature. A permit the token would refuse throws SendRejectedError
   * before anything is stored.
   */
  submitPermit?(req: { currency: string; owner: string; value: string; deadline: bigint; signature: string }): Promise<{ txid: string }>;
}

/** An EIP-712 domain, as a wallet's eth_signTypedData_v4 takes it. */
export interface PermitDomain {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: string;
}

export interface ChainDriver {
  readonly kind: string;
  readonly network: NetworkDef;
  /**
   * True when the driver reports only transfers to the addresses it was given through `watch`
   * (a real node); false when it reports every transfer and the sink resolves ownership (the
   * simulated chain), so the gateway need not read the address set for it.
   */
  readonly watchesAddresses: boolean;
  /** Adds deposit addresses to follow (in memory; the gateway gives the whole set again on start). */
  watch(addresses: readonly WatchedAddress[]): void;
  /**
   * Process what is new on the chain since the last call and deliver it to the sink. `signal`
   * aborts when the round ran past its deadline or the process shuts down: a driver may stop early
   * (its cursor as after any sink call); the next round does not start until this one has ended.
   */
  poll(sink: ChainSink, signal?: AbortSignal): Promise<void>;
  /**
   * Whether the hot wallet can pay this now (the amount, and the fee in the native coin). Called
   * before a payout or refund is accepted, so nothing is debited for a payment that cannot go out.
   * Throws NodeUnreachableError (or NodeError) when it cannot tell.
   */
  canCover(req: PaymentRequest): Promise<Coverage>;
  /**
   * What this payment costs on top of the network's fee table because of where it goes, in the
   * network's native coin (a decimal string; "0" when nothing): on Solana, the rent of the
   * recipient's token account when the payment must create it; on Monero, what the float wallet's
   * own fee for the payment at `req.priority` exceeds the fee table by. Priced into the payout's commission
   * (src/pricing/payout-quote.ts). Optional: a driver without it adds nothing. Throws
   * SendRejectedError for a destination that can never be paid, ChainError when the node cannot tell.
   */
  destinationFee?(req: PaymentRequest): Promise<string>;
  /** Broadcast a payment from the hot wallet; idempotent on `req.id`. Throws ./errors.ts classes. */
  send(req: SendRequest): Promise<{ txid: string }>;
  /**
   * The account payouts leave from and its balances, asked of the node (the float's metrics and the
   * dashboard); null when the network has none (watch-only without a float). Optional: a driver
   * without it shows no balance. Throws NodeError when the node cannot be asked.
   */
  payoutWallet?(): Promise<PayoutWallet | null>;
  /** Allowance pulls for automatic renewals (EVM networks); absent where a family has none. */
  readonly allowances?: AllowancePuller;
  /**
   * Asks the node who it is and where its head is (the start table, /readyz, `satchel doctor`).
   * Throws NodeUnreachableError or NodeError when the node does not answer sanely. A read-only
   * question: it must not wait for a poll under way, nor change what poll reads.
   */
  status(): Promise<NodeStatus>;
  close(): Promise<void>;
}

/** What a network's node says about itself. */
export interface NodeStatus {
  /**
   * The chain the node serves, in the family's own terms: an EVM chain id as a decimal string,
   * a Bitcoin-family chain name (`main`, `test`, `regtest`), TRON's genesis block id; null when
   * the family has none (the simulated chain).
   */
  chain: string | null;
  /** The node's newest block height. */
  head: number;
  /** When that block was made (ms since the epoch), when the node says. */
  headTime: number | null;
}

/** What a driver is built from: the network, the operator's settings for it and the gateway's storage. */
export interface DriverDeps {
  network: NetworkDef;
  /** The operator's settings for this network (config file `networks.CODE`). */
  settings: NetworkConfig;
  /** Confirmations after which a transfer is final (the settings' override or the registry's). */
  confirmations: number;
  storage: Storage;
  now: () => number;
  /** The BIP-39 seed, derived on first use. */
  seed: () => Uint8Array;
  log: ChainLog;
  /** Which of these addresses the gateway handed out on this network, each with its HD path. */
  depositPaths: DepositPaths;
  /** A transaction id in the network's family's shape, from 64 hex digits (what a simulated chain makes up). */
  txid?: (hex: string) => string;
  /** The gateway's data directory, for a driver that keeps files of its own (Monero's view-only wallets). */
  dataDir?: string;
}

/**
 * The HD path of every given address that is a deposit address of the network; an address that is
 * not one is absent from the map. A driver asks this instead of reading the gateway's tables.
 */
export type DepositPaths = (addresses: readonly string[]) => Promise<Map<string, string>>;

/**
 * What an operator must act on, raised by a driver as the `alarm` of a log line: logged at error
 * level with the `alarm` field and counted per network in `satchel_chain_alarms_total`.
 * - `foreign_spend`: a coin (or a nonce) of the gateway was spent by a transaction it did not sign:
 *   the hot wallet's key is used elsewhere.
 * - `node_mismatch`: the node built or reported a transaction other than the one asked for.
 */
export type ChainAlarm = 'foreign_spend' | 'node_mismatch';

/** A driver's log line. The gateway adds the network to every line; `data.alarm` raises an alarm. */
export type ChainLog = (level: 'info' | 'warn' | 'error', msg: string, data?: Record<string, unknown> & { alarm?: ChainAlarm }) => void;

/** Builds the driver of one network; one factory per chain family, by the `driver` setting's name. */
export type DriverFactory = (deps: DriverDeps) => ChainDriver;

/** The drivers a gateway knows, by name (every family's, ./family.ts). `simulated` is the default and always present. */
export type DriverFactories = { readonly simulated: DriverFactory } & { readonly [kind: string]: DriverFactory };
