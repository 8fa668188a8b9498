// Two gateways on one database (issue 15): the api side runs the simulator's chain reads inline
// while both sides' workers poll the same simulated chain. One scanner per network at a time, and a
// transfer reported twice is recorded once: no request fails and every payment is credited once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.ts';
import type { Ctx } from '../../src/context.ts';
import { createContext } from '../../src/compose.ts';
import { buildApp } from '../../src/http/app.ts';
import { createMerchant, type Merchant } from '../../src/merchants/store.ts';
import { signBody } from '../../src/webhooks/signature.ts';
import { runWorkers } from '../../src/worker/index.ts';
import { createSink } from '../../src/chain/ingest.ts';
import { balanceOf } from '../../src/ledger/index.ts';
import { backends } from '../helpers/backends.ts';
import { TEST_MNEMONIC } from '../helpers/gateway.ts';

const PAYMENTS = 30;

describe.each(await backends())('two gateways on one $name database', (backend) => {
  let dir: string;
  let db: Awaited<ReturnType<(typeof backend)['create']>>;
  const nodes: Array<{ ctx: Ctx; app: FastifyInstance; workers: { stop(): Promise<void> } }> = [];
  let merchant: Merchant;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'satchel-scan-'));
    db = await backend.create();
    const config = loadConfig({
      SATCHEL_DATA_DIR: dir,
      SATCHEL_MNEMONIC: TEST_MNEMONIC,
      LOG_LEVEL: 'silent',
      ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}),
    });
    // On PostgreSQL each has its own pool and lock session, as two processes would. SQLite allows
    // one worker process (worker.lock), and two connections in one process would block each other's
    // event loop, so there the two servers share one context and its workers.
    for (let i = 0; i < 2; i++) {
      const shared = backend.name === 'sqlite' ? nodes[0] : undefined;
      const ctx = shared?.ctx ?? (await createContext(config));
      const app = await buildApp(ctx, { logger: false });
      await app.ready();
      const workers = shared ? { stop: async () => {} } : runWorkers(ctx, { intervalMs: 1, log: { error: (o) => console.error(o) } });
      nodes.push({ ctx, app, workers });
    }
    merchant = await createMerchant(nodes[0]!.ctx.storage.db, 'Two gateways');
  });
  afterAll(async () => {
    for (const n of nodes) {
      await n.workers.stop();
      await n.app.close();
    }
    for (const ctx of new Set(nodes.map((n) => n.ctx))) await ctx.storage.close();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const post = async (app: FastifyInstance, url: string, body: unknown, signed = false) => {
    const raw = JSON.stringify(body);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (signed) Object.assign(headers, { merchant: merchant.id, sign: signBody(raw, merchant.payment_key) });
    const res = await app.inject({ method: 'POST', url, headers, payload: raw });
    return { status: res.statusCode, body: JSON.parse(res.body) as any };
  };

  it('answers every concurrent simulated payment and credits each once', { timeout: 120_000 }, async () => {
    const invoices: string[] = [];
    for (let i = 0; i < PAYMENTS; i++) {
      const r = await post(nodes[i % 2]!.app, '/v1/payment', { amount: '7', currency: 'USDT', network: 'TRON', order_id: `two-${i}` }, true);
      expect(r.status).toBe(200);
      invoices.push(r.body.result.uuid);
    }
    const answers = await Promise.all(invoices.map((uuid, i) => post(nodes[i % 2]!.app, '/simulator/pay', { invoice: uuid })));
    expect(answers.map((a) => a.status)).toEqual(invoices.map(() => 200));

    const read = nodes[0]!.ctx.storage.db;
    for (const uuid of invoices) {
      const inv = await read.selectFrom('invoices').select(['status', 'credited']).where('id', '=', uuid).executeTakeFirstOrThrow();
      expect({ uuid, status: inv.status }).toEqual({ uuid, status: 'paid' });
      const entries = await read.selectFrom('ledger_entries').select('amount').where('ref_id', '=', uuid).execute();
      expect({ uuid, entries: entries.length }).toEqual({ uuid, entries: 1 });
    }
    const credited = await read.selectFrom('invoices').select('credited').where('id', 'in', invoices).execute();
    const total = credited.reduce((s, r) => s + Number(r.credited), 0);
    expect(Number(await balanceOf(read, merchant.id, 'business', 'USDT'))).toBeCloseTo(total, 8);
  });

  it('records a transfer reported by two scanners at once exactly once', async () => {
    const r = await post(nodes[0]!.app, '/v1/payment', { amount: '3', currency: 'USDT', network: 'TRON', order_id: 'dup-1' }, true);
    const inv = await nodes[0]!.ctx.storage.db.selectFrom('invoices').select(['address', 'payer_amount']).where('id', '=', r.body.result.uuid).executeTakeFirstOrThrow();
    const transfer = {
      network: 'TRON', currency: 'USDT', txid: 'ab'.repeat(32), index: 0, from: null, to: inv.address!,
      amount: inv.payer_amount!, blockHeight: 5, blockHash: 'cd'.repeat(32), confirmations: 100,
    };
    // Bypass the scanner lock on purpose: the sinks of both gateways race on the same row.
    await Promise.all([createSink(nodes[0]!.ctx).transfer(transfer), createSink(nodes[1]!.ctx).transfer(transfer), createSink(nodes[1]!.ctx).transfer(transfer)]);
    const rows = await nodes[0]!.ctx.storage.db.selectFrom('chain_transfers').selectAll().where('txid', '=', transfer.txid).execute();
    expect(rows).toHaveLength(1);
    const entries = await nodes[0]!.ctx.storage.db.selectFrom('ledger_entries').select('amount').where('ref_id', '=', r.body.result.uuid).execute();
    expect(entries).toHaveLength(1);
    expect(nodes[0]!.ctx.chains.driver('TRON').kind).toBe('simulated');
  });
});
