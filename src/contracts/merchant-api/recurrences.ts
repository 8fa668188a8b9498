// Recurring payments (docs/recurring.md), wire-compatible with the Cryptomus recurrence endpoints:
// create, information, history and cancel; the Recurrence object; the `recurrence` webhook's body
// and the order of its fields.
import * as z from 'zod';
import { HISTORY_DATE_RULE, isMissing, validationErrors, type Input } from '../rules.ts';
import { operation, type Maybe, type WireInteger } from './operation.ts';
import { amount, Paginate } from './objects.ts';
import { code, decimalText, integer, recordRef, text, type RecordRef } from './parse.ts';
import { parseHistory, type HistoryBody, type HistoryParams } from './invoices.ts';

import { RECURRENCE_PERIODS, RECURRENCE_STATUSES, type RecurrencePeriod, type RecurrenceStatus } from '../recurrence-status.ts';

export { RECURRENCE_PERIODS, RECURRENCE_STATUSES, type RecurrencePeriod, type RecurrenceStatus };

const uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
const timestamp = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?[+-]\d{2}:\d{2}$/);

/** The Recurrence object, fields in the order the Cryptomus API sends them. */
export const Recurrence = z.object({
  uuid,
  name: z.string(),
  order_id: z.string().nullable(),
  amount,
  currency: z.string(),
  payer_currency: z.string().nullable(),
  payer_amount_usd: amount.nullable(),
  payer_amount: amount.nullable(),
  url_callback: z.string().nullable(),
  discount_days: z.number().int().nullable(),
  discount_amount: amount.nullable(),
  end_of_discount: timestamp.nullable(),
  period: z.enum(RECURRENCE_PERIODS),
  status: z.enum(RECURRENCE_STATUSES),
  url: z.string(),
  last_pay_off: timestamp.nullable(),
  additional_data: z.string().nullable(),
});
export type Recurrence = z.infer<typeof Recurrence>;

export interface CreateRecurrenceBody {
  amount: string;
  currency: string;
  name: string;
  period: string;
  to_currency?: Maybe<string>;
  order_id?: Maybe<string>;
  url_callback?: Maybe<string>;
  discount_days?: Maybe<WireInteger>;
  discount_amount?: Maybe<string>;
  additional_data?: Maybe<string>;
}

/** A recurrence to create: codes in capitals, null for what is not given. */
export interface CreateRecurrenceParams {
  /** Decimal text. */
  amount: string;
  currency: string;
  name: string;
  period: RecurrencePeriod;
  to_currency: string | null;
  order_id: string | null;
  url_callback: string | null;
  discount_days: number | null;
  /** Decimal text, given exactly when discount_days is. */
  discount_amount: string | null;
  additional_data: string | null;
}

const CREATE_RULES = {
  amount: 'required|string|numeric|amount|positive',
  currency: 'required|string',
  name: 'required|string|min:3|max:60',
  period: `required|string|in:${RECURRENCE_PERIODS.join(',')}`,
  to_currency: 'string',
  order_id: 'string|min:1|max:100|alpha_dash',
  url_callback: 'string|min:6|max:255|url',
  discount_days: 'integer|min:1|max:365',
  discount_amount: 'string|numeric|amount|positive',
  additional_data: 'string|max:255',
};

/** The rules, and the pair that goes together: a discount needs both its length and its price. */
function createErrors(input: Input): Record<string, string[]> {
  const errors = validationErrors(input, CREATE_RULES);
  const days = !isMissing(input.discount_days);
  const price = !isMissing(input.discount_amount);
  if (days && !price && !errors.discount_amount) errors.discount_amount = ['validation.required_with'];
  if (price && !days && !errors.discount_days) errors.discount_days = ['validation.required_with'];
  return errors;
}

const EXAMPLE: Recurrence = {
  uuid: 'b6a9a3c2-5d0e-4f4b-9a57-2c3d7e1f0a11',
  name: 'Pro plan',
  order_id: 'sub-1042',
  amount: '15.00',
  currency: 'USD',
  payer_currency: 'USDT',
  payer_amount_usd: '15.00',
  payer_amount: '15.00',
  url_callback: 'https://shop.example.com/satchel/webhook',
  discount_days: 7,
  discount_amount: '1.00',
  end_of_discount: null,
  period: 'monthly',
  status: 'wait_accept',
  url: 'https://pay.example.com/pay/recurrence/b6a9a3c2-5d0e-4f4b-9a57-2c3d7e1f0a11',
  last_pay_off: null,
  additional_data: null,
};

