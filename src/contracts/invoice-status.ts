// The statuses an invoice can have (docs/api.md): the one list the server, the merchant API, the
// payer page and the dashboard all read. Free of DOM and Node APIs (the browser bundles import it).

export const INVOICE_STATUSES = [
  'process',
  'check',
  'paid',
  'paid_over',
  'fail',
  'wrong_amount',
  'cancel',
  'system_fail',
  'refund_process',
  'refund_fail',
  'refund_paid',
  'locked',
] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];
