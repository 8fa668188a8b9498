// Row types of the scan tables every chain family shares (created by
// src/db/migrations/021_scan_tables.ts), each keyed by network: how far a network has been
// scanned, the hashes of its recent blocks, the transfers into watched addresses reported to the
// gateway, and every transaction a driver signed. A column only some families need is nullable;
// heights and nonces are integers (bigint columns, parsed to number), amounts are decimal text.

/** How far a network has been scanned. */
export interface ScanCursorsTable {
  network: string;
  /** Last fully processed block (-1: nothing yet). */
  block_number: number;
  block_hash: string | null;
  /** The node's height when the scan last succeeded, for families that record it (lag = node_height - block_number). */
  node_height: number | null;
  updated_at: number;
}

/** Hashes of recently processed blocks, to notice a reorganisation and find the fork point. */
export interface ScanBlocksTable {
  network: string;
  number: number;
  hash: string;
  /** Null for a family that finds the fork point from the hashes alone. */
  parent_hash: string | null;
}

/** Transfers into watched addresses (account-model families), as last reported to the gateway. */
export interface ScanTransfersTable {
  network: string;
  txid: string;
  /** 0 for a native transfer; the token transfer's log position otherwise. */
  idx: number;
  currency: string;
  to_address: string;
  from_address: string | null;
  amount: string;
  block_number: number;
  block_hash: string;
  /** Confirmations last reported (0: not reported yet). */
  confirmations: number;
  /** pending (confirmations still rising) | confirmed (final) | orphaned (its block left the chain) | dropped */
  status: string;
  /** 1 once a sweep found nothing left to move from `to_address` after this transfer. */
  swept: number;
  created_at: number;
  updated_at: number;
}

/**
 * Every transaction a driver signed, stored before it is broadcast so that it can be broadcast
 * again. A request (payout id, or a movement's id) has one row per attempt: a family that never
 * signs a request twice keeps attempt 0.
 */
export interface ScanOutgoingTable {
  id: string;
  network: string;
  /** Idempotency key: the payout id, or the id of the movement the transaction carries out. */
  request_id: string;
  /** 0 for the first transaction of the request, n for the n-th replacement. */
  attempt: number;
  /** payout, or the family's own kinds of movement (gas, sweep, activate, ...). */
  kind: string;
  /** The sending account; null when the transaction spends coins of several addresses. */
  from_address: string | null;
  to_address: string;
  /** Null when the family pays only its native coin. */
  currency: string | null;
  amount: string;
  txid: string;
  /** The signed transaction (hex), exactly as broadcast. */
  raw: string;
  /** signed (not yet taken by the node) | sent | mined | confirmed | failed, and the family's own (replaced, expired) */
  status: string;
  block_number: number | null;
  /** Confirmations last reported to the gateway. */
  confirmations: number;
  error: string | null;
  broadcast_at: number | null;
  /** The node's height when the transaction was first broadcast, for a family that counts blocks from it. */
  broadcast_height: number | null;
  /** The account nonce, for a family that has one ((network, from_address, nonce) is unique). */
  nonce: number | null;
  /** When the transaction can no longer be included in a block (ms), for a family whose transactions expire. */
  expiration: number | null;
  /** Anything else the family keeps about the transaction, as JSON text (amounts in it as decimal strings). */
  data: string | null;
  created_at: number;
  updated_at: number;
}
