// Unmatched payments: payments that arrived at the merchant's own receiving account but named no
// invoice (src/unmatched/). Listed for every signed-in user; assigning one to an invoice and marking
// one refunded are for those who may change the merchant (owners and admins).
import * as z from 'zod/mini';
import { decimal, get, post, text } from './route.ts';

export const UnmatchedPayment = z.object({
  id: z.string(),
  network: z.string(),
  currency: z.string(),
  amount: decimal,
  from: z.nullable(z.string()),
  to: z.string(),
  /** The payer's text, when readable: shown as text, never trusted. */
  memo: z.nullable(z.string()),
  reason: z.string(),
  txid: z.string(),
  status: z.enum(['open', 'assigned', 'refunded']),
  invoice_id: z.nullable(z.string()),
  resolved_by: z.nullable(z.string()),
  resolved_at: z.nullable(z.number()),
  note: z.nullable(z.string()),
  created_at: z.number(),
});
export type UnmatchedPayment = z.infer<typeof UnmatchedPayment>;

export const UnmatchedList = z.object({ items: z.array(UnmatchedPayment) });
export type UnmatchedList = z.infer<typeof UnmatchedList>;

export const UnmatchedAssigned = z.object({
  payment: UnmatchedPayment,
  invoice: z.object({ id: z.string(), status: z.string(), is_final: z.boolean() }),
});
export type UnmatchedAssigned = z.infer<typeof UnmatchedAssigned>;

export const unmatchedApi = {
  /** `status`: open (default), assigned, refunded or all. */
  list: get('/unmatched', UnmatchedList, { query: ['status'] as const }),
  assign: post('/unmatched/:id/assign', 'manage', z.object({ invoice: text }), UnmatchedAssigned),
  refunded: post('/unmatched/:id/refunded', 'manage', z.object({ note: text }), UnmatchedPayment),
} as const;
