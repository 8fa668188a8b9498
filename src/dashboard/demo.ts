// The embedded default's first start: the demo merchant gets an owner and the banner a one-time
// link into the dashboard, so `npm start` leads straight in.
import type { Ctx } from '../context.ts';
import type { Merchant } from '../merchants/store.ts';
import { createUser, issueSetPasswordLink, setPasswordUrl } from './users.ts';

export const DEMO_OWNER_EMAIL = 'owner@example.com';

export async function demoDashboardBanner(ctx: Ctx, merchant: Merchant): Promise<string> {
  const now = ctx.now();
  const user = await createUser(ctx.storage, { merchantId: merchant.id, email: DEMO_OWNER_EMAIL, role: 'owner' }, now);
  const link = setPasswordUrl(ctx.config.publicUrl, await issueSetPasswordLink(ctx.storage, user.id, now));
  return [
    `Dashboard: choose a password for ${user.email} (link valid 24 hours, once) and you are signed in:`,
    `  ${link}`,
    `  later: ${ctx.config.publicUrl}/dashboard  (new link: npx satchel user reset-password --email ${user.email})`,
  ].join('\n');
}
