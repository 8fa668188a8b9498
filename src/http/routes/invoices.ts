// Invoices: creation, information, history, QR code and refunds.
import type { SignedRouteGroup } from '../signed-api.ts';
import { signedRoute } from '../signed-api.ts';
import { createInvoiceOp, invoiceInfoOp, invoiceListOp, invoiceQrOp, refundInvoiceOp } from '../../contracts/merchant-api/invoices.ts';
import { createInvoice } from '../../invoices/create.ts';
import { invoiceInfo, invoiceQr, listInvoices } from '../../invoices/queries.ts';
import { refundInvoice } from '../../refunds/refund.ts';

export const invoiceRoutes: SignedRouteGroup = async (app, { ctx }) => {
  signedRoute(app, createInvoiceOp, async ({ input, merchant }) => (await createInvoice(ctx, merchant, input)).invoice);
  signedRoute(app, invoiceInfoOp, async ({ input, merchant }) => invoiceInfo(ctx, merchant.id, input));
  signedRoute(app, invoiceListOp, async ({ input, merchant, query }) => listInvoices(ctx, merchant.id, input, query));
  signedRoute(app, invoiceQrOp, async ({ input, merchant }) => invoiceQr(ctx, merchant.id, input));
  signedRoute(app, refundInvoiceOp, async ({ input, merchant }) => refundInvoice(ctx, merchant, input));
};
