// Settings → Receiving: each network's custody and the merchant's receiving material, and the
// owner's change of it. The change redirects every later payment, so only an owner of the merchant
// makes it (a viewer cannot change anything; an instance admin runs the gateway, not the merchant's
// wallets), with the owner's password given again in the same request: a session left open or
// stolen is not enough. A wrong password counts on the account's sign-in throttle, so this form is
// no faster way to guess it than the sign-in page.
import type { Ctx } from '../../context.ts';
import { custodyApi } from '../../contracts/dashboard/custody.ts';
import { changeCustody } from '../../custody/change.ts';
import { receivingOverview } from '../../custody/overview.ts';
import { CustodyError } from '../../custody/store.ts';
import type { CustodyInput } from '../../chain/family.ts';
import { LoginThrottledError, PasswordRecheckError, RoleForbiddenError, UserInputError } from '../../dashboard/errors.ts';
import type { SignedIn } from '../../dashboard/sessions.ts';
import { releaseOnSuccess, reserveAttempt, throttleKeys } from '../../dashboard/throttle.ts';
import { verifyPassword } from '../../dashboard/passwords.ts';
import { dashboardRoute, type DashboardRouteGroup } from './api.ts';

async function recheckPassword(ctx: Ctx, signedIn: SignedIn, password: unknown, ip: string): Promise<void> {
  if (typeof password !== 'string' || password === '') throw new PasswordRecheckError(true);
  const { user } = signedIn;
  const keys = throttleKeys(user.email, ip);
  const wait = await reserveAttempt(ctx.storage, keys, ctx.now());
  if (wait > 0) throw new LoginThrottledError(wait);
  if (!user.password_hash || !(await verifyPassword(password, user.password_hash))) throw new PasswordRecheckError();
  await releaseOnSuccess(ctx.storage.db, user.email, ip);
}

/** The one material the form sent: empty fields are fields the form showed and left blank. */
function inputOf(body: { xpub?: string; descriptor?: string; address?: string; view_key?: string }): CustodyInput {
  const input: CustodyInput = {};
  for (const k of ['xpub', 'descriptor', 'address'] as const) {
    const v = body[k];
    if (typeof v === 'string' && v.trim() !== '') input[k] = v;
  }
  if (typeof body.view_key === 'string' && body.view_key.trim() !== '') input.viewKey = body.view_key;
  return input;
}

export const custodyRoutes: DashboardRouteGroup = async (app, { ctx }) => {
  dashboardRoute(app, custodyApi.receiving, async ({ merchant }) => ({
    networks: (await receivingOverview(ctx, merchant.id)).map((n) => ({ ...n, inputs: [...n.inputs] })),
    hot_networks: ctx.chains.hotRealNetworks(),
  }));

  dashboardRoute(app, custodyApi.setReceiving, async ({ signedIn, merchant, body, actor, req }) => {
    if (signedIn.user.role !== 'owner' || signedIn.user.merchant_id !== merchant.id) {
      throw new RoleForbiddenError('Only an owner of the merchant can change what its payments are received into.');
    }
    await recheckPassword(ctx, signedIn, body.password, req.ip);
    const network = typeof body.network === 'string' ? body.network.trim().toUpperCase() : '';
    if (network === '') throw new UserInputError('Choose the network.');
    try {
      // The password just given is the confirmation that replacing is meant.
      const r = await changeCustody(ctx, { merchantId: merchant.id, network, input: inputOf(body), actor: `dashboard:${signedIn.user.id}`, by: actor, replace: true });
      return { outcome: r.outcome, network: r.network, summary: r.current.summary, old: r.old?.summary ?? null, warning: r.warning, warnings: r.warnings.map(({ code, params }) => ({ code, params })), webhook_url: r.webhookUrl };
    } catch (e) {
      if (e instanceof CustodyError) throw new UserInputError(`${e.message}. Nothing was stored.`);
      throw e;
    }
  });
};
