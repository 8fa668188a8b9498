// Issue 3's crash test: the gateway is killed with SIGKILL at random moments while payments are
// being confirmed, and restarted, 20 times. Nothing may be lost, nothing credited twice, and every
// webhook reaches a receiver that answers 200 (once per delivery id; see the note at the end).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import type { Ctx } from '../../src/context.ts';
import { createContext } from '../../src/compose.ts';
import { createMerchant, type Merchant } from '../../src/merchants/store.ts';
import { signBody } from '../../src/webhooks/signature.ts';
import { Decimal } from '../../src/money/decimal.ts';
import { entriesSum, balanceOf } from '../../src/ledger/index.ts';
import { verifyLedger } from '../../src/ledger/verify.ts';
import { backends } from '../helpers/backends.ts';
import { TEST_MNEMONIC } from '../helpers/gateway.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { startScript, type Proc } from '../helpers/spawn.ts';

const ROUNDS = 20;
const INVOICES = 24;

describe.each(await backends())('crash safety on $name', (backend) => {
  let dir: string;
  let db: Awaited<ReturnType<(typeof backend)['create']>>;
  let env: Record<string, string>;
  let rx: Receiver;
  let merchant: Merchant;
  let ctx: Ctx;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'satchel-crash-'));
    db = await backend.create();
    env = {
      SATCHEL_DATA_DIR: dir,
      SATCHEL_MNEMONIC: TEST_MNEMONIC,
      LOG_LEVEL: 'warn',
      PORT: '0',
      SATCHEL_WORKER_INTERVAL_MS: '10',
      SATCHEL_ALLOW_PRIVATE_CALLBACKS: '1',
      ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}),
    };
    const setup = await createContext(loadConfig(env));
    merchant = await createMerchant(setup.storage.db, 'Crash shop');
    await setup.storage.close();
    rx = await startReceiver(200);
  });
  afterAll(async () => {
    await ctx?.storage.close();
    await rx?.close();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('loses nothing and credits nothing twice across 20 SIGKILLs', { timeout: 480_000 }, async () => {
    const start = () => startScript('src/main.ts', env);
    const post = async (gw: Proc, path: string, body: unknown, sign = false) => {
      const raw = JSON.stringify(body);
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (sign) Object.assign(headers, { merchant: merchant.id, sign: signBody(raw, merchant.payment_key) });
      const res = await fetch(gw.url + path, { method: 'POST', headers, body: raw });
      return (await res.json()) as { state: number; result: any };
    };

    let gw = await start();
    const invoices: string[] = [];
    for (let i = 0; i < INVOICES; i++) {
      const r = await post(gw, '/v1/payment', { amount: '50', currency: 'USDT', network: 'TRON', order_id: `crash-${i}`, url_callback: rx.url }, true);
      expect(r.state).toBe(0);
      invoices.push(r.result.uuid);
    }

    let kills = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // Payments in flight: some seen first and confirmed later, some partial, some confirmed at once.
      const actions = invoices.slice((round * 3) % INVOICES).slice(0, 6).map((uuid, k) => {
        const body = k % 3 === 0 ? { invoice: uuid, amount: '20', unconfirmed: true } : k % 3 === 1 ? { invoice: uuid, amount: '15' } : { invoice: uuid };
        const path = k % 4 === 3 ? '/simulator/confirm' : '/simulator/pay';
        return post(gw, path, path === '/simulator/confirm' ? { invoice: uuid } : body).catch(() => null);
      });
      await new Promise((r) => setTimeout(r, 20 + Math.floor(Math.random() * 250)));
      gw.child.kill('SIGKILL');
      await new Promise((r) => gw.child.once('exit', r));
      kills++;
      await Promise.all(actions);
      gw = await start();
    }
    expect(kills).toBe(ROUNDS);

    // Let everything settle: confirm what is still unconfirmed, then wait for every webhook. On a
    // loaded machine every payment of the kill rounds may have died in flight; one more payment on
    // a calm gateway makes sure the checks below always have webhooks to look at.
    await post(gw, '/simulator/pay', { invoice: invoices[0], amount: '1' });
    for (const uuid of invoices) await post(gw, '/simulator/confirm', { invoice: uuid });
    ctx = await createContext(loadConfig(env));
    // A webhook being delivered when the process died is leased to that process (60-90 s) before
    // another round may send it again.
    const deadline = Date.now() + 240_000;
    for (;;) {
      const pending = await ctx.storage.db.selectFrom('webhooks').select('id').where('status', '=', 'pending').execute();
      if (pending.length === 0) break;
      if (Date.now() > deadline) throw new Error(`${pending.length} webhooks still pending`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await gw.stop();

    // 1. Nothing lost: every transfer the simulated chain holds is counted on its invoice.
    let total = Decimal.ZERO;
    for (const uuid of invoices) {
      const inv = await ctx.storage.db.selectFrom('invoices').selectAll().where('id', '=', uuid).executeTakeFirstOrThrow();
      const onChain = await ctx.storage.db
        .selectFrom('sim_transactions')
        .select('amount')
        .where('to_address', '=', inv.address!)
        .where('status', '=', 'mined')
        .execute();
      const chainSum = onChain.reduce((s, r) => s.add(r.amount), Decimal.ZERO);
      expect({ uuid, paid: Decimal.parse(inv.payment_amount ?? '0').toString() }).toEqual({ uuid, paid: chainSum.toString() });
      // 2. Credited once: the invoice's ledger entries add up to what it says it credited.
      const entries = await ctx.storage.db.selectFrom('ledger_entries').select('amount').where('ref_id', '=', uuid).execute();
      const credited = entries.reduce((s, r) => s.add(r.amount), Decimal.ZERO);
      expect({ uuid, credited: credited.toString() }).toEqual({ uuid, credited: Decimal.parse(inv.credited).toString() });
      if (chainSum.gt('0') && inv.is_final) expect(credited.gt('0')).toBe(true);
      total = total.add(credited);
    }
    // 3. The balance is the sum of its entries, and of the invoices' credits.
    const balance = await balanceOf(ctx.storage.db, merchant.id, 'business', 'USDT');
    expect(balance).toBe(await entriesSum(ctx.storage.db, merchant.id, 'business', 'USDT'));
    expect(balance).toBe(total.toString());
    // The whole book, as `satchel ledger verify` checks it: every balance against its entries.
    expect((await verifyLedger(ctx.storage.db)).mismatches).toEqual([]);

    // 4. Every webhook delivered to the receiver that answered 200.
    const rows = await ctx.storage.db.selectFrom('webhooks').select(['id', 'status']).execute();
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.status === 'delivered')).toBe(true);
    const received = new Map<string, number>();
    for (const d of rx.deliveries) {
      const id = String(d.headers['x-satchel-delivery']);
      received.set(id, (received.get(id) ?? 0) + 1);
    }
    // A SIGKILL between the receiver's 200 and our commit of "delivered" makes one repeat: no
    // sender can avoid that. Every repeat carries the same x-satchel-delivery id, so a merchant
    // that de-duplicates on it (docs/webhooks.md) processes each webhook exactly once.
    for (const r of rows) expect((received.get(r.id) ?? 0) >= 1).toBe(true);
    expect(received.size).toBe(rows.length);
    const repeats = [...received.values()].reduce((s, n) => s + n - 1, 0);
    expect(repeats).toBeLessThanOrEqual(kills);
  });
});
