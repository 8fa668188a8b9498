// Transfers between the merchant's personal and business wallets.
import * as z from 'zod';
import { operation, type Maybe } from './operation.ts';
import { amount } from './objects.ts';
import { text } from './parse.ts';

export interface TransferBody {
  amount: string;
  currency: string;
  order_id?: Maybe<string>;
}

/** A transfer: the amount's decimal text, the currency in capitals, the order_id or null. */
export interface TransferParams {
  amount: string;
  currency: string;
  order_id: string | null;
}

function parseTransfer(b: TransferBody): TransferParams {
  return { amount: String(b.amount).trim(), currency: String(b.currency).toUpperCase(), order_id: text(b.order_id) };
}

export const TRANSFER_RULES = {
  amount: 'required|string|amount',
  currency: 'required|string',
  order_id: 'string|min:1|max:100|alpha_dash',
};

export const Transfer = z.object({
  user_wallet_transaction_uuid: z.string(),
  user_wallet_balance: amount,
  merchant_transaction_uuid: z.string(),
  merchant_balance: amount,
});
export type Transfer = z.infer<typeof Transfer>;

const EXAMPLE: { params: TransferBody; result: Transfer } = {
  params: { amount: '10.28', currency: 'USDT' },
  result: {
    user_wallet_transaction_uuid: '2f0a3b1c-6d7e-4f80-9a1b-2c3d4e5f6a7b',
    user_wallet_balance: '89.72',
    merchant_transaction_uuid: '7b6a5f4e-3d2c-4b1a-8f9e-0d1c2b3a4f5e',
    merchant_balance: '110.28',
  },
};

export const transferToBusinessOp = operation<TransferParams, Transfer, TransferBody>({
  id: 'transferToBusiness',
  path: '/v1/transfer/to-business',
  summary: 'Move funds from the personal wallet to the business wallet',
  group: 'transfers',
  signedWith: 'payout',
  blockedMerchant: 'forbidden',
  params: TRANSFER_RULES,
  parse: parseTransfer,
  result: Transfer,
  example: EXAMPLE,
});

export const transferToPersonalOp = operation<TransferParams, Transfer, TransferBody>({
  id: 'transferToPersonal',
  path: '/v1/transfer/to-personal',
  summary: 'Move funds from the business wallet to the personal wallet',
  group: 'transfers',
  signedWith: 'payout',
  blockedMerchant: 'forbidden',
  params: TRANSFER_RULES,
  parse: parseTransfer,
  result: Transfer,
  example: EXAMPLE,
});
