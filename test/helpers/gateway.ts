// A gateway for tests: its own database, a fixed HD mnemonic, a movable clock, and a signed client.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from '../../src/config.ts';
import type { Ctx } from '../../src/context.ts';
import { createContext } from '../../src/compose.ts';
import { buildApp, type AppOptions } from '../../src/http/app.ts';
import { createMerchant, type Merchant } from '../../src/merchants/store.ts';
import { stopRefills } from '../../src/chain/allocate.ts';
import { signBody } from '../../src/webhooks/signature.ts';
import type { Backend } from './backends.ts';

/** A live-mode gateway (a real network configured) prices from the static table only when told
 * to: tests of chains run offline and must not depend on the exchanges' prices. */
export const STATIC_RATES = JSON.stringify({ sources: { static: { enabled: true } } });

export const TEST_MNEMONIC =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

export interface TestGateway {
  ctx: Ctx;
  app: FastifyInstance;
  merchant: Merchant;
  config: Config;
  clock: { now: number; advance(ms: number): void };
  /** POST a signed JSON body (string bodies are sent byte for byte). */
  api(path: string, body?: unknown, opts?: { key?: 'payment' | 'payout'; merchant?: Merchant; headers?: Record<string, string> }): Promise<{ status: number; body: any; raw: string }>;
  close(): Promise<void>;
}

export async function startTestGateway(backend: Backend, opts: { env?: Record<string, string>; app?: AppOptions } = {}): Promise<TestGateway> {
  const dataDir = mkdtempSync(join(tmpdir(), 'satchel-test-'));
  const db = await backend.create();
  const config = loadConfig({
    SATCHEL_DATA_DIR: dataDir,
    SATCHEL_MNEMONIC: TEST_MNEMONIC,
    SATCHEL_PUBLIC_URL: 'https://pay.example.test',
    SATCHEL_ALLOW_PRIVATE_CALLBACKS: '1',
    LOG_LEVEL: 'silent',
    ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}),
    ...opts.env,
  });
  const clock = {
    now: Date.UTC(2026, 0, 15, 12, 0, 0),
    advance(ms: number) {
      clock.now += ms;
    },
  };
  const ctx = await createContext(config, { now: () => clock.now });
  const app = await buildApp(ctx, { logger: false, ...opts.app });
  await app.ready();
  const merchant = await createMerchant(ctx.storage.db, 'Test shop');
  return {
    ctx,
    app,
    merchant,
    config,
    clock,
    async api(path, body = {}, o = {}) {
      const m = o.merchant ?? merchant;
      const raw = typeof body === 'string' ? body : JSON.stringify(body);
      const key = o.key === 'payout' ? m.payout_key : m.payment_key;
      const res = await app.inject({
        method: 'POST',
        url: path,
        headers: { 'content-type': 'application/json', merchant: m.id, sign: signBody(raw, key), ...o.headers },
        payload: raw,
      });
      let parsed: unknown = null;
      try {
        parsed = res.body ? JSON.parse(res.body) : null;
      } catch {
        parsed = null;
      }
      return { status: res.statusCode, body: parsed, raw: res.body };
    },
    async close() {
      await app.close();
      await stopRefills(ctx.storage);
      await ctx.storage.close();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
