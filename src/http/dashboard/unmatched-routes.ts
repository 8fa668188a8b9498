// Unmatched payments in the dashboard (src/unmatched/): the merchant's list, and an owner's (or an
// admin's) assigning one to an invoice or marking it refunded, audited with the user. A refusal
// (another network, a final invoice, already resolved) answers 422 with the reason; a payment of
// another merchant is not found.
import type { Ctx } from '../../context.ts';
import { unmatchedApi } from '../../contracts/dashboard/unmatched.ts';
import { isUuid } from '../../contracts/rules.ts';
import { NotFoundError } from '../../errors.ts';
import { UserInputError } from '../../dashboard/errors.ts';
import { unmatchedView } from '../../dashboard/unmatched.ts';
import { isUnmatchedStatus, listUnmatched } from '../../unmatched/list.ts';
import { assignUnmatched, markRefunded } from '../../unmatched/resolve.ts';
import { dashboardRoute, type DashboardRouteGroup } from './api.ts';

function paymentId(params: unknown): string {
  const id = (params as { id?: unknown }).id;
  if (typeof id !== 'string' || !isUuid(id)) throw new NotFoundError('No such unmatched payment');
  return id.toLowerCase();
}

export const unmatchedRoutes: DashboardRouteGroup = async (app, { ctx }: { ctx: Ctx }) => {
  dashboardRoute(app, unmatchedApi.list, async ({ merchant, query }) => {
    const status = typeof query.status === 'string' && query.status !== '' ? query.status : 'open';
    if (!isUnmatchedStatus(status)) throw new UserInputError('The status is open, assigned, refunded or all.');
    return { items: (await listUnmatched(ctx.storage.db, { merchantId: merchant.id, status })).map(unmatchedView) };
  });

  dashboardRoute(app, unmatchedApi.assign, async ({ merchant, body, actor, req }) => {
    const invoice = typeof body.invoice === 'string' ? body.invoice.trim() : '';
    if (!isUuid(invoice)) throw new UserInputError('Give the uuid of the invoice to credit.');
    const r = await assignUnmatched(ctx, { id: paymentId(req.params), merchantId: merchant.id, invoiceUuid: invoice, actor });
    return { payment: unmatchedView(r.payment), invoice: r.invoice };
  });

  dashboardRoute(app, unmatchedApi.refunded, async ({ merchant, body, actor, req }) => {
    return unmatchedView(await markRefunded(ctx, { id: paymentId(req.params), merchantId: merchant.id, actor, note: body.note ?? null }));
  });
};
