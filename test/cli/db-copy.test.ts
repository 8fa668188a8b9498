// `satchel db copy` as an operator runs it: a gateway's database with every kind of row, made
// through the gateway's own API and workers, copied into an empty PostgreSQL database by the real
// command; then the copy is opened by the gateway and read through the signed API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sql, type Kysely } from 'kysely';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.ts';
import type { Ctx } from '../../src/context.ts';
import { createContext } from '../../src/compose.ts';
import { buildApp } from '../../src/http/app.ts';
import { signBody } from '../../src/webhooks/signature.ts';
import { createMerchant, type Merchant } from '../../src/merchants/store.ts';
import { simulatePay } from '../../src/simulator/payments.ts';
import { createUser } from '../../src/dashboard/users.ts';
import { createWorkers } from '../../src/worker/index.ts';
import { stopRefills } from '../../src/chain/allocate.ts';
import { openStorage } from '../../src/db/dialect.ts';
import { copyDatabase } from '../../src/db/copy.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { backends, type Backend } from '../helpers/backends.ts';
import { TEST_MNEMONIC } from '../helpers/gateway.ts';
import { ROOT } from '../helpers/spawn.ts';
import { ADDR } from '../payouts/harness.ts';
import { runCli } from '../../src/cli/main.ts';
import { SeedMismatchError } from '../../src/chain/seed-record.ts';

const run = promisify(execFile);
const all = await backends();
const pg = all.find((b) => b.name === 'postgres');

async function signed(app: FastifyInstance, m: Merchant, path: string, body: unknown, key: 'payment' | 'payout' = 'payment') {
  const raw = JSON.stringify(body);
  const res = await app.inject({ method: 'POST', url: path, payload: raw, headers: { 'content-type': 'application/json', merchant: m.id, sign: signBody(raw, key === 'payment' ? m.payment_key : m.payout_key) } });
  return res.json() as { state: number; result: Record<string, any> };
}

/** Every table's rows, in a stable order, for comparing two databases. */
async function dump(db: Kysely<any>, tables: string[]): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const t of tables) {
    const rows = await db.selectFrom(t).selectAll().execute();
    out[t] = rows.map((r) => JSON.stringify(Object.fromEntries(Object.entries(r).map(([k, v]) => [k, Buffer.isBuffer(v) ? v.toString('hex') : v])))).sort();
  }
  return out;
}

