// Table types: Addresses handed out, transfers the chain drivers reported, scan state, the simulated chain.
// Amounts are text (exact decimals); booleans are 0/1 integers; times are integer milliseconds
// since the epoch unless named *_at_s (seconds).

/** The HD seed the database's addresses derive from: one row, id 'hd' (src/chain/seed-record.ts). */
export interface SeedRecordTable {
  id: string;
  /** Hex of the first 8 bytes of a hash of the seed's BIP-32 master public key. */
  fingerprint: string;
  created_at: number;
}

export interface HdCountersTable {
  key: string;
  next_index: number;
}

/** Deposit addresses derived ahead of need (src/chain/allocate.ts). */
export interface AddressPoolTable {
  network: string;
  source: string;
  idx: number;
  address: string;
  path: string;
  qr: string;
}

/** Every address the gateway ever handed out, so none is reused and each can be recovered. */
export interface AddressesTable {
  address: string;
  network: string;
  path: string;
  owner_kind: string;
  owner_id: string;
  created_at: number;
}

export interface ChainTransfersTable {
  network: string;
  txid: string;
  idx: number;
  currency: string;
  address: string;
  from_address: string | null;
  amount: string;
  block_height: number | null;
  block_hash: string | null;
  confirmations: number;
  /** seen | confirmed | dropped */
  status: string;
  owner_kind: string;
  owner_id: string;
  seen_at: number;
  confirmed_at: number | null;
  updated_at: number;
}

export interface ChainCursorsTable {
  network: string;
  cursor: string;
  updated_at: number;
}

export interface ChainScansTable {
  network: string;
  scanned_at: number;
}

/** Networks whose node is judged faulty now (src/chain/node-faults.ts); no row: sane. */
export interface NodeFaultsTable {
  network: string;
  /** Why, in words: what the node answered that no sane node says. */
  reason: string;
  /** When the fault was first seen (ms since the epoch). */
  since: number;
  /** When it was last seen. */
  updated_at: number;
}

export interface SimTransactionsTable {
  network: string;
  txid: string;
  idx: number;
  from_address: string | null;
  to_address: string;
  currency: string;
  amount: string;
  block_height: number | null;
  confirmations: number;
  /** pending | mined | dropped | failed */
  status: string;
  /** in (a payment to us) | out (a payout we sent) */
  direction: string;
  rev: number;
  created_at: number;
}

/** The last thing a driver said about each transaction we sent (so none is lost to a race). */
export interface OutgoingEventsTable {
  network: string;
  txid: string;
  /** confirmed | failed */
  status: string;
  confirmations: number;
  updated_at: number;
}

/** An incoming transfer set aside for the operator (it could not be processed); the scan went on. */
export interface SetAsideTransfersTable {
  network: string;
  txid: string;
  idx: number;
  currency: string;
  address: string;
  /** As the chain reported it, cut to 100 characters. */
  amount: string;
  reason: string;
  created_at: number;
}
