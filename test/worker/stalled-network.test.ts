// A node that never answers holds up only its own network (issue 24): under one worker, the healthy
// network's payment is credited and its webhook delivered while the stalled network's poll still
// hangs; the stalled poll's deadline is logged and counted in /metrics, and no second poll of that
// network starts beside it. Drivers log through the gateway's logger, each line naming the network,
// and an alarm a driver raises is logged as one and counted in /metrics.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.ts';
import type { Ctx } from '../../src/context.ts';
import { createContext, driverFactories } from '../../src/compose.ts';
import { buildApp } from '../../src/http/app.ts';
import { createMerchant, type Merchant } from '../../src/merchants/store.ts';
import { signBody } from '../../src/webhooks/signature.ts';
import { stopRefills } from '../../src/chain/allocate.ts';
import type { ChainDriver, ChainLog, ChainSink, DriverFactory, IncomingTransfer, NodeStatus } from '../../src/chain/contract.ts';
import { simulatedDriverFactory } from '../../src/chain/simulated/driver.ts';
import { runWorkers } from '../../src/worker/index.ts';
import type { GatewayLog } from '../../src/ops/log.ts';
import { backends } from '../helpers/backends.ts';
import { TEST_MNEMONIC } from '../helpers/gateway.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(20);
  }
}

/** A driver over a fake chain: its poll reports what the test put on it, or hangs until released. */
class FakeDriver implements ChainDriver {
  readonly kind = 'simulated';
  readonly watchesAddresses = false;
  readonly pending: IncomingTransfer[] = [];
  readonly say: Array<Parameters<ChainLog>> = [];
  polls = 0;
  /** Polls under way right now (never more than one). */
  running = 0;
  mostAtOnce = 0;
  hang: Promise<void> | null = null;
  constructor(
    readonly network: ChainDriver['network'],
    private readonly log: ChainLog,
  ) {}
  watch(): void {}
  async status(): Promise<NodeStatus> {
    return { chain: null, head: this.polls, headTime: null };
  }
  async poll(sink: ChainSink): Promise<void> {
    this.polls++;
    this.mostAtOnce = Math.max(this.mostAtOnce, ++this.running);
    try {
      for (const line of this.say.splice(0)) this.log(...line);
      if (this.hang) await this.hang;
      for (const t of this.pending.splice(0)) await sink.transfer(t);
    } finally {
      this.running--;
    }
  }
  async canCover() {
    return { covered: true as const };
  }
  async send(): Promise<{ txid: string }> {
    throw new Error('not here');
  }
  async close(): Promise<void> {}
}

