// The `evm` driver's default node limits (`max_head_jump`, `max_response_bytes`): above what a
// node outage of some hours adds (ETH's ~12 s blocks: a week of them; Arbitrum's 0.25 s: 3.5
// hours), far below what a lying node needs to wedge a scan; and well above the size of a real
// block or log range.
import type { NodeLimitDefaults } from '../family.ts';

export const EVM_NODE_LIMITS: NodeLimitDefaults = { maxHeadJump: 50_000, maxResponseBytes: 64 * 2 ** 20 };
