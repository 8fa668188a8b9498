// The dashboard's webhook deliveries as the server answers them and the dashboard shows them
// (src/dashboard/webhooks.ts, src/dashboard-ui/deliveries.tsx).
import * as z from 'zod/mini';

export const Attempt = z.object({
  at: z.number(),
  http_status: z.nullable(z.number()),
  latency_ms: z.number(),
  error: z.nullable(z.string()),
  answer: z.nullable(z.string()),
});
export type Attempt = z.infer<typeof Attempt>;

export const Delivery = z.object({
  id: z.string(),
  kind: z.string(),
  ref_id: z.string(),
  /** Where the object lives in the dashboard: invoices/<id>, wallets/<id> or payouts/<id>. */
  object: z.nullable(z.string()),
  order_id: z.nullable(z.string()),
  status_sent: z.nullable(z.string()),
  url: z.string(),
  status: z.string(),
  failing: z.boolean(),
  attempts: z.array(Attempt),
  body: z.string(),
  created_at: z.number(),
  delivered_at: z.nullable(z.number()),
  next_attempt_at: z.nullable(z.number()),
  last_status: z.nullable(z.number()),
  last_error: z.nullable(z.string()),
});
export type Delivery = z.infer<typeof Delivery>;

/** The webhooks view: the failing deliveries on top, then a keyset page of the rest. */
export const DeliveryList = z.object({ failing: z.array(Delivery), items: z.array(Delivery), next: z.nullable(z.string()) });
export type DeliveryList = z.infer<typeof DeliveryList>;
