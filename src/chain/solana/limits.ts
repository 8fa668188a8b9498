// The `solana` driver's default node limits and scan budget. The head is the slot (about 2.5 a
// second): 200,000 slots is more than half a day, what an outage adds, and far beyond anything an
// honest node jumps between two polls. A page of 1,000 signatures is about 200 kB and a
// transaction under 100 kB as JSON; 16 MiB leaves room for a batch of them.
import type { NodeLimitDefaults } from '../family.ts';

export const SOLANA_NODE_LIMITS: NodeLimitDefaults = { maxHeadJump: 200_000, maxResponseBytes: 16 * 2 ** 20 };

/** Signatures asked for per getSignaturesForAddress call (the node's most is 1,000). */
export const SOLANA_PAGE = 1000;

/** Pages read per watched account in one poll (a longer walk continues at the next). */
export const SOLANA_PAGES_PER_POLL = 5;

/** getTransaction calls per JSON-RPC batch (one HTTP request). */
export const SOLANA_TX_BATCH = 50;

/** Signatures per getSignatureStatuses call (the node's most). */
export const SOLANA_STATUS_BATCH = 256;

/** Slots a confirmed payment may stay unknown to the node before it is taken as dropped (a minority fork). */
export const SOLANA_DROP_AFTER_SLOTS = 600;
