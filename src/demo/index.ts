// The demo shop on the gateway itself, at /demo: the example a merchant copies (docs/widget.md).
// Its merchant: the one whose id is in SATCHEL_DEMO_MERCHANT, else the first merchant named
// "Demo shop" (the gateway creates one on its first start). SATCHEL_DEMO_MERCHANT=off turns
// /demo off. It only creates test-mode invoices: on a real network it refuses.
import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../context.ts';
import { findMerchant, listMerchants, type Merchant } from '../merchants/store.ts';
import { merchantClient, type Envelope, type Transport } from './merchant-client.ts';
import { PAY_WITH, shopRoutes } from './shop.ts';

export const DEMO_PATH = '/demo';
export const DEMO_MERCHANT_NAME = 'Demo shop';

type Env = Record<string, string | undefined>;

function disabled(env: Env): boolean {
  return env.SATCHEL_DEMO_MERCHANT?.trim().toLowerCase() === 'off';
}

async function demoMerchant(ctx: Ctx, chosen: string | undefined): Promise<Merchant | undefined> {
  if (chosen) return findMerchant(ctx.storage.db, chosen);
  return (await listMerchants(ctx.storage.db)).find((m) => m.name === DEMO_MERCHANT_NAME);
}

/** Registers /demo once per app (a second call, e.g. from a test's plugins, does nothing). */
export async function demoRoutes(app: FastifyInstance, ctx: Ctx, env: Env = process.env): Promise<void> {
  if (disabled(env) || app.hasRoute({ method: 'GET', url: DEMO_PATH })) return;
  const chosen = env.SATCHEL_DEMO_MERCHANT?.trim() || undefined;
  // In-process: the signed request goes through the real merchant API, without a network hop.
  const transport: Transport = async (path, { body, headers }) =>
    (await app.inject({ method: 'POST', url: path, headers, payload: body })).json<Envelope>();
  await shopRoutes(app, {
    base: DEMO_PATH,
    gatewayUrl: ctx.config.publicUrl,
    shopUrl: () => `${ctx.config.publicUrl}${DEMO_PATH}`,
    async client() {
      if (!ctx.chains.isTestNetwork(PAY_WITH.network) || !ctx.chains.offered(PAY_WITH.network)) {
        return { unavailable: `The demo pays on ${PAY_WITH.network}, which is not a simulated network this gateway offers, so it is off.` };
      }
      const merchant = await demoMerchant(ctx, chosen);
      if (!merchant || merchant.is_blocked) {
        return {
          unavailable: `No demo merchant: create one named "${DEMO_MERCHANT_NAME}" (satchel merchant create) or set SATCHEL_DEMO_MERCHANT to a merchant id.`,
        };
      }
      return merchantClient(merchant.id, merchant.payment_key, transport);
    },
  });
}

/** The line `npm start` prints, or null when /demo is off or has no merchant. */
export async function demoLink(ctx: Ctx, env: Env = process.env): Promise<string | null> {
  if (disabled(env) || !ctx.chains.isTestNetwork(PAY_WITH.network) || !ctx.chains.offered(PAY_WITH.network)) return null;
  if (!(await demoMerchant(ctx, env.SATCHEL_DEMO_MERCHANT?.trim() || undefined))) return null;
  return `Demo shop (test mode, pays with the widget): ${ctx.config.publicUrl}${DEMO_PATH}`;
}
