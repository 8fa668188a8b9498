// What the merchant's account holds and offers: balances and payment services.
import * as z from 'zod';
import { operation } from './operation.ts';
import { amount, Service } from './objects.ts';
import { EXAMPLE_SERVICE } from './payouts.ts';

export const WalletBalance = z.object({ uuid: z.string(), balance: amount, currency_code: z.string(), balance_usd: amount.nullable() });
export type WalletBalance = z.infer<typeof WalletBalance>;
export const Balances = z.array(z.object({ balance: z.object({ merchant: z.array(WalletBalance), user: z.array(WalletBalance) }) }));
export type Balances = z.infer<typeof Balances>;

export const balanceOp = operation<Record<string, never>, Balances>({
  id: 'balance',
  path: '/v1/balance',
  summary: 'Business (merchant) and personal (user) balances, one per cryptocurrency',
  group: 'account',
  signedWith: 'payment',
  blockedMerchant: 'allowed',
  params: {},
  parse: () => ({}),
  result: Balances,
  example: {
    params: {},
    result: [{ balance: { merchant: [{ uuid: '4a8bd3b5-0a5c-5f0d-9c4e-0b1c2d3e4f50', balance: '110.28', currency_code: 'USDT', balance_usd: '110.28' }], user: [{ uuid: '5b9ce4c6-1b6d-5a1e-8d5f-1c2d3e4f5061', balance: '0.00', currency_code: 'USDT', balance_usd: '0.00' }] } }],
  },
});

export const paymentServicesOp = operation<Record<string, never>, Service[]>({
  id: 'paymentServices',
  path: '/v1/payment/services',
  summary: 'Payment services: networks, currencies, limits and commissions',
  group: 'account',
  signedWith: 'payment',
  blockedMerchant: 'allowed',
  params: {},
  parse: () => ({}),
  result: z.array(Service),
  example: { params: {}, result: [EXAMPLE_SERVICE] },
});

/** GET /v1/exchange-rate/{currency}/list: public, not signed. */
export const EXCHANGE_RATES_PATH = '/v1/exchange-rate/{currency}/list';
export const ExchangeRates = z.array(z.object({ from: z.string(), to: z.string(), course: amount }));
export type ExchangeRates = z.infer<typeof ExchangeRates>;
export const EXCHANGE_RATES_EXAMPLE: ExchangeRates = [{ from: 'USDT', to: 'USD', course: '1.00000000' }];
