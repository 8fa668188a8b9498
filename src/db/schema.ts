// The database as Kysely sees it: every table of the gateway, by name. The row types live by area
// in ./tables/; amounts are text (exact decimals); booleans are 0/1 integers on both databases;
// times are integer milliseconds since the epoch unless named *_at_s (seconds).
import type { Generated } from 'kysely';
import type { MerchantsTable, MerchantProfilesTable, OrderIdsTable, MerchantWalletsTable, MerchantCustodyTable } from './tables/merchants.ts';
export type { MerchantsTable, MerchantProfilesTable, OrderIdsTable, MerchantWalletsTable, MerchantCustodyTable } from './tables/merchants.ts';
import type { SeedRecordTable, HdCountersTable, AddressPoolTable, AddressesTable, ChainTransfersTable, ChainCursorsTable, ChainScansTable, NodeFaultsTable, SimTransactionsTable, OutgoingEventsTable, SetAsideTransfersTable } from './tables/chain.ts';
export type { SeedRecordTable, HdCountersTable, AddressPoolTable, AddressesTable, ChainTransfersTable, ChainCursorsTable, ChainScansTable, NodeFaultsTable, SimTransactionsTable, OutgoingEventsTable, SetAsideTransfersTable } from './tables/chain.ts';
import type { ScanCursorsTable, ScanBlocksTable, ScanTransfersTable, ScanOutgoingTable } from './tables/scan.ts';
export type { ScanCursorsTable, ScanBlocksTable, ScanTransfersTable, ScanOutgoingTable } from './tables/scan.ts';
import type { ChainIncidentsTable } from './tables/incidents.ts';
export type { ChainIncidentsTable } from './tables/incidents.ts';
import type { InvoicesTable, StaticWalletsTable, WalletTopupsTable } from './tables/payments.ts';
export type { InvoicesTable, StaticWalletsTable, WalletTopupsTable } from './tables/payments.ts';
import type { BalancesTable, LedgerEntriesTable, PayoutsTable } from './tables/money.ts';
export type { BalancesTable, LedgerEntriesTable, PayoutsTable } from './tables/money.ts';
import type { WebhooksTable, WebhookAttemptsTable } from './tables/webhooks.ts';
export type { WebhooksTable, WebhookAttemptsTable } from './tables/webhooks.ts';
import type { DashboardUsersTable, DashboardLinksTable, DashboardSessionsTable, DashboardLoginThrottleTable, DashboardAuditTable } from './tables/dashboard.ts';
export type { DashboardUsersTable, DashboardLinksTable, DashboardSessionsTable, DashboardLoginThrottleTable, DashboardAuditTable } from './tables/dashboard.ts';
import type { RecurrencesTable, RecurrenceEmailsTable } from './tables/recurrences.ts';
export type { RecurrencesTable, RecurrenceEmailsTable } from './tables/recurrences.ts';
import type { RecurrenceAllowancesTable, RecurrencePullsTable } from './tables/recurrence-allowances.ts';
export type { RecurrenceAllowancesTable, RecurrencePullsTable } from './tables/recurrence-allowances.ts';

export interface DB {
  merchants: MerchantsTable;
  merchant_custody: MerchantCustodyTable;
  merchant_profiles: MerchantProfilesTable;
  hd_counters: HdCountersTable;
  seed_record: SeedRecordTable;
  invoices: InvoicesTable;
  addresses: AddressesTable;
  address_pool: AddressPoolTable;
  chain_transfers: ChainTransfersTable;
  chain_cursors: ChainCursorsTable;
  chain_scans: ChainScansTable;
  chain_incidents: ChainIncidentsTable;
  node_faults: NodeFaultsTable;
  scan_cursors: ScanCursorsTable;
  scan_blocks: ScanBlocksTable;
  scan_transfers: ScanTransfersTable;
  scan_outgoing: ScanOutgoingTable;
  order_ids: OrderIdsTable;
  sim_transactions: SimTransactionsTable;
  balances: BalancesTable;
  ledger_entries: LedgerEntriesTable;
  webhooks: WebhooksTable;
  webhook_attempts: WebhookAttemptsTable;
  payouts: PayoutsTable;
  static_wallets: StaticWalletsTable;
  wallet_topups: WalletTopupsTable;
  merchant_wallets: MerchantWalletsTable;
  outgoing_events: OutgoingEventsTable;
  set_aside_transfers: SetAsideTransfersTable;
  dashboard_users: DashboardUsersTable;
  dashboard_links: DashboardLinksTable;
  dashboard_sessions: DashboardSessionsTable;
  dashboard_login_throttle: DashboardLoginThrottleTable;
  dashboard_audit: DashboardAuditTable;
  unmatched_payments: UnmatchedPaymentsTable;
  recurrences: RecurrencesTable;
  recurrence_emails: RecurrenceEmailsTable;
  recurrence_allowances: RecurrenceAllowancesTable;
  recurrence_pulls: RecurrencePullsTable;
}

/** A payment to a receiving account that named no deposit (migration 023, src/unmatched/). */
export interface UnmatchedPaymentsTable {
  id: string;
  /** Null: no merchant's receiving material names `to_address`. */
  merchant_id: string | null;
  network: string;
  currency: string;
  txid: string;
  idx: number;
  from_address: string | null;
  to_address: string;
  /** Decimal string in currency units. */
  amount: string;
  /** Readable text the payment carried instead of a known reference. */
  memo: string | null;
  /** no_reference | unknown_reference | unreadable_reference | bounced */
  reason: string;
  block_height: number | null;
  confirmations: number;
  /** open | assigned | refunded */
  status: string;
  /** The invoice it was assigned to. */
  invoice_id: string | null;
  /** Who resolved it: `cli`, or the dashboard user's email. */
  resolved_by: string | null;
  resolved_at: number | null;
  /** What the merchant said when marking it refunded (a txid, a note). */
  resolution_note: string | null;
  created_at: number;
}

export type { Generated };
