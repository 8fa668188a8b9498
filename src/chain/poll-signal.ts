// The deadline of the network poll under way, carried by async context rather than through every
// driver call: `Chains.poll` runs the driver inside `pollSignal.run(signal, ...)`, and the node
// clients (evm/rpc.ts, bitcoin/rpc.ts, tron/api.ts) add it to their own request timeout. A call made
// outside a poll (a payout's send, a coverage check) sees no poll signal, so a stalled poll's
// deadline never cuts it short.
import { AsyncLocalStorage } from 'node:async_hooks';

export const pollSignal = new AsyncLocalStorage<AbortSignal>();

/** The signal a node request should obey: its own timeout, and the current poll's deadline if any. */
export function requestSignal(timeoutMs: number): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  const poll = pollSignal.getStore();
  return poll ? AbortSignal.any([timeout, poll]) : timeout;
}
