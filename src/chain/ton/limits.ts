// The `ton` driver's default node limits (`max_head_jump`, `max_response_bytes`). The head is the
// masterchain seqno (a block about every 5 s): 20,000 is more than a day of blocks, what an outage
// adds, and far below what a lying node needs to make a payment look settled. A page of 100
// transactions with their BOCs is well under a megabyte; 16 MiB leaves room for big bodies.
import type { NodeLimitDefaults } from '../family.ts';

export const TON_NODE_LIMITS: NodeLimitDefaults = { maxHeadJump: 20_000, maxResponseBytes: 16 * 2 ** 20 };

/** Transactions asked for per getTransactions call (toncenter's most). */
export const TON_PAGE = 100;

/** Pages read per merchant wallet in one poll (a walk longer than that continues at the next). */
export const TON_PAGES_PER_POLL = 20;
