// Payouts from the business balance: creation, calculation, information, history, services.
import * as z from 'zod';
import { HISTORY_DATE_RULE, isMissing, validationErrors, type Input, type RuleSet } from '../rules.ts';
import { operation, type Maybe, type ParseEnv, type WireBoolean } from './operation.ts';
import { amount, Paginate, Payout, Service } from './objects.ts';
import { code, courseSource, flag, recordRef, text, type RecordRef } from './parse.ts';
import { parseHistory, type HistoryBody, type HistoryParams } from './invoices.ts';

/** Fee priorities a payout may ask for. */
export const PRIORITIES = ['recommended', 'economy', 'high', 'highest'] as const;

export interface CalcPayoutBody {
  amount: string;
  currency: string;
  address: string;
  is_subtract: WireBoolean;
  network?: Maybe<string>;
  to_currency?: Maybe<string>;
  course_source?: Maybe<string>;
  from_currency?: Maybe<string>;
  priority?: Maybe<(typeof PRIORITIES)[number]>;
}

export interface CreatePayoutBody extends CalcPayoutBody {
  order_id: string;
  url_callback?: Maybe<string>;
  memo?: Maybe<string>;
}

/** A payout to price; null for what is not given. */
export interface CalcPayoutParams {
  /** The amount's decimal text. */
  amount: string;
  /** In capitals. */
  currency: string;
  address: string;
  is_subtract: boolean;
  /** As sent. */
  network: string | null;
  /** In capitals. */
  to_currency: string | null;
  /** The rate source's name. */
  course_source: string | null;
  /** In capitals. */
  from_currency: string | null;
  priority: (typeof PRIORITIES)[number];
}

export interface CreatePayoutParams extends CalcPayoutParams {
  order_id: string;
  url_callback: string | null;
  memo: string | null;
}

/** The rules' errors, and a fiat `currency` without `to_currency` (the cryptocurrency to pay out in). */
function payoutErrors(rules: RuleSet) {
  return (input: Input, env: ParseEnv): Record<string, string[]> => {
    const errors = validationErrors(input, rules);
    if (!errors.currency && !errors.to_currency && typeof input.currency === 'string' && env.isFiat(input.currency) && isMissing(input.to_currency)) {
      errors.to_currency = ['validation.required'];
    }
    return errors;
  };
}

function parseCalc(b: CalcPayoutBody): CalcPayoutParams {
  return {
    amount: String(b.amount).trim(),
    currency: String(b.currency).toUpperCase(),
    address: String(b.address),
    is_subtract: flag(b.is_subtract, false),
    network: text(b.network),
    to_currency: code(b.to_currency),
    course_source: courseSource(b.course_source),
    from_currency: code(b.from_currency),
    priority: (text(b.priority) ?? 'recommended') as CalcPayoutParams['priority'],
  };
}

/** The parameters of a calculation; a fiat `currency` also needs `to_currency`. */
export const CALC_PAYOUT_RULES = {
  amount: 'required|string|numeric|amount',
  currency: 'required|string',
  address: 'required|string',
  is_subtract: 'required|boolean',
  network: 'string',
  to_currency: 'string',
  course_source: 'string|min:4|max:20|course_source',
  from_currency: 'string',
  priority: `string|min:4|max:11|in:${PRIORITIES.join(',')}`,
};

const EXAMPLE_PAYOUT: Payout = {
  uuid: 'a7c0caec-a594-4aaa-b1c4-77d511857594',
  amount: '3.00',
  currency: 'USDT',
  network: 'TRON',
  address: 'TDD97yguPESTpcrJMqU6h2ozZbibv4Vaqm',
  txid: null,
  status: 'process',
  is_final: false,
  balance: 129,
  payer_currency: 'USDT',
  payer_amount: 3,
};

/** The recipient's comment (TON): 1..30 characters, none of them a control character, which a
 * wallet would show garbled or not at all. */
const MEMO_RULE = 'string|min:1|max:30|regex:/^[^\\u0000-\\u001f\\u007f-\\u009f]+$/';
const CREATE_PAYOUT_RULES = { ...CALC_PAYOUT_RULES, order_id: 'required|string|min:1|max:100|alpha_dash', url_callback: 'string|min:6|max:255|url', memo: MEMO_RULE };

