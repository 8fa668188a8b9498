// The merchant dashboard: its built page at /dashboard (never framable, strict CSP) and its
// session-authed JSON API under /api/dashboard (docs/dashboard.md).
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../../context.ts';
import { DIST_DIR, load, send } from '../routes/page.ts';
import { API_PREFIX, dashboardApi } from './api.ts';
import { authRoutes } from './auth-routes.ts';
import { invoiceRoutes } from './invoice-routes.ts';
import { moneyRoutes } from './money-routes.ts';
import { walletRoutes } from './wallet-routes.ts';
import { readinessRoutes } from './readiness-routes.ts';
import { custodyRoutes } from './custody-routes.ts';
import { unmatchedRoutes } from './unmatched-routes.ts';

export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const HEADERS = {
  'content-security-policy': DASHBOARD_CSP,
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
};

export async function dashboardRoutes(app: FastifyInstance, ctx: Ctx, distDir = DIST_DIR): Promise<void> {
  const assets = load(join(distDir, 'dashboard'));
  const index = assets.get('/index.html');
  const servePage = async (req: FastifyRequest, reply: FastifyReply) => {
    if (!index) return reply.code(503).type('text/plain').send('The dashboard is not built: run `npm run build`.');
    return send(req, reply, index, HEADERS);
  };
  app.get('/dashboard', servePage);
  app.get('/dashboard/*', async (req, reply) => {
    const path = req.url.split('?')[0]!.slice('/dashboard'.length);
    const asset = assets.get(path);
    if (asset && path !== '/index.html') return send(req, reply, asset, HEADERS);
    if (path.startsWith('/assets/')) return reply.code(404).send({ state: 1, message: 'Not found' });
    return servePage(req, reply); // client-side routes
  });
  await app.register(dashboardApi, { prefix: API_PREFIX, ctx, groups: [authRoutes, invoiceRoutes, moneyRoutes, walletRoutes, readinessRoutes, custodyRoutes, unmatchedRoutes] });
}
