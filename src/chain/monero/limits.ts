// The `monero` driver's default node limits and scan bounds. Monero makes a block about every two
// minutes: 100,000 blocks is more than four months, far beyond what an honest daemon's head grows
// between two polls (an outage adds only what was mined meanwhile). A get_transfers answer holds
// about 1 kB per transfer: 16 MiB is some 15,000 transfers of one merchant's window.
import type { NodeLimitDefaults } from '../family.ts';

export const MONERO_NODE_LIMITS: NodeLimitDefaults = { maxHeadJump: 100_000, maxResponseBytes: 16 * 2 ** 20 };

/** Subaddresses a standard Monero wallet scans ahead of the last one used (its lookahead): an index
 * handed out beyond it would not be found by the merchant's own wallet restored from the keys. */
export const MONERO_SUBADDRESS_LOOKAHEAD = 200;

/** Subaddresses created per create_address call while the view-only wallet catches up. */
export const MONERO_CREATE_BATCH = 64;

/** Transfers read from one merchant's wallet in one poll; more is a faulty answer (the cap above
 * holds anyway). */
export const MONERO_MAX_TRANSFERS = 10_000;

/** Blocks a popped payment may have been re-mined below the window the wallet is asked about. */
export const MONERO_REORG_DEPTH = 100;

/** How long a refresh may take (a wallet catching up after an outage scans every block since). */
export const MONERO_REFRESH_TIMEOUT_MS = 10 * 60_000;

/** How long the wallet RPC child may take to answer after it was started. */
export const MONERO_WALLET_START_MS = 60_000;

/** Transactions asked of the daemon per get_transactions call. */
export const MONERO_TX_BATCH = 100;
