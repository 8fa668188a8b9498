// The `tron` driver's default node limits (`max_head_jump`, `max_response_bytes`): above what a
// node outage of some hours adds (3 s blocks: 17 hours of them), far below what a lying node needs
// to wedge a scan; and well above the size of a real block.
import type { NodeLimitDefaults } from '../family.ts';

export const TRON_NODE_LIMITS: NodeLimitDefaults = { maxHeadJump: 20_000, maxResponseBytes: 64 * 2 ** 20 };
