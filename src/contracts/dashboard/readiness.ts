// Settings' view of the gateway itself: each network as the gateway sees it now, and, for an
// instance admin, the readiness checks of `satchel doctor`.
import * as z from 'zod/mini';
import { get } from './route.ts';

export const NetworkRow = z.object({
  network: z.string(),
  driver: z.string(),
  mode: z.enum(['live', 'test']),
  custody: z.enum(['hot', 'watch-only', 'simulated']),
  node_reachable: z.nullable(z.boolean()),
  confirmations: z.number(),
  chain: z.nullable(z.string()),
  head_height: z.nullable(z.number()),
  offered: z.boolean(),
  reason: z.nullable(z.enum(['disabled', 'simulated in live mode', 'node not answering'])),
});

export const Finding = z.object({
  status: z.enum(['OK', 'WARN', 'FAIL', 'SKIP']),
  /** What was checked and what was found, as codes (./readiness-text.ts): the dashboard words a
   * finding from them and `params` in the user's language, and shows the English below for a code
   * it does not know. */
  check: z.string(),
  code: z.string(),
  params: z.record(z.string(), z.union([z.string(), z.number()])),
  name: z.string(),
  detail: z.string(),
  /** What to do about a WARN or FAIL. */
  fix: z.optional(z.string()),
});
export type Finding = z.infer<typeof Finding>;

export const readinessApi = {
  networks: get('/networks', z.array(NetworkRow)),
  doctor: get('/doctor', z.array(Finding)),
} as const;
