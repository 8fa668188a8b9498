// Settings' view of the gateway itself: each network as the gateway sees it now (the table it
// prints at start), and, for an instance admin, the readiness checks of `satchel doctor`. The
// checks read every merchant's callback URLs, so a merchant's own users do not run them.
import type { Ctx } from '../../context.ts';
import { RoleForbiddenError } from '../../dashboard/errors.ts';
import { runDoctor } from '../../doctor/index.ts';
import { realDeps } from '../../doctor/deps.ts';
import type { DashboardApi } from './api.ts';

export function readinessRoutes(d: DashboardApi): void {
  const ctx: Ctx = d.ctx;
  d.get('/networks', async () => ctx.chains.report());
  d.get('/doctor', async ({ signedIn }) => {
    if (signedIn.user.role !== 'admin') throw new RoleForbiddenError('Only an instance admin can run the readiness checks (they read every merchant\'s settings).');
    return runDoctor(ctx, realDeps);
  });
}