describe.skipIf(!pg).each(all)('satchel db copy from $name into PostgreSQL', (source: Backend) => {
  let dir: string;
  let env: Record<string, string>;
  let ctx: Ctx;
  let app: FastifyInstance;
  let merchant: Merchant;
  let invoice: string;
  const drops: Array<() => Promise<void>> = [];
  const fresh = async () => {
    const db = await pg!.create();
    drops.push(db.drop);
    return db.databaseUrl!;
  };

  const satchel = async (...args: string[]) => {
    try {
      const r = await run(process.execPath, [join(ROOT, 'bin/satchel.js'), ...args], { env, cwd: ROOT });
      return { code: 0, out: r.stdout, err: r.stderr };
    } catch (e) {
      const x = e as { code: number; stdout: string; stderr: string };
      return { code: x.code, out: x.stdout, err: x.stderr };
    }
  };

  /** The same command in this process (a spawned one costs seconds of start-up on a busy machine). */
  const inProcess = async (...args: string[]) => {
    const saved = { ...process.env };
    Object.assign(process.env, env);
    const out: string[] = [];
    const err: string[] = [];
    try {
      const code = await runCli(args, { log: (s) => out.push(s), error: (s) => err.push(s) });
      return { code, out: out.join('\n'), err: err.join('\n') };
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
    }
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'satchel-copy-'));
    const src = await source.create();
    drops.push(src.drop);
    env = { ...(process.env as Record<string, string>), SATCHEL_DATA_DIR: dir, SATCHEL_MNEMONIC: TEST_MNEMONIC, SATCHEL_ALLOW_PRIVATE_CALLBACKS: '1', LOG_LEVEL: 'silent', DATABASE_URL: src.databaseUrl ?? '' };
    ctx = await createContext(loadConfig(env));
    app = await buildApp(ctx, { logger: false });
    merchant = await createMerchant(ctx.storage.db, 'Moving shop');
    // A paid invoice (transfers, ledger, a webhook to an unreachable target: outbox and attempts),
    // a payout sent by the worker, a static wallet, a dashboard user, chain cursors.
    const inv = await signed(app, merchant, '/v1/payment', { amount: '50', currency: 'USDT', network: 'TRON', order_id: 'move-1', url_callback: 'http://127.0.0.1:9/cb' });
    invoice = inv.result.uuid;
    await simulatePay(ctx, { invoice });
    await signed(app, merchant, '/v1/payment', { amount: '5', currency: 'USDT', network: 'TRON', order_id: 'move-2' });
    expect((await signed(app, merchant, '/v1/wallet', { currency: 'USDT', network: 'TRON', order_id: 'wallet-1' })).state).toBe(0);
    expect((await signed(app, merchant, '/v1/payout', { amount: '3', currency: 'USDT', network: 'TRON', order_id: 'out-1', address: ADDR.TRON, is_subtract: true }, 'payout')).state).toBe(0);
    await createUser(ctx.storage, { merchantId: merchant.id, email: 'owner@example.test', role: 'owner' }, Date.now());
    await createWorkers(ctx, { error: () => {} }).tick();
    // A table with a sequence, as a later migration might add: the copy must continue it.
    if (source.name === 'sqlite') await sql`create table copy_probe (id integer primary key autoincrement, note text)`.execute(ctx.storage.db);
    else await sql`create table copy_probe (id bigserial primary key, note text)`.execute(ctx.storage.db);
    await sql`insert into copy_probe (note) values ('a'), ('b'), ('c')`.execute(ctx.storage.db);
    await stopRefills(ctx.storage);
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await stopRefills(ctx.storage);
    await ctx?.storage.close();
    for (const d of drops) await d().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  });

  it('copies every table, verified; the gateway reads the copy; a second copy is refused', { timeout: 120_000 }, async () => {
    const target = await fresh();
    const prepared = openStorage({ databaseUrl: target });
    await migrateToLatest(prepared);
    await sql`create table copy_probe (id bigserial primary key, note text)`.execute(prepared.db);
    await prepared.close();

    const copied = await satchel('db', 'copy', '--to', target.replace('postgres@', 'postgres:hunter2@'));
    expect(copied.err).toBe('');
    expect(copied.code).toBe(0);
    expect(copied.out).toMatch(/Copied \d+ tables \(\d+ rows\)/);
    expect(copied.out).toContain('Verified');
    expect(copied.out).not.toContain('hunter2');

    // Row for row the same, in every table the migrations create (found from the catalogue).
    const tables = (await ctx.storage.db.introspection.getTables()).map((t) => t.name);
    const copy = openStorage({ databaseUrl: target });
    try {
      const [a, b] = [await dump(ctx.storage.db, tables), await dump(copy.db, tables)];
      expect(b).toEqual(a);
      const filled = tables.filter((t) => a[t]!.length > 0);
      for (const t of ['merchants', 'invoices', 'addresses', 'hd_counters', 'chain_transfers', 'chain_cursors', 'balances', 'ledger_entries', 'webhooks', 'webhook_attempts', 'payouts', 'static_wallets', 'dashboard_users', 'order_ids', 'seed_record']) {
        expect(filled).toContain(t);
      }
      const next = await sql<{ id: number }>`insert into copy_probe (note) values ('d') returning id`.execute(copy.db);
      expect(Number(next.rows[0]!.id)).toBe(4);
    } finally {
      await copy.close();
    }

    // The gateway on the copy: the paid invoice through the signed API, and a new invoice whose
    // address continues the copied index (never one handed out before).
    const onCopy = await createContext(loadConfig({ ...env, DATABASE_URL: target }));
    try {
      const copyApp = await buildApp(onCopy, { logger: false });
      const info = await signed(copyApp, merchant, '/v1/payment/info', { uuid: invoice });
      expect(info.result).toMatchObject({ uuid: invoice, payment_status: 'paid', order_id: 'move-1' });
      const again = await signed(copyApp, merchant, '/v1/payment', { amount: '7', currency: 'USDT', network: 'TRON', order_id: 'after-move' });
      const used = await ctx.storage.db.selectFrom('addresses').select('address').execute();
      expect(used.map((u) => u.address)).not.toContain(again.result.address);
      await copyApp.close();
    } finally {
      await stopRefills(onCopy.storage);
      await onCopy.storage.close();
    }

    // The copy keeps the seed record: another mnemonic is refused on it as on the original.
    await expect(createContext(loadConfig({ ...env, DATABASE_URL: target, SATCHEL_MNEMONIC: 'legal winner thank year wave sausage worth useful legal winner thank yellow' }))).rejects.toBeInstanceOf(SeedMismatchError);

    const second = await inProcess('db', 'copy', '--to', target);
    expect(second.code).toBe(2);
    expect(second.err).toContain('already holds Satchel data');
    expect((await inProcess('db', 'copy', '--to', 'mysql://x@y/z')).code).toBe(2);
  });

  it('a copy that fails verification is reported and leaves the target empty', { timeout: 60_000 }, async () => {
    await sql`drop table copy_probe`.execute(ctx.storage.db);
    const target = await fresh();
    const balance = await ctx.storage.db.selectFrom('balances').select(['merchant_id', 'kind', 'currency', 'amount']).where('merchant_id', '=', merchant.id).executeTakeFirstOrThrow();
    await ctx.storage.db.updateTable('balances').set({ amount: '1000000' }).where('merchant_id', '=', merchant.id).where('kind', '=', balance.kind).where('currency', '=', balance.currency).execute();
    try {
      const r = await inProcess('db', 'copy', '--to', target);
      expect(r.code).toBe(1);
      expect(r.err).toContain('nothing was written');
      expect(r.err).toContain(`ledger: balance ${merchant.id} ${balance.kind} ${balance.currency} is 1000000 but its ledger entries sum to ${balance.amount}`);
      const t = openStorage({ databaseUrl: target });
      expect(await t.db.selectFrom('merchants').selectAll().execute()).toEqual([]);
      await t.close();
    } finally {
      await ctx.storage.db.updateTable('balances').set({ amount: balance.amount }).where('merchant_id', '=', merchant.id).where('kind', '=', balance.kind).where('currency', '=', balance.currency).execute();
    }
  });

  it('copies a table larger than one chunk without losing or repeating a row', { timeout: 60_000 }, async () => {
    const target = openStorage({ databaseUrl: await fresh() });
    try {
      const copied = await copyDatabase(ctx.storage, target, { chunkRows: 2 });
      const tables = copied.map((c) => c.table);
      expect(copied.find((c) => c.table === 'address_pool')!.rows).toBeGreaterThan(2);
      expect(await dump(target.db, tables)).toEqual(await dump(ctx.storage.db, tables));
    } finally {
      await target.close();
    }
  });
});
