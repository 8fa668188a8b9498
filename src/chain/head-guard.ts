// Judges the head a node reports against the last head this process accepted from it. A node that
// jumps far ahead for a moment, or falls far behind, would otherwise make the scanner read blocks
// that are not the chain (and save a cursor past the real head, where it waits forever for the
// chain to catch up) or walk back beyond what it can undo. Such a head is refused as a
// FaultyNodeError: nothing is scanned or saved, and the next sane head is taken as if nothing had
// happened. One guard per driver, in memory: after a restart the first head is taken as it comes
// (the chain is legitimately far ahead after downtime); the stored cursor still bounds how far
// behind it may be (src/chain/reorg.ts, src/chain/bitcoin/scan.ts).
import { FaultyNodeError } from './errors.ts';

export class HeadGuard {
  private last: number | null = null;

  constructor(
    /** Blocks the head may grow between two accepted heads. */
    private readonly maxJump: number,
    /** Blocks the head may fall back (a reorganisation the scanner can undo). */
    private readonly reorgDepth: number,
  ) {}

  /**
   * The head, when it is a plausible successor of the last one a completed poll used; a
   * FaultyNodeError otherwise. Call commit() once the poll that used it completed: a head whose
   * poll failed (a made-up head the node has no blocks for) must not become the reference.
   */
  check(method: string, head: number): number {
    const last = this.last;
    if (last !== null && head > last + this.maxJump) {
      throw new FaultyNodeError(method, `the head jumped from ${last} to ${head}, more than max_head_jump (${this.maxJump}) blocks`);
    }
    if (last !== null && head < last - this.reorgDepth) {
      throw new FaultyNodeError(method, `the head went back from ${last} to ${head}, deeper than a reorganisation the scan can undo (${this.reorgDepth} blocks)`);
    }
    return head;
  }

  /** A poll with this head completed. */
  commit(head: number): void {
    this.last = head;
  }
}

/**
 * A stored cursor ahead of the node's head by more than the scan can undo: the node lost its chain
 * (resyncing) or serves another one. Refused, so that the cursor, which is what was really scanned,
 * stays where it is until the node is back.
 */
export function checkBehindCursor(method: string, head: number, cursor: number, reorgDepth: number): void {
  if (head < cursor - reorgDepth) {
    throw new FaultyNodeError(method, `the head ${head} is behind the scanned block ${cursor} by more than ${reorgDepth} blocks`);
  }
}
