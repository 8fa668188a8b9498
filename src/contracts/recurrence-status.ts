// The periods and statuses of a recurrence (docs/recurring.md): the one list the server, the
// merchant API and the payer page read. Free of DOM and Node APIs (the browser bundles import it).

export const RECURRENCE_PERIODS = ['weekly', 'monthly', 'three_month'] as const;
export type RecurrencePeriod = (typeof RECURRENCE_PERIODS)[number];

export const RECURRENCE_STATUSES = ['wait_accept', 'active', 'wait_payment', 'inactive', 'cancel_by_merchant', 'cancel_by_user'] as const;
export type RecurrenceStatus = (typeof RECURRENCE_STATUSES)[number];