export const createRecurrenceOp = operation<CreateRecurrenceParams, Recurrence, CreateRecurrenceBody>({
  id: 'createRecurrence',
  path: '/v1/recurrence/create',
  summary: 'Create a recurring payment (or return the one with this order_id)',
  group: 'recurrences',
  signedWith: 'payment',
  blockedMerchant: 'forbidden',
  params: CREATE_RULES,
  check: createErrors,
  parse: (b) => ({
    amount: String(b.amount).trim(),
    currency: String(b.currency).toUpperCase(),
    name: String(b.name),
    period: String(b.period) as RecurrencePeriod,
    to_currency: code(b.to_currency),
    order_id: text(b.order_id),
    url_callback: text(b.url_callback),
    discount_days: integer(b.discount_days, null),
    discount_amount: decimalText(b.discount_amount),
    additional_data: text(b.additional_data),
  }),
  result: Recurrence,
  example: {
    params: { amount: '15', currency: 'USD', to_currency: 'USDT', name: 'Pro plan', period: 'monthly', order_id: 'sub-1042', discount_days: 7, discount_amount: '1' },
    result: EXAMPLE,
  },
});

const REF_RULES = {
  uuid: 'required_without:order_id|uuid',
  order_id: 'required_without:uuid|string|min:1|max:100|alpha_dash',
};

interface RecurrenceRefBody {
  uuid?: Maybe<string>;
  order_id?: Maybe<string>;
}

export const recurrenceInfoOp = operation<RecordRef, Recurrence, RecurrenceRefBody>({
  id: 'recurrenceInfo',
  path: '/v1/recurrence/info',
  summary: 'Recurring payment information (order_id wins over uuid)',
  group: 'recurrences',
  signedWith: 'payment',
  blockedMerchant: 'allowed',
  acceptsWebhookBody: true,
  params: REF_RULES,
  parse: (b) => recordRef(b, 'order_id'),
  result: Recurrence,
  example: { params: { uuid: EXAMPLE.uuid }, result: EXAMPLE },
});

export const RecurrencePage = z.object({ items: z.array(Recurrence), paginate: Paginate });

export const recurrenceListOp = operation<HistoryParams, z.infer<typeof RecurrencePage>, HistoryBody>({
  id: 'recurrenceList',
  path: '/v1/recurrence/list',
  summary: 'Recurring payments, newest first; the next page with ?cursor=',
  group: 'recurrences',
  signedWith: 'payment',
  blockedMerchant: 'allowed',
  params: { date_from: HISTORY_DATE_RULE, date_to: HISTORY_DATE_RULE },
  query: { cursor: 'string' },
  parse: (b, env) => parseHistory(b, env.query),
  result: RecurrencePage,
  example: {
    params: {},
    result: { items: [EXAMPLE], paginate: { count: 1, hasPages: false, nextCursor: null, previousCursor: null, perPage: 15 } },
  },
});

export const cancelRecurrenceOp = operation<RecordRef, Recurrence, RecurrenceRefBody>({
  id: 'cancelRecurrence',
  path: '/v1/recurrence/cancel',
  summary: 'Cancel a recurring payment (order_id wins over uuid)',
  group: 'recurrences',
  signedWith: 'payment',
  blockedMerchant: 'allowed',
  params: REF_RULES,
  parse: (b) => recordRef(b, 'order_id'),
  result: Recurrence,
  example: { params: { uuid: EXAMPLE.uuid }, result: { ...EXAMPLE, status: 'cancel_by_merchant' } },
});

/** The body of a `recurrence` webhook, without `sign`. */
export interface RecurrenceWebhook {
  type: 'recurrence';
  uuid: string;
  order_id: string | null;
  status: RecurrenceStatus;
  amount: string;
  currency: string;
  period: RecurrencePeriod;
  /** The period's invoice the change concerns, or null. */
  invoice_uuid: string | null;
  last_pay_off: string | null;
  additional_data: string | null;
}

/** RecurrenceWebhook's fields in the order they are sent (`sign` follows). */
export const RECURRENCE_WEBHOOK_ORDER = [
  'type', 'uuid', 'order_id', 'status', 'amount', 'currency', 'period', 'invoice_uuid', 'last_pay_off', 'additional_data',
] as const satisfies ReadonlyArray<keyof RecurrenceWebhook>;
