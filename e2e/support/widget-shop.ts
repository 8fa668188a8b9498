// The cross-origin setup of the widget tests: a real gateway on 127.0.0.1 and the demo shop,
// standalone, on 127.0.0.2 (another origin, as a merchant's site is), using the gateway's merchant.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { createContext } from '../../src/compose.ts';
import { DEMO_MERCHANT_NAME, demoRoutes } from '../../src/demo/index.ts';
import { buildApp } from '../../src/http/app.ts';
import { createMerchant } from '../../src/merchants/store.ts';
import { startScript, type Proc } from '../../test/helpers/spawn.ts';
import { freePort, MNEMONIC, startGatewayProcess, type E2EGateway } from './gateway.ts';

export interface WidgetSetup {
  gateway: E2EGateway;
  /** The shop page, e.g. http://127.0.0.2:41234/demo */
  shopUrl: string;
  shopOrigin: string;
  stop(): Promise<void>;
}

export const SHOP_HOST = process.env.SATCHEL_E2E_SHOP_HOST ?? '127.0.0.2';

export async function startWidgetSetup(): Promise<WidgetSetup> {
  const gateway = await startGatewayProcess({ host: '127.0.0.1' });
  let shop: Proc;
  try {
    shop = await startScript('src/demo/standalone.ts', {
      HOST: SHOP_HOST,
      PORT: String(await freePort(SHOP_HOST)),
      SATCHEL_GATEWAY_URL: gateway.url,
      SATCHEL_DEMO_MERCHANT: gateway.merchant.id,
      SATCHEL_DEMO_PAYMENT_KEY: gateway.merchant.payment_key,
      LOG_LEVEL: 'warn',
    });
  } catch (error) {
    await gateway.stop();
    throw error;
  }
  return {
    gateway,
    shopUrl: shop.url,
    shopOrigin: new URL(shop.url).origin,
    async stop() {
      await shop.stop();
      await gateway.stop();
    },
  };
}

/**
 * A gateway in this process with /demo registered (as src/http/app.ts does once wired), its
 * "Demo shop" merchant created: the same-origin case, shop and gateway on one host.
 */
export async function startGatewayWithDemo(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'satchel-e2e-demo-'));
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: String(port),
    SATCHEL_DATA_DIR: dataDir,
    SATCHEL_PUBLIC_URL: url,
    SATCHEL_MNEMONIC: MNEMONIC,
    LOG_LEVEL: 'warn',
  });
  const ctx = await createContext(config);
  await createMerchant(ctx.storage.db, DEMO_MERCHANT_NAME);
  // (A no-op once src/http/app.ts registers /demo itself.)
  const app = await buildApp(ctx, { logger: false, plugins: [demoRoutes] });
  await app.listen({ host: config.host, port });
  return {
    url,
    async stop() {
      await app.close();
      await ctx.storage.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
