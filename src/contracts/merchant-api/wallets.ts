// Static wallets: creation, QR code, blocking, and the one refund of a blocked wallet's funds.
import * as z from 'zod';
import { isMissing, validationErrors, type Input } from '../rules.ts';
import { operation, type Maybe, type WireBoolean } from './operation.ts';
import { amount, Qr, StaticWallet } from './objects.ts';
import { flag, recordRef, text, type RecordRef } from './parse.ts';

export interface CreateWalletBody {
  currency: string;
  network: string;
  order_id: string;
  url_callback?: Maybe<string>;
  from_referral_code?: Maybe<string>;
}

/** A static wallet to create: codes as sent, null for what is not given. */
export interface CreateWalletParams {
  currency: string;
  network: string;
  order_id: string;
  url_callback: string | null;
  from_referral_code: string | null;
}

const EXAMPLE_WALLET: StaticWallet = {
  wallet_uuid: '4a8bd3b5-0a5c-5f0d-9c4e-0b1c2d3e4f50',
  uuid: 'b1b1c1a6-cf0f-4a6b-8e4a-5d8f2b3c4d5e',
  order_id: 'customer-381',
  address: 'TXbXyYbJm2Kk4w5yJdtwvPmfPxMWhdQhdW',
  payment_comment: null,
  network: 'TRON',
  currency: 'USDT',
  url: 'https://pay.example.com/pay/wallet/b1b1c1a6-cf0f-4a6b-8e4a-5d8f2b3c4d5e',
};

export const createWalletOp = operation<CreateWalletParams, StaticWallet, CreateWalletBody>({
  id: 'createWallet',
  path: '/v1/wallet',
  summary: 'Create a static wallet (or return the one with this order_id)',
  group: 'wallets',
  signedWith: 'payment',
  blockedMerchant: 'forbidden',
  params: {
    currency: 'required|string',
    network: 'required|string',
    order_id: 'required|string|min:1|max:100|alpha_dash',
    url_callback: 'string|min:6|max:255|url',
    from_referral_code: 'string',
  },
  parse: (b) => ({
    currency: String(b.currency),
    network: String(b.network),
    order_id: String(b.order_id),
    url_callback: text(b.url_callback),
    from_referral_code: text(b.from_referral_code),
  }),
  result: StaticWallet,
  example: { params: { currency: 'USDT', network: 'tron', order_id: 'customer-381', url_callback: 'https://shop.example.com/satchel/wallet' }, result: EXAMPLE_WALLET },
});

const QR_RULES = { wallet_address_uuid: 'required|string|uuid' };
const QR_BY_PAYMENT_UUID_RULES = { merchant_payment_uuid: 'required|string|uuid' };

/** The parameter a QR request names its wallet with: `merchant_payment_uuid` when only that is sent. */
function qrField(input: { wallet_address_uuid?: unknown; merchant_payment_uuid?: unknown }): 'wallet_address_uuid' | 'merchant_payment_uuid' {
  return isMissing(input.wallet_address_uuid) && !isMissing(input.merchant_payment_uuid) ? 'merchant_payment_uuid' : 'wallet_address_uuid';
}

export const walletQrOp = operation<{ wallet_address_uuid: string }, z.infer<typeof Qr>, { wallet_address_uuid: string; merchant_payment_uuid?: Maybe<string> }>({
  id: 'walletQr',
  path: '/v1/wallet/qr',
  summary: 'QR code of a static wallet address (also accepts merchant_payment_uuid)',
  group: 'wallets',
  signedWith: 'payment',
  blockedMerchant: 'allowed',
  params: QR_RULES,
  check: (input: Input) => validationErrors(input, qrField(input) === 'wallet_address_uuid' ? QR_RULES : QR_BY_PAYMENT_UUID_RULES),
  parse: (b) => ({ wallet_address_uuid: String(b[qrField(b)]).toLowerCase() }),
  result: Qr,
  example: { params: { wallet_address_uuid: EXAMPLE_WALLET.uuid }, result: { image: 'data:image/png;base64,iVBORw0KGgo=' } },
});

const WALLET_REF = {
  uuid: 'required_without:order_id|uuid',
  order_id: 'required_without:uuid|string|min:1|max:32|alpha_dash',
};

export const BlockedWallet = z.object({ uuid: z.string(), status: z.enum(['blocked', 'active', 'in_active']) });

export const blockWalletOp = operation<RecordRef & { is_force_refund: boolean }, z.infer<typeof BlockedWallet>, { uuid?: Maybe<string>; order_id?: Maybe<string>; is_force_refund?: Maybe<WireBoolean> }>({
  id: 'blockWallet',
  path: '/v1/wallet/block-address',
  summary: 'Block a static wallet (order_id wins over uuid)',
  group: 'wallets',
  signedWith: 'payment',
  blockedMerchant: 'allowed',
  params: { ...WALLET_REF, is_force_refund: 'boolean' },
  parse: (b) => ({ ...recordRef(b, 'order_id'), is_force_refund: flag(b.is_force_refund, false) }),
  result: BlockedWallet,
  example: { params: { order_id: 'customer-381', is_force_refund: false }, result: { uuid: EXAMPLE_WALLET.uuid, status: 'blocked' } },
});

export const BlockedWalletRefund = z.object({ commission: amount, amount });

export const blockedWalletRefundOp = operation<RecordRef & { address: string }, z.infer<typeof BlockedWalletRefund>, { uuid?: Maybe<string>; order_id?: Maybe<string>; address: string }>({
  id: 'blockedWalletRefund',
  path: '/v1/wallet/blocked-address-refund',
  summary: 'Refund a blocked static wallet\'s funds, once (uuid wins over order_id)',
  group: 'wallets',
  signedWith: 'payment',
  blockedMerchant: 'forbidden',
  params: { ...WALLET_REF, address: 'required|string|min:10|max:128|alpha_dash' },
  parse: (b) => ({ ...recordRef(b, 'uuid'), address: String(b.address) }),
  result: BlockedWalletRefund,
  example: { params: { uuid: EXAMPLE_WALLET.uuid, address: 'TDD97yguPESTpcrJMqU6h2ozZbibv4Vaqm' }, result: { commission: '1.00', amount: '24.00' } },
});
