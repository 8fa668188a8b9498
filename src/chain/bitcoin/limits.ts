// The `bitcoin-core` driver's default node limits (`max_head_jump`, `max_response_bytes`): above
// what a node outage adds (Bitcoin's 10 min blocks: a week of them; Dogecoin's 1 min: 17 hours),
// far below what a lying node needs to wedge a scan; and room for a batch of full blocks (verbose
// JSON of a full block is a few times its 4 MB of raw bytes).
import type { NodeLimitDefaults } from '../family.ts';

export const BITCOIN_NODE_LIMITS: NodeLimitDefaults = { maxHeadJump: 1_000, maxResponseBytes: 256 * 2 ** 20 };
