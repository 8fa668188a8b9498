// Settings → Receiving: what the merchant's payments are received into on each watch-only network
// (src/custody/), and the owner's change of it, which asks the owner's password again in the same
// request: a stolen session alone cannot redirect the merchant's payments.
import * as z from 'zod/mini';
import { get, post, text } from './route.ts';

export const ReceivingNetwork = z.object({
  network: z.string(),
  mode: z.enum(['hot', 'watch-only']),
  /** What the network takes, in English words (the CLI's; the dashboard says it in the user's
   * language from `inputs`); null when it cannot receive watch-only. */
  accepts: z.nullable(z.string()),
  inputs: z.array(z.enum(['xpub', 'descriptor', 'address', 'viewKey'])),
  current: z.nullable(
    z.object({
      kind: z.string(),
      summary: z.string(),
      set_at: z.number(),
      set_by: z.string(),
      derived: z.number(),
    }),
  ),
  /** Whether payers are offered the network for this merchant. */
  offered: z.boolean(),
});
export type ReceivingNetwork = z.infer<typeof ReceivingNetwork>;

export const Receiving = z.object({
  networks: z.array(ReceivingNetwork),
  /** Real networks the operator runs in hot custody: the gateway's seed can spend what they receive. */
  hot_networks: z.array(z.string()),
});
export type Receiving = z.infer<typeof Receiving>;

/**
 * Valid input worth a second look, as a code the dashboard words in the user's language:
 * `contract_address` (params address, network): the cold address is a contract, which may not take
 * every coin; `hot_custody` (params network): the network runs in hot custody, so the material waits
 * until the operator turns watch-only on.
 */
export const CUSTODY_WARNINGS = ['contract_address', 'hot_custody'] as const;
export const CustodyWarning = z.object({ code: z.string(), params: z.record(z.string(), z.string()) });
export type CustodyWarning = z.infer<typeof CustodyWarning>;

export const ReceivingChange = z.object({
  outcome: z.enum(['set', 'replaced', 'unchanged']),
  network: z.string(),
  summary: z.string(),
  old: z.nullable(z.string()),
  /** The warnings in English (the CLI's), joined; `warnings` says each as a code. */
  warning: z.nullable(z.string()),
  warnings: z.array(CustodyWarning),
  /** Where the custody_changed webhook was queued; null: the merchant has no default callback URL. */
  webhook_url: z.nullable(z.string()),
});
export type ReceivingChange = z.infer<typeof ReceivingChange>;

export const custodyApi = {
  receiving: get('/receiving', Receiving),
  /** One of xpub, descriptor or address, as the network takes (with `view_key`, the wallet's private
   * view key, where the network takes one beside the address); `password`: the owner's, again. */
  setReceiving: post('/receiving', 'manage', z.object({ network: text, xpub: text, descriptor: text, address: text, view_key: text, password: text }), ReceivingChange),
} as const;
