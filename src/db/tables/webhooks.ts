// Table types: Webhooks queued for merchants and their delivery attempts.
// Amounts are text (exact decimals); booleans are 0/1 integers; times are integer milliseconds
// since the epoch unless named *_at_s (seconds).

export interface WebhooksTable {
  id: string;
  merchant_id: string;
  /** payment | wallet | payout */
  kind: string;
  ref_id: string;
  url: string;
  /** The exact body delivered, `sign` included. */
  body: string;
  /** pending | delivered | failed */
  status: string;
  attempts: number;
  next_attempt_at: number;
  allow_private: number;
  created_at: number;
  delivered_at: number | null;
  last_status: number | null;
  last_error: string | null;
}

export interface WebhookAttemptsTable {
  id: string;
  webhook_id: string;
  at: number;
  http_status: number | null;
  latency_ms: number;
  error: string | null;
  /** The start of the receiver's answer (migration 010; absent on rows written before it). */
  answer?: string | null;
}
