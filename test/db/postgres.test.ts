// PostgreSQL going away under a running gateway (issue 15): a TCP proxy between the gateway and the
// server drops every connection and refuses new ones, then lets them through again. Nothing may
// end the process; requests answer 503 with the server failure envelope while the database is gone;
// the workers carry on by themselves once it is back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openStorage, type Storage } from '../../src/db/dialect.ts';
import { DatabaseUnavailableError } from '../../src/errors.ts';
import { loadConfig } from '../../src/config.ts';
import { createContext } from '../../src/compose.ts';
import { createMerchant, type Merchant } from '../../src/merchants/store.ts';
import { signBody } from '../../src/webhooks/signature.ts';
import { backends } from '../helpers/backends.ts';
import { TEST_MNEMONIC } from '../helpers/gateway.ts';
import { startPgProxy, type PgProxy } from '../helpers/pg-proxy.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { startScript, type Proc } from '../helpers/spawn.ts';

const postgres = (await backends()).filter((b) => b.name === 'postgres');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe.each(postgres)('PostgreSQL connections lost and regained', (backend) => {
  let db: Awaited<ReturnType<(typeof backend)['create']>>;
  let proxy: PgProxy;

  beforeAll(async () => {
    db = await backend.create();
    proxy = await startPgProxy(db.databaseUrl!);
  });
  afterAll(async () => {
    await proxy?.close();
    await db?.drop();
  });

  it('runs the lock session\'s queries one at a time: concurrent lock calls all answer, with no node-postgres warning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    const storage = openStorage({ databaseUrl: db.databaseUrl! });
    try {
      const names = Array.from({ length: 12 }, (_, i) => `turns:${i}`);
      const held = await Promise.all(names.map((n) => storage.withLock(n, 1000, async () => n)));
      expect(held).toEqual(names.map((n) => ({ value: n })));
      expect(await Promise.all(names.map((n) => storage.tryAdvisoryLock(n)))).toEqual(names.map(() => true));
      await sleep(50);
      expect(warnings.filter((m) => m.includes('already executing a query'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await storage.close();
    }
  });

  it('fails the work in flight cleanly, keeps the process alive and reconnects', async () => {
    const storage: Storage = openStorage({ databaseUrl: proxy.url });
    try {
      await sql`select 1`.execute(storage.db);
      // A client checked out by a transaction that is waiting on something else when the server goes.
      let resume!: () => void;
      const paused = new Promise<void>((r) => (resume = r));
      const inTransaction = storage.write(async (trx) => {
        await sql`select 1`.execute(trx);
        await paused;
        await sql`select 2`.execute(trx);
      });
      inTransaction.catch(() => {});
      // The lock session too (a scanner holding its lock).
      const held = storage.withLock('scan:TEST', 0, async () => {
        await paused;
        return 'scanned';
      });
      await sleep(100);
      proxy.cut();
      await sleep(200); // the checked-out clients see their sockets close while idle
      resume();
      await expect(inTransaction).rejects.toBeInstanceOf(DatabaseUnavailableError);
      expect((await held)?.value).toBe('scanned'); // the work ran; unlocking a dead session is moot
      await expect(sql`select 1`.execute(storage.db)).rejects.toBeInstanceOf(DatabaseUnavailableError);
      await expect(storage.withLock('scan:TEST', 0, async () => 1)).rejects.toBeInstanceOf(DatabaseUnavailableError);

      proxy.restore();
      const r = await sql<{ n: number }>`select 3 as n`.execute(storage.db);
      expect(r.rows[0]!.n).toBe(3);
      expect(await storage.withLock('scan:TEST', 0, async () => 'again')).toEqual({ value: 'again' });
    } finally {
      proxy.restore();
      await storage.close();
    }
  });

  describe('a gateway process', () => {
    let dir: string;
    let gw: Proc;
    let rx: Receiver;
    let merchant: Merchant;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'satchel-pgcut-'));
      const env = {
        SATCHEL_DATA_DIR: dir,
        SATCHEL_MNEMONIC: TEST_MNEMONIC,
        LOG_LEVEL: 'fatal',
        PORT: '0',
        SATCHEL_WORKER_INTERVAL_MS: '20',
        SATCHEL_ALLOW_PRIVATE_CALLBACKS: '1',
        SATCHEL_PG_CONNECT_TIMEOUT_MS: '1000',
        DATABASE_URL: proxy.url,
      };
      const setup = await createContext(loadConfig({ ...env, DATABASE_URL: db.databaseUrl! }));
      merchant = await createMerchant(setup.storage.db, 'Outage shop');
      await setup.storage.close();
      rx = await startReceiver(200);
      gw = await startScript('src/main.ts', env);
    }, 60_000);
    afterAll(async () => {
      await gw?.stop();
      await rx?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    const createInvoice = async (n: number) => {
      const raw = JSON.stringify({ amount: '10', currency: 'USDT', network: 'TRON', order_id: `outage-${n}`, url_callback: rx.url });
      const res = await fetch(`${gw.url}/v1/payment`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', merchant: merchant.id, sign: signBody(raw, merchant.payment_key) },
        body: raw,
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const pay = (uuid: string) =>
      fetch(`${gw.url}/simulator/pay`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ invoice: uuid }) });

    it('answers 503 while the database is gone and carries on when it is back', { timeout: 90_000 }, async () => {
      const before = await createInvoice(1);
      expect(before.status).toBe(200);
      expect((await fetch(`${gw.url}/readyz`)).status).toBe(200);

      // Cut while requests and worker rounds are running, so that clients are checked out.
      const inFlight = Array.from({ length: 6 }, (_, i) => createInvoice(100 + i).catch(() => null));
      proxy.cut();
      const answered = await Promise.all(inFlight);
      for (const a of answered) if (a) expect([200, 503]).toContain(a.status);

      const during = await createInvoice(2);
      expect(during).toEqual({ status: 503, body: { message: 'Server error', code: 503, error: null } });
      const ready = await fetch(`${gw.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status: 'unavailable' });
      await sleep(1500); // many worker rounds fail meanwhile
      expect(gw.child.exitCode).toBeNull();
      expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);

      proxy.restore();
      await until('readyz', async () => (await fetch(`${gw.url}/readyz`)).status === 200);
      const after = await createInvoice(3);
      expect(after.status).toBe(200);
      expect((await pay(after.body.result.uuid)).status).toBe(200);
      expect((await pay(before.body.result.uuid)).status).toBe(200);
      // The worker process reconnected by itself: both invoices' webhooks arrive.
      await until('webhooks', async () => {
        const paid = new Set(rx.deliveries.filter((d) => d.json.status === 'paid').map((d) => d.json.uuid));
        return paid.has(after.body.result.uuid) && paid.has(before.body.result.uuid);
      });
      expect(gw.child.exitCode).toBeNull();
    });
  });
});
