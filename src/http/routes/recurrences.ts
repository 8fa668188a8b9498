// Recurring payments: creation, information, history and cancel (docs/recurring.md).
import type { SignedRouteGroup } from '../signed-api.ts';
import { signedRoute } from '../signed-api.ts';
import { cancelRecurrenceOp, createRecurrenceOp, recurrenceInfoOp, recurrenceListOp } from '../../contracts/merchant-api/recurrences.ts';
import { cancelRecurrence, createRecurrence, listRecurrences, recurrenceInfo } from '../../recurrences/api.ts';

export const recurrenceRoutes: SignedRouteGroup = async (app, { ctx }) => {
  signedRoute(app, createRecurrenceOp, async ({ params, merchant }) => createRecurrence(ctx, merchant, params));
  signedRoute(app, recurrenceInfoOp, async ({ params, merchant }) => recurrenceInfo(ctx, merchant.id, params));
  signedRoute(app, recurrenceListOp, async ({ params, merchant }) => listRecurrences(ctx, merchant.id, params));
  signedRoute(app, cancelRecurrenceOp, async ({ params, merchant }) => cancelRecurrence(ctx, merchant.id, params, 'cancel_by_merchant'));
};