export const createPayoutOp = operation<CreatePayoutParams, Payout, CreatePayoutBody>({
  id: 'createPayout',
  path: '/v1/payout',
  summary: 'Create a payout (or return the one with this order_id)',
  group: 'payouts',
  signedWith: 'payout',
  blockedMerchant: 'forbidden',
  params: CREATE_PAYOUT_RULES,
  check: payoutErrors(CREATE_PAYOUT_RULES),
  parse: (b) => ({ ...parseCalc(b), order_id: String(b.order_id), url_callback: text(b.url_callback), memo: text(b.memo) }),
  result: Payout,
  example: {
    params: { amount: '3', currency: 'USDT', network: 'TRON', order_id: 'payout-77', address: 'TDD97yguPESTpcrJMqU6h2ozZbibv4Vaqm', is_subtract: '1', url_callback: 'https://shop.example.com/satchel/payout' },
    result: { ...EXAMPLE_PAYOUT, commission: '1.00', merchant_amount: '4.00' },
  },
});

export const PayoutCalculation = z.object({ commission: amount, merchant_amount: amount, payout_amount: amount });

const calc = {
  group: 'payouts',
  signedWith: 'payout',
  blockedMerchant: 'forbidden',
  params: CALC_PAYOUT_RULES,
  check: payoutErrors(CALC_PAYOUT_RULES),
  parse: parseCalc,
  result: PayoutCalculation,
  example: {
    params: { amount: '3', currency: 'USDT', network: 'TRON', address: 'TDD97yguPESTpcrJMqU6h2ozZbibv4Vaqm', is_subtract: true },
    result: { commission: '1.00', merchant_amount: '4.00', payout_amount: '3.00' },
  },
} as const;

export const calcPayoutOp = operation<CalcPayoutParams, z.infer<typeof PayoutCalculation>, CalcPayoutBody>({ id: 'calcPayout', path: '/v1/payout/calc', summary: 'Calculate a payout without making it', ...calc });
export const calculatePayoutOp = operation<CalcPayoutParams, z.infer<typeof PayoutCalculation>, CalcPayoutBody>({ id: 'calculatePayout', path: '/v1/payout/calculate', summary: 'Calculate a payout (the same as /v1/payout/calc)', ...calc });

export const payoutInfoOp = operation<RecordRef, Payout, { uuid?: Maybe<string>; order_id?: Maybe<string> }>({
  id: 'payoutInfo',
  path: '/v1/payout/info',
  summary: 'Payout information (order_id wins over uuid)',
  group: 'payouts',
  signedWith: 'payout',
  blockedMerchant: 'allowed',
  acceptsWebhookBody: true,
  params: { uuid: 'required_without:order_id|uuid', order_id: 'required_without:uuid|string|min:1|max:32|alpha_dash' },
  parse: (b) => recordRef(b, 'order_id'),
  result: Payout,
  example: { params: { order_id: 'payout-77' }, result: EXAMPLE_PAYOUT },
});

export const PayoutPage = z.object({ merchant_uuid: z.string(), items: z.array(Payout), paginate: Paginate });

export const payoutListOp = operation<HistoryParams, z.infer<typeof PayoutPage>, HistoryBody>({
  id: 'payoutList',
  path: '/v1/payout/list',
  summary: 'Payout history, newest first; the next page with ?cursor=',
  group: 'payouts',
  signedWith: 'payout',
  blockedMerchant: 'allowed',
  params: {
    date_from: HISTORY_DATE_RULE,
    date_to: HISTORY_DATE_RULE,
  },
  query: { cursor: 'string' },
  parse: (b, env) => parseHistory(b, env.query),
  result: PayoutPage,
  example: {
    params: {},
    result: {
      merchant_uuid: '8b03432e-385b-4670-8d06-064591096795',
      items: [{ ...EXAMPLE_PAYOUT, created_at: '2026-01-01T03:00:00+03:00', updated_at: '2026-01-01T03:00:00+03:00' }],
      paginate: { count: 1, hasPages: false, nextCursor: null, previousCursor: null, perPage: 15 },
    },
  },
});

export const EXAMPLE_SERVICE: Service = {
  network: 'TRON',
  currency: 'USDT',
  is_available: true,
  limit: { min_amount: '1.00000000', max_amount: '1000000.00000000' },
  commission: { fee_amount: '1.00', percent: '0.00' },
};

export const payoutServicesOp = operation<Record<string, never>, Service[]>({
  id: 'payoutServices',
  path: '/v1/payout/services',
  summary: 'Payout services: networks, currencies, limits and fees',
  group: 'payouts',
  signedWith: 'payout',
  blockedMerchant: 'allowed',
  params: {},
  parse: () => ({}),
  result: z.array(Service),
  example: { params: {}, result: [EXAMPLE_SERVICE] },
});
