// Invoices: creation, information, history, QR code and refunds.
import type { SignedRouteGroup } from '../signed-api.ts';
import { signedRoute } from '../signed-api.ts';
import { createInvoiceOp, invoiceInfoOp, invoiceListOp, invoiceQrOp, refundInvoiceOp } from '../../contracts/merchant-api/invoices.ts';
import { createInvoice } from '../../invoices/create.ts';
import { invoiceInfo, invoiceQr, listInvoices } from '../../invoices/queries.ts';
import { refundInvoice } from '../../refunds/refund.ts';

export const invoiceRoutes: SignedRouteGroup = async (app, { ctx }) => {
  signedRoute(app, createInvoiceOp, async ({ params, merchant }) => (await createInvoice(ctx, merchant, params)).invoice);
  signedRoute(app, invoiceInfoOp, async ({ params, merchant }) => invoiceInfo(ctx, merchant.id, params));
  signedRoute(app, invoiceListOp, async ({ params, merchant }) => listInvoices(ctx, merchant.id, params));
  signedRoute(app, invoiceQrOp, async ({ params, merchant }) => invoiceQr(ctx, merchant.id, params));
  signedRoute(app, refundInvoiceOp, async ({ params, merchant }) => refundInvoice(ctx, merchant, params));
};
