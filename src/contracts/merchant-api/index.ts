// Every operation of the signed merchant API, in the order the documentation lists them.
import type { Operation } from './operation.ts';
import { createInvoiceOp, invoiceInfoOp, invoiceListOp, invoiceQrOp, refundInvoiceOp } from './invoices.ts';
import { resendWebhookOp, resendWebhookV2Op, testPaymentWebhookOp, testPayoutWebhookOp, testWalletWebhookOp } from './webhooks.ts';
import { blockedWalletRefundOp, blockWalletOp, createWalletOp, walletQrOp } from './wallets.ts';
import { calcPayoutOp, calculatePayoutOp, createPayoutOp, payoutInfoOp, payoutListOp, payoutServicesOp } from './payouts.ts';
import { transferToBusinessOp, transferToPersonalOp } from './transfers.ts';
import { balanceOp, paymentServicesOp } from './account.ts';
import { cancelRecurrenceOp, createRecurrenceOp, recurrenceInfoOp, recurrenceListOp } from './recurrences.ts';

/** Each operation with its types erased, for what treats them all alike (routes, OpenAPI). */
export const MERCHANT_OPERATIONS = [
  createInvoiceOp, invoiceInfoOp, invoiceListOp, invoiceQrOp, refundInvoiceOp,
  resendWebhookOp, resendWebhookV2Op, testPaymentWebhookOp, testPayoutWebhookOp, testWalletWebhookOp,
  createWalletOp, walletQrOp, blockWalletOp, blockedWalletRefundOp,
  createPayoutOp, calcPayoutOp, calculatePayoutOp, payoutInfoOp, payoutListOp, payoutServicesOp,
  transferToBusinessOp, transferToPersonalOp,
  balanceOp, paymentServicesOp,
  createRecurrenceOp, recurrenceInfoOp, recurrenceListOp, cancelRecurrenceOp,
] as readonly unknown[] as ReadonlyArray<Operation<unknown, unknown>>;
