import type { V1 } from '../merchant-api.ts';
import { createInvoice } from '../../invoices/create.ts';
import { invoiceInfo, invoiceQr, listInvoices } from '../../invoices/queries.ts';

export function invoiceRoutes(v1: V1): void {
  const { ctx } = v1;
  v1.post('/v1/payment', async ({ input, merchant }) => (await createInvoice(ctx, merchant, input)).invoice);
  v1.post('/v1/payment/info', async ({ input, merchant }) => invoiceInfo(ctx, merchant.id, input), { forbidIfBlocked: false });
  v1.post('/v1/payment/list', async ({ input, merchant, query }) => listInvoices(ctx, merchant.id, input, query), { forbidIfBlocked: false });
  v1.post('/v1/payment/qr', async ({ input, merchant }) => invoiceQr(ctx, merchant.id, input), { forbidIfBlocked: false });
}
