// How faulty chain nodes show to an operator: in /readyz (each faulty network with the reason, and
// the gateway not ready only when every network on a real node is faulty: the API, the payer page
// and the other networks still work while one node lies, and an orchestrator that took the gateway
// out of rotation for one network's node would stop all of them) and in /metrics
// (`satchel_chain_node_faulty{network}`, 1 or 0 for every network on a real node, to alert on).
import type { Ctx } from '../context.ts';

export interface NodeFaultReport {
  /** Faulty networks: why, and since when (ms since the epoch). */
  faulty: Record<string, { reason: string; since: number }>;
  /** Every network on a real node is faulty (and there is at least one). */
  all: boolean;
  /** The networks on a real node, each with 1 (faulty) or 0. */
  samples: Array<{ network: string; faulty: 0 | 1 }>;
}

export async function nodeFaultReport(ctx: Ctx): Promise<NodeFaultReport> {
  const faults = await ctx.chains.nodeFaults();
  const byNetwork = new Map(faults.map((f) => [f.network, f]));
  const real = ctx.registry.networks.map((n) => n.code).filter((code) => !ctx.chains.isSimulated(code));
  const samples = real.map((network) => ({ network, faulty: byNetwork.has(network) ? (1 as const) : (0 as const) }));
  return {
    faulty: Object.fromEntries(faults.map((f) => [f.network, { reason: f.reason, since: f.since }])),
    all: real.length > 0 && samples.every((s) => s.faulty === 1),
    samples,
  };
}
