// Graceful shutdown (issue 15): on SIGTERM a gateway stops taking work, finishes the webhook
// attempts under way, hands back the ones it claimed but had not begun (no lease left behind), closes
// its pool and exits 0. The next process delivers the rest at once, and nothing is sent twice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import type { Ctx } from '../../src/context.ts';
import { createContext } from '../../src/compose.ts';
import { createMerchant, type Merchant } from '../../src/merchants/store.ts';
import { signBody } from '../../src/webhooks/signature.ts';
import { backends } from '../helpers/backends.ts';
import { TEST_MNEMONIC } from '../helpers/gateway.ts';
import { startScript, type Proc } from '../helpers/spawn.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

const INVOICES = 14;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(await backends())('SIGTERM on $name', (backend) => {
  let dir: string;
  let db: Awaited<ReturnType<(typeof backend)['create']>>;
  let env: Record<string, string>;
  let merchant: Merchant;
  let rx: Receiver;
  let ctx: Ctx;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'satchel-term-'));
    db = await backend.create();
    env = {
      SATCHEL_DATA_DIR: dir,
      SATCHEL_MNEMONIC: TEST_MNEMONIC,
      LOG_LEVEL: 'fatal',
      PORT: '0',
      SATCHEL_WORKER_INTERVAL_MS: '20',
      SATCHEL_ALLOW_PRIVATE_CALLBACKS: '1',
      ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}),
    };
    ctx = await createContext(loadConfig(env));
    merchant = await createMerchant(ctx.storage.db, 'Term shop');
    rx = await startReceiver(() => ({ status: 200, delayMs: 4000 }));
  });
  afterAll(async () => {
    await ctx?.storage.close();
    await rx?.close();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finishes what is under way, hands back the rest and exits 0', { timeout: 90_000 }, async () => {
    let gw: Proc = await startScript('src/main.ts', env);
    const post = async (path: string, body: unknown, sign = false) => {
      const raw = JSON.stringify(body);
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (sign) Object.assign(headers, { merchant: merchant.id, sign: signBody(raw, merchant.payment_key) });
      const res = await fetch(gw.url + path, { method: 'POST', headers, body: raw });
      expect(res.status).toBe(200);
      return ((await res.json()) as { result: any }).result;
    };
    // Webhooks are queued as the invoices are paid; the worker picks them up within 20 ms.
    for (let i = 0; i < INVOICES; i++) {
      const inv = await post('/v1/payment', { amount: '5', currency: 'USDT', network: 'TRON', order_id: `t-${i}`, url_callback: rx.url }, true);
      await post('/simulator/pay', { invoice: inv.uuid });
    }
    const deadline = Date.now() + 10_000;
    while (rx.deliveries.length < 8 && Date.now() < deadline) await sleep(10);
    expect(rx.deliveries.length).toBeGreaterThanOrEqual(1);

    const t0 = Date.now();
    gw.child.kill('SIGTERM');
    const code = await new Promise<number | null>((r) => gw.child.once('exit', (c) => r(c)));
    const took = Date.now() - t0;
    expect(code).toBe(0);
    // The 4 s attempts under way finish; the claimed ones behind them are not begun (that would
    // take 4 s more).
    expect(took).toBeLessThan(6500);

    const rows = await ctx.storage.db.selectFrom('webhooks').select(['id', 'status', 'next_attempt_at', 'attempts']).execute();
    expect(rows).toHaveLength(INVOICES);
    const delivered = rows.filter((r) => r.status === 'delivered');
    const pending = rows.filter((r) => r.status === 'pending');
    expect(delivered.length + pending.length).toBe(INVOICES);
    expect(pending.length).toBeGreaterThan(0);
    // Every attempt the receiver saw was recorded before exit...
    expect(delivered.length).toBe(rx.deliveries.length);
    // ...and no webhook is left leased to the process that is gone.
    for (const r of pending) expect(Number(r.next_attempt_at)).toBeLessThanOrEqual(Date.now());

    // A new process delivers the rest straight away, none twice.
    rx.answer = () => ({ status: 200 });
    gw = await startScript('src/main.ts', env);
    try {
      const until = Date.now() + 15_000;
      while (Date.now() < until) {
        const left = await ctx.storage.db.selectFrom('webhooks').select('id').where('status', '=', 'pending').execute();
        if (left.length === 0) break;
        await sleep(50);
      }
      const ids = rx.deliveries.map((r) => String(r.headers['x-satchel-delivery']));
      expect(new Set(ids).size).toBe(INVOICES);
      expect(ids).toHaveLength(INVOICES);
    } finally {
      await gw.stop();
    }
  });
});
