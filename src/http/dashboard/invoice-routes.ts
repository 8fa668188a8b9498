// The dashboard's overview and invoices: list, search, CSV export, detail and the actions on one
// invoice (resend the webhook, refund, simulate a payment in test mode).
import { Readable } from 'node:stream';
import type { Ctx } from '../../context.ts';
import { NotFoundError } from '../../errors.ts';
import { overview } from '../../dashboard/overview.ts';
import { invoicesCsv, parseCursor, parseFilter, searchInvoices } from '../../dashboard/invoice-search.ts';
import { invoiceDetail } from '../../dashboard/invoice-detail.ts';
import { audit } from '../../dashboard/audit.ts';
import { UserInputError } from '../../dashboard/errors.ts';
import { resendPaymentWebhook } from '../../webhooks/resend.ts';
import { refundInvoice } from '../../refunds/refund.ts';
import { simulatePay, SimulatorError } from '../../simulator/payments.ts';
import { isUuid } from '../../contracts/rules.ts';
import { refundInvoiceOp } from '../../contracts/merchant-api/invoices.ts';
import { resendWebhookOp } from '../../contracts/merchant-api/webhooks.ts';
import { paramsFor } from '../signed-api.ts';
import { dashboardRoute, type DashboardRouteGroup } from './api.ts';
import { invoiceApi } from '../../contracts/dashboard/invoices.ts';

function invoiceId(params: unknown): string {
  const id = (params as { id?: unknown }).id;
  if (!isUuid(id)) throw new NotFoundError('Invoice not found');
  return id.toLowerCase();
}

/** Networks and currencies the filters offer: every network of the registry, offered or not, since
 * the filters search what is recorded. */
function choices(ctx: Ctx) {
  return {
    networks: ctx.registry.networks.map((n) => ({ code: n.code, name: n.name })),
    currencies: [...new Set(ctx.registry.networks.flatMap((n) => n.currencies.map((c) => c.code.toUpperCase())))].sort(),
  };
}

export const invoiceRoutes: DashboardRouteGroup = async (app, { ctx }) => {
  dashboardRoute(app, invoiceApi.overview, async ({ merchant }) => overview(ctx, merchant.id));
  dashboardRoute(app, invoiceApi.choices, async () => choices(ctx));

  dashboardRoute(app, invoiceApi.invoices, async ({ merchant, query }) => searchInvoices(ctx.storage.db, merchant.id, parseFilter(query), parseCursor(query.after)));

  dashboardRoute(app, invoiceApi.csv, async ({ merchant, query, reply }) => {
    const filter = parseFilter(query);
    const stamp = new Date(ctx.now()).toISOString().slice(0, 10);
    reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="invoices-${stamp}.csv"`)
      // One batch read ahead at most: the next query waits until the client has taken this one.
      .send(Readable.from(invoicesCsv(ctx.storage.db, merchant.id, filter), { highWaterMark: 1 }));
    return undefined;
  });

  dashboardRoute(app, invoiceApi.invoice, async ({ merchant, req }) => invoiceDetail(ctx, merchant, invoiceId(req.params)));

  dashboardRoute(
    app,
    invoiceApi.resend,
    async ({ merchant, req, actor }) => {
      const id = invoiceId(req.params);
      await resendPaymentWebhook(ctx, merchant, paramsFor(ctx, resendWebhookOp, { uuid: id }));
      await audit(ctx.storage.db, actor, { merchantId: merchant.id, action: 'webhook_resend', target: id }, ctx.now());
      return { queued: true };
    },
  );

  dashboardRoute(
    app,
    invoiceApi.refund,
    async ({ merchant, req, body, actor }) => {
      const id = invoiceId(req.params);
      const input = { uuid: id, address: body.address, amount: body.amount === '' ? undefined : body.amount, is_subtract: body.is_subtract === true };
      await refundInvoice(ctx, merchant, paramsFor(ctx, refundInvoiceOp, input));
      await audit(ctx.storage.db, actor, { merchantId: merchant.id, action: 'refund', target: id, detail: { address: String(body.address), amount: body.amount ?? null } }, ctx.now());
      return { requested: true };
    },
  );

  dashboardRoute(
    app,
    invoiceApi.simulate,
    async ({ merchant, req, body, actor }) => {
      if (!ctx.chains.simulator) throw new UserInputError('The simulator is off (a network uses a real driver).');
      const id = invoiceId(req.params);
      await invoiceDetail(ctx, merchant, id); // 404 for another merchant's invoice
      const mode = body.mode === 'partial' || body.mode === 'over' ? body.mode : 'full';
      try {
        // The payer's choice, when the invoice has none yet (the detail's `choices`).
        const choice = typeof body.currency === 'string' && typeof body.network === 'string' ? { currency: body.currency, network: body.network } : {};
        const r = await simulatePay(ctx, { invoice: id, mode, ...choice });
        await audit(ctx.storage.db, actor, { merchantId: merchant.id, action: 'simulate_payment', target: id, detail: { mode, amount: r.amount } }, ctx.now());
        return r;
      } catch (e) {
        if (e instanceof SimulatorError) throw new UserInputError(e.message);
        throw e;
      }
    },
  );
};
