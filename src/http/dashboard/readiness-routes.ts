// Settings' view of the gateway itself: each network as the gateway sees it now (the table it
// prints at start), and, for an instance admin, the readiness checks of `satchel doctor`. The
// checks read every merchant's callback URLs, so a merchant's own users do not run them.
import { RoleForbiddenError } from '../../dashboard/errors.ts';
import { runDoctor } from '../../doctor/index.ts';
import { realDeps } from '../../doctor/deps.ts';
import { dashboardRoute, type DashboardRouteGroup } from './api.ts';
import { readinessApi } from '../../contracts/dashboard/readiness.ts';

export const readinessRoutes: DashboardRouteGroup = async (app, { ctx }) => {
  dashboardRoute(app, readinessApi.networks, async () => ctx.chains.report());
  dashboardRoute(app, readinessApi.doctor, async ({ signedIn }) => {
    if (signedIn.user.role !== 'admin') throw new RoleForbiddenError('Only an instance admin can run the readiness checks (they read every merchant\'s settings).');
    return runDoctor(ctx, realDeps);
  });
};
