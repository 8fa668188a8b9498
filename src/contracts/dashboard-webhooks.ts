// The dashboard's webhook deliveries as the server answers them and the dashboard shows them
// (src/dashboard/webhooks.ts, src/dashboard-ui/deliveries.tsx). Types only, free of DOM and Node APIs.

export interface Attempt {
  at: number;
  http_status: number | null;
  latency_ms: number;
  error: string | null;
  answer: string | null;
}

export interface Delivery {
  id: string;
  kind: string;
  ref_id: string;
  /** Where the object lives in the dashboard: invoices/<id>, wallets/<id> or payouts/<id>. */
  object: string | null;
  order_id: string | null;
  status_sent: string | null;
  url: string;
  status: string;
  failing: boolean;
  attempts: Attempt[];
  body: string;
  created_at: number;
  delivered_at: number | null;
  next_attempt_at: number | null;
  last_status: number | null;
  last_error: string | null;
}
