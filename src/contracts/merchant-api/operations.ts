// Every operation of the signed merchant API, by group.
import { operation, type Operation } from './operation.ts';

export const createInvoiceOp = operation({ id: 'createInvoice', path: '/v1/payment', summary: 'Create an invoice', group: 'invoices', signedWith: 'payment', blockedMerchant: 'forbidden' });
export const invoiceInfoOp = operation({ id: 'invoiceInfo', path: '/v1/payment/info', summary: 'Invoice information', group: 'invoices', signedWith: 'payment', blockedMerchant: 'allowed' });
export const invoiceListOp = operation({ id: 'invoiceList', path: '/v1/payment/list', summary: 'Invoice history', group: 'invoices', signedWith: 'payment', blockedMerchant: 'allowed' });
export const invoiceQrOp = operation({ id: 'invoiceQr', path: '/v1/payment/qr', summary: 'QR code of an invoice address', group: 'invoices', signedWith: 'payment', blockedMerchant: 'allowed' });
export const refundInvoiceOp = operation({ id: 'refundInvoice', path: '/v1/payment/refund', summary: 'Refund an invoice', group: 'invoices', signedWith: 'payout', blockedMerchant: 'forbidden' });

export const resendWebhookOp = operation({ id: 'resendWebhook', path: '/v1/payment/resend', summary: 'Resend an invoice webhook', group: 'webhooks', signedWith: 'payment', blockedMerchant: 'allowed' });
export const resendWebhookV2Op = operation({ id: 'resendWebhookV2', path: '/v2/payment/resend', summary: 'Resend an invoice webhook, by uuid, order_id or txid', group: 'webhooks', signedWith: 'payment', blockedMerchant: 'allowed' });
export const testPaymentWebhookOp = operation({ id: 'testPaymentWebhook', path: '/v1/test-webhook/payment', summary: 'Send a test invoice webhook', group: 'webhooks', signedWith: 'payment', blockedMerchant: 'allowed' });
// The spec validates test webhooks with the payment key, but a popular SDK signs the payout test
// with the payout key; both are the merchant's own secrets, so that one route takes either.
export const testPayoutWebhookOp = operation({ id: 'testPayoutWebhook', path: '/v1/test-webhook/payout', summary: 'Send a test payout webhook', group: 'webhooks', signedWith: 'payment_or_payout', blockedMerchant: 'allowed' });
export const testWalletWebhookOp = operation({ id: 'testWalletWebhook', path: '/v1/test-webhook/wallet', summary: 'Send a test static wallet webhook', group: 'webhooks', signedWith: 'payment', blockedMerchant: 'allowed' });

export const createWalletOp = operation({ id: 'createWallet', path: '/v1/wallet', summary: 'Create a static wallet', group: 'wallets', signedWith: 'payment', blockedMerchant: 'forbidden' });
export const walletQrOp = operation({ id: 'walletQr', path: '/v1/wallet/qr', summary: 'QR code of a static wallet address', group: 'wallets', signedWith: 'payment', blockedMerchant: 'allowed' });
export const blockWalletOp = operation({ id: 'blockWallet', path: '/v1/wallet/block-address', summary: 'Block a static wallet', group: 'wallets', signedWith: 'payment', blockedMerchant: 'allowed' });
export const blockedWalletRefundOp = operation({ id: 'blockedWalletRefund', path: '/v1/wallet/blocked-address-refund', summary: 'Refund a blocked static wallet\'s funds', group: 'wallets', signedWith: 'payment', blockedMerchant: 'forbidden' });

export const createPayoutOp = operation({ id: 'createPayout', path: '/v1/payout', summary: 'Create a payout', group: 'payouts', signedWith: 'payout', blockedMerchant: 'forbidden' });
export const calcPayoutOp = operation({ id: 'calcPayout', path: '/v1/payout/calc', summary: 'Calculate payout amounts', group: 'payouts', signedWith: 'payout', blockedMerchant: 'forbidden' });
export const calculatePayoutOp = operation({ id: 'calculatePayout', path: '/v1/payout/calculate', summary: 'Calculate payout amounts (the same as /v1/payout/calc)', group: 'payouts', signedWith: 'payout', blockedMerchant: 'forbidden' });
export const payoutInfoOp = operation({ id: 'payoutInfo', path: '/v1/payout/info', summary: 'Payout information', group: 'payouts', signedWith: 'payout', blockedMerchant: 'allowed' });
export const payoutListOp = operation({ id: 'payoutList', path: '/v1/payout/list', summary: 'Payout history', group: 'payouts', signedWith: 'payout', blockedMerchant: 'allowed' });
export const payoutServicesOp = operation({ id: 'payoutServices', path: '/v1/payout/services', summary: 'Payout services: currencies, networks, limits and fees', group: 'payouts', signedWith: 'payout', blockedMerchant: 'allowed' });

export const transferToBusinessOp = operation({ id: 'transferToBusiness', path: '/v1/transfer/to-business', summary: 'Transfer to the business wallet', group: 'transfers', signedWith: 'payout', blockedMerchant: 'forbidden' });
export const transferToPersonalOp = operation({ id: 'transferToPersonal', path: '/v1/transfer/to-personal', summary: 'Transfer to the personal wallet', group: 'transfers', signedWith: 'payout', blockedMerchant: 'forbidden' });

export const balanceOp = operation({ id: 'balance', path: '/v1/balance', summary: 'Business and personal balances', group: 'account', signedWith: 'payment', blockedMerchant: 'allowed' });
export const paymentServicesOp = operation({ id: 'paymentServices', path: '/v1/payment/services', summary: 'Payment services: currencies, networks, limits and commissions', group: 'account', signedWith: 'payment', blockedMerchant: 'allowed' });

/** Every signed operation, in the order the API documentation lists them. */
export const MERCHANT_OPERATIONS: ReadonlyArray<Operation<unknown, unknown>> = [
  createInvoiceOp, invoiceInfoOp, invoiceListOp, invoiceQrOp, refundInvoiceOp,
  resendWebhookOp, resendWebhookV2Op, testPaymentWebhookOp, testPayoutWebhookOp, testWalletWebhookOp,
  createWalletOp, walletQrOp, blockWalletOp, blockedWalletRefundOp,
  createPayoutOp, calcPayoutOp, calculatePayoutOp, payoutInfoOp, payoutListOp, payoutServicesOp,
  transferToBusinessOp, transferToPersonalOp,
  balanceOp, paymentServicesOp,
];
