// What a request handler or a worker is given: the configuration, the services built from it and
// the features' parts, all put together once by src/compose.ts. Types only, and no feature is
// imported here, so that every layer may name `Ctx` while only the composition root knows the parts.
import type { Transaction } from 'kysely';
import type { Config } from './config.ts';
import type { Storage } from './db/dialect.ts';
import type { DB, InvoicesTable, PayoutsTable } from './db/schema.ts';
import type { Registry } from './registry/index.ts';
import type { Merchant, MerchantCache } from './merchants/store.ts';
import type { Chains } from './chain/networks.ts';
import type { UnmatchedTransfer } from './chain/contract.ts';
import type { Quote, SourceStat } from './rates/service.ts';
import type { PaymentWebhook } from './contracts/merchant-api/webhooks.ts';
import type { Mailer } from './mail/index.ts';
import type { CreateInvoiceParams } from './contracts/merchant-api/invoices.ts';
import type { Invoice } from './contracts/merchant-api/objects.ts';
import type { PayerCurrencyOption } from './contracts/payer.ts';

export interface Rates {
  /** Price of one `base` in `quote`, the source that priced it and the quotes it was made from. */
  quote(base: string, quote: string, source?: string | null): Promise<Quote>;
  /** Each enabled source's freshness, errors and deviation (for /metrics). */
  sourceStats(): SourceStat[];
}

/** One transfer as recorded in `chain_transfers`. */
export interface TransferRef {
  network: string;
  txid: string;
  idx: number;
}

/**
 * What happens when the chain shows money moving for an owner of ours. The deposit handlers run
 * inside the transaction that recorded the transfer (the credit and its webhook row commit with it).
 */
export interface OwnerHandlers {
  /** A transfer to an invoice's address was seen, confirmed or dropped. */
  invoice(ctx: Ctx, trx: Transaction<DB>, invoiceId: string, transfer: TransferRef): Promise<void>;
  /** A transfer to a static wallet's address was seen, confirmed or dropped. */
  wallet(ctx: Ctx, trx: Transaction<DB>, walletId: string, transfer: TransferRef): Promise<void>;
  /** One of our outgoing transactions (payouts, refunds) confirmed or failed on chain. */
  payout(ctx: Ctx, network: string, txid: string, status: 'confirmed' | 'failed', confirmations: number): Promise<void>;
  /** One of our outgoing transactions was replaced by a fee bump and now goes by `newTxid`. */
  payoutReplaced(ctx: Ctx, network: string, oldTxid: string, newTxid: string): Promise<void>;
  /** A settled payment to a receiving account that names no deposit: recorded, credited to nothing. */
  unmatched(ctx: Ctx, transfer: UnmatchedTransfer): Promise<void>;
}

/** What an outgoing payment is for. Only `payout` rows are the merchant's payouts (API, webhooks). */
export type OutgoingKind = 'payout' | 'refund' | 'wallet_refund' | 'force_refund';

/** What finishing an outgoing payment of one kind means beyond the payout row itself. */
export interface OutgoingOutcome {
  /** Row locks the outcome will take, taken before the ledger's (an invoice before a balance), so
   * settling never deadlocks with payments and refund requests. */
  lock(ctx: Ctx, trx: Transaction<DB>, row: PayoutsTable): Promise<void>;
  /** The effect of the final status (`paid` or `fail`) on what the payment was for. */
  settle(ctx: Ctx, trx: Transaction<DB>, row: PayoutsTable): Promise<void>;
}

/** A periodic job. `signal` aborts when the process is shutting down: start nothing new, hand back
 * (release the lease of) what was claimed but not begun, finish what is under way. */
export type Job = (ctx: Ctx, signal: AbortSignal) => Promise<unknown>;

/** The features' periodic work, beside the chain scan and webhook delivery the worker runs itself. */
export interface FeatureJobs {
  /** Move open invoices whose time is up. */
  expiry: Job;
  /** Send the payouts (and refunds) that are due. */
  payouts: Job;
  /** Move recurring payments: a paid period, a renewal due, a grace period over. */
  recurrences: Job;
}

/** A currency and network the payer of an invoice may still choose. */
export interface PayerChoice {
  currency: string;
  network: string;
  /** "USDT on TRON (TRC-20)". */
  label: string;
}

/** What the invoices do for the other features (refunds, the simulator). */
export interface InvoiceActions {
  /** Brings an invoice's status up to date with its transfers and its time; the row after. */
  reconcile(ctx: Ctx, trx: Transaction<DB>, invoiceId: string): Promise<InvoicesTable | null>;
  /** Queues the invoice's webhook for the row as it stands, in the caller's transaction. */
  enqueueWebhook(ctx: Ctx, trx: Transaction<DB>, inv: InvoicesTable): Promise<void>;
  /** What the payer of an invoice may choose from (empty once chosen). */
  payerChoices(ctx: Ctx, uuid: string): Promise<PayerChoice[]>;
  /** What the payer of a recurrence may choose from, listed and priced as the invoice chooser does. */
  payerOptions(ctx: Ctx, merchantId: string, price: { amount: string; currency: string }, fixed: { currency: string | null }): Promise<{ list: PayerCurrencyOption[]; test: boolean }>;
  /** The payer's choice of currency and network, as the payment page makes it. */
  choose(ctx: Ctx, uuid: string, currency: string, network: string): Promise<InvoicesTable>;
  /** Creates an invoice as POST /v1/payment does (or returns the one with its order_id); `link`
   * makes it the invoice of one period of a recurrence (at most one per period). */
  create(ctx: Ctx, merchant: Merchant, params: CreateInvoiceParams, link: { recurrenceId: string; period: number } | null): Promise<{ invoice: Invoice; created: boolean }>;
}

/** What the static wallets do for the other features (the test webhooks). */
export interface WalletActions {
  /** The fields (without `sign`) of a test `wallet` webhook about the merchant's wallet a test
   * names (uuid first, else order_id), or null if there is none. */
  testWebhookFields(ctx: Ctx, merchantId: string, target: { uuid?: string | null; order_id?: string | null }): Promise<PaymentWebhook | null>;
}

/** The features as the layers below them, and the other features, call them: built once by the
 * composition root, so that no feature imports another. */
export interface Features {
  owners: OwnerHandlers;
  outcomes: Record<OutgoingKind, OutgoingOutcome>;
  jobs: FeatureJobs;
  invoices: InvoiceActions;
  wallets: WalletActions;
}

export interface Ctx {
  config: Config;
  storage: Storage;
  registry: Registry;
  rates: Rates;
  merchants: MerchantCache;
  /** The networks' drivers, test mode and confirmations. */
  chains: Chains;
  features: Features;
  /** Milliseconds since the epoch; tests move it. */
  now: () => number;
  seed: () => Uint8Array;
  /** Outgoing email through the operator's SMTP server; `configured` false: nothing is sent. */
  mail: Mailer;
}