describe.each(await backends())('a stalled network on $name', (backend) => {
  let dir: string;
  let db: Awaited<ReturnType<(typeof backend)['create']>>;
  let ctx: Ctx;
  let app: FastifyInstance;
  let merchant: Merchant;
  let rx: Receiver;
  const lines: Array<{ level: string; obj: Record<string, unknown>; msg: string }> = [];
  const fakes = new Map<string, FakeDriver>();
  let release: () => void = () => {};

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'satchel-stall-'));
    db = await backend.create();
    const config = loadConfig({
      SATCHEL_DATA_DIR: dir,
      SATCHEL_MNEMONIC: TEST_MNEMONIC,
      SATCHEL_ALLOW_PRIVATE_CALLBACKS: '1',
      SATCHEL_CHAIN_POLL_TIMEOUT_MS: '2000',
      LOG_LEVEL: 'silent',
      ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}),
    });
    const capture = (level: string) => (obj: object, msg: string) => lines.push({ level, obj: obj as Record<string, unknown>, msg });
    const log: GatewayLog = { info: capture('info'), warn: capture('warn'), error: capture('error') };
    // ETH's node never answers; BSC's answers at once; the other networks are simulated as usual.
    const simulated: DriverFactory = (deps) => {
      if (deps.network.code !== 'ETH' && deps.network.code !== 'BSC') return simulatedDriverFactory(deps);
      const d = new FakeDriver(deps.network, deps.log);
      fakes.set(deps.network.code, d);
      return d;
    };
    ctx = await createContext(config, { drivers: { ...driverFactories, simulated }, log });
    app = await buildApp(ctx, { logger: false });
    await app.ready();
    merchant = await createMerchant(ctx.storage.db, 'Stall shop');
    rx = await startReceiver(() => ({ status: 200 }));
    ctx.chains.driver('ETH');
    fakes.get('ETH')!.hang = new Promise<void>((r) => (release = r));
  });
  afterAll(async () => {
    release();
    await rx?.close();
    await app?.close();
    if (ctx) await stopRefills(ctx.storage);
    await ctx?.storage.close();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const api = async (path: string, body: unknown) => {
    const raw = JSON.stringify(body);
    const res = await app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/json', merchant: merchant.id, sign: signBody(raw, merchant.payment_key) },
      payload: raw,
    });
    expect(res.statusCode).toBe(200);
    return (JSON.parse(res.body) as { result: Record<string, string> }).result;
  };
  const metrics = async () => (await app.inject({ method: 'GET', url: '/metrics' })).body;

  it("credits the healthy network's payment and delivers its webhook while the stalled poll hangs", { timeout: 60_000 }, async () => {
    const inv = await api('/v1/payment', { amount: '10', currency: 'USDT', network: 'BSC', order_id: 'bsc-1', url_callback: rx.url });
    const bsc = fakes.get('BSC') ?? (ctx.chains.driver('BSC') as FakeDriver);
    bsc.say.push(['info', 'fake node scanned', { height: 7 }]);
    bsc.say.push(['warn', 'a coin of the gateway was spent by a transaction it did not sign', { txid: 'ab', alarm: 'foreign_spend' }]);
    const workerLog: Array<{ level: string; o: unknown; msg?: string }> = [];
    const workers = runWorkers(ctx, {
      intervalMs: 20,
      log: { error: (o, msg) => workerLog.push({ level: 'error', o, msg }), warn: (o, msg) => workerLog.push({ level: 'warn', o, msg }) },
    });
    const eth = fakes.get('ETH')!;
    try {
      await until(() => eth.running === 1, 10_000);
      bsc.pending.push({
        network: 'BSC',
        currency: 'USDT',
        txid: `0x${randomBytes(32).toString('hex')}`,
        index: 0,
        from: null,
        to: inv.address!,
        amount: inv.payer_amount!,
        blockHeight: 100,
        blockHash: `0x${randomBytes(32).toString('hex')}`,
        confirmations: 50,
      });
      await until(() => rx.deliveries.some((d) => d.json.uuid === inv.uuid && d.json.status === 'paid'), 20_000);
      // All of that while ETH's first poll was still waiting for its node.
      expect(eth.running).toBe(1);
      expect(eth.polls).toBe(1);
      const row = await ctx.storage.db.selectFrom('invoices').select('status').where('id', '=', inv.uuid!).executeTakeFirstOrThrow();
      expect(row.status).toBe('paid');

      // Its deadline passed: logged with the network, counted in /metrics.
      await until(() => workerLog.some((l) => l.level === 'warn' && (l.o as { network?: string }).network === 'ETH'), 10_000);
      await until(async () => /satchel_chain_poll_timeouts_total\{network="ETH"\} 1\b/.test(await metrics()), 10_000);

      // The driver's lines reached the gateway's log, each naming its network; the alarm as an alarm.
      expect(lines).toContainEqual({ level: 'info', obj: { height: 7, network: 'BSC' }, msg: 'fake node scanned' });
      const alarm = lines.find((l) => l.obj.alarm === 'foreign_spend');
      expect(alarm).toMatchObject({ level: 'error', obj: { network: 'BSC', txid: 'ab' } });
      await until(async () => /satchel_chain_alarms_total\{network="BSC",kind="foreign_spend"\} 1\b/.test(await metrics()), 10_000);
    } finally {
      // Once ETH's node answers, its poll ends and the next may start; stopping waits for it.
      release();
      await workers.stop();
    }
    expect(eth.mostAtOnce).toBe(1);
    expect(workerLog.filter((l) => l.level === 'error')).toEqual([]);
  });
});
