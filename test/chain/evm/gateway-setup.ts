// A whole gateway on a real chain: anvil with USDT and USDC test tokens (6 decimals, like the
// registry's), and an in-process gateway whose network ETH runs the `evm` driver against it, set up
// by configuration alone (SATCHEL_NETWORKS). Its clock is the real one plus a movable offset: the
// EVM driver times rebroadcasts and sweeps with it, and tests still jump past an invoice's expiry.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { parseEther, parseUnits, type Hex } from 'viem';
import { loadConfig, type Config, type NetworkConfig } from '../../../src/config.ts';
import type { Ctx } from '../../../src/context.ts';
import { createContext } from '../../../src/compose.ts';
import { buildApp } from '../../../src/http/app.ts';
import { createMerchant, type Merchant } from '../../../src/merchants/store.ts';
import { signBody } from '../../../src/webhooks/signature.ts';
import { createWorkers } from '../../../src/worker/index.ts';
import type { EvmDriver } from '../../../src/chain/evm/evm-driver.ts';
import type { Backend } from '../../helpers/backends.ts';
import { STATIC_RATES } from '../../helpers/gateway.ts';
import { CHAIN_ID, deployToken, startAnvil, type Anvil, type TestToken } from './anvil.ts';

export const GATEWAY_MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
/** The anvil account that pays the invoices (index 0 deploys and mints). */
export const PAYER = 1;

export interface Clock {
  /** Milliseconds since the epoch: real time plus the offset. */
  readonly now: number;
  advance(ms: number): void;
}

export interface Api {
  (path: string, body?: unknown, opts?: { key?: 'payment' | 'payout'; merchant?: Merchant }): Promise<{ status: number; body: any; raw: string }>;
}

export interface Gateway {
  ctx: Ctx;
  app: FastifyInstance;
  merchant: Merchant;
  config: Config;
  clock: Clock;
  api: Api;
  close(): Promise<void>;
}

/** Like test/helpers/gateway.ts, with a real (offset) clock instead of a frozen one. */
export async function startGateway(backend: Backend, opts: { env?: Record<string, string>; now?: () => number } = {}): Promise<Gateway> {
  const dataDir = mkdtempSync(join(tmpdir(), 'satchel-evm-gw-'));
  const db = await backend.create();
  const config = loadConfig({
    SATCHEL_DATA_DIR: dataDir,
    SATCHEL_MNEMONIC: GATEWAY_MNEMONIC,
    SATCHEL_PUBLIC_URL: 'https://pay.example.test',
    SATCHEL_ALLOW_PRIVATE_CALLBACKS: '1',
    SATCHEL_RATES: STATIC_RATES,
    LOG_LEVEL: 'silent',
    ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}),
    ...opts.env,
  });
  let offset = 0;
  const clock: Clock = {
    get now() {
      return Date.now() + offset;
    },
    advance(ms: number) {
      offset += ms;
    },
  };
  const ctx = await createContext(config, { now: opts.now ?? (() => clock.now) });
  const app = await buildApp(ctx, { logger: false });
  await app.ready();
  const merchant = await createMerchant(ctx.storage.db, 'EVM shop');
  const api: Api = async (path, body = {}, o = {}) => {
    const m = o.merchant ?? merchant;
    const raw = typeof body === 'string' ? body : JSON.stringify(body);
    const key = o.key === 'payout' ? m.payout_key : m.payment_key;
    const res = await app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/json', merchant: m.id, sign: signBody(raw, key) },
      payload: raw,
    });
    let parsed: unknown = null;
    try {
      parsed = res.body ? JSON.parse(res.body) : null;
    } catch {
      parsed = null;
    }
    return { status: res.statusCode, body: parsed, raw: res.body };
  };
  return {
    ctx,
    app,
    merchant,
    config,
    clock,
    api,
    async close() {
      await createWorkers(ctx).stop(); // closes the drivers
      await app.close();
      await ctx.storage.close();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface EvmGateway extends Gateway {
  anvil: Anvil;
  usdt: TestToken;
  usdc: TestToken;
  /** The ETH network's configuration as the gateway was given it. */
  network: NetworkConfig;
  /** The gateway's ETH driver (the one its workers poll). */
  driver(): EvmDriver;
  /** One round of the background workers (chains, expiry, webhooks); throws what a job logged. */
  tick(): Promise<void>;
  /** Pays `ether` from the payer account; the transaction waits in the mempool until mined. */
  payNative(to: string, ether: string): Promise<Hex>;
  /** Pays `amount` USDT (or USDC) from the payer account; waits in the mempool until mined. */
  payToken(to: string, amount: string, token?: 'USDT' | 'USDC'): Promise<Hex>;
  /** Mines `blocks` blocks, then runs the workers. */
  mineAndTick(blocks?: number): Promise<void>;
  stopAll(): Promise<void>;
}

export interface EvmGatewayOptions {
  confirmations?: number;
  sweep?: Record<string, unknown>;
  /** More ETH settings (poll_batch, ...). */
  network?: Record<string, unknown>;
  env?: Record<string, string>;
  now?: () => number;
  /** A chain to use (left running on close); by default a new anvil is started. */
  chain?: TestChain;
}

export interface TestChain {
  anvil: Anvil;
  usdt: TestToken;
  usdc: TestToken;
}

/** anvil, with USDT and USDC test tokens (6 decimals) and plenty of both for the payer. */
export async function startChain(): Promise<TestChain> {
  const anvil = await startAnvil();
  try {
    const usdt = await deployToken(anvil, 'USDT', 6);
    const usdc = await deployToken(anvil, 'USDC', 6);
    await usdt.mint(anvil.account(PAYER).address, parseUnits('10000000', 6));
    await usdc.mint(anvil.account(PAYER).address, parseUnits('10000000', 6));
    await anvil.mine();
    return { anvil, usdt, usdc };
  } catch (err) {
    await anvil.stop();
    throw err;
  }
}

/** anvil + test tokens + a gateway with ETH on the `evm` driver pointed at it. */
export async function startEvmGateway(backend: Backend, opts: EvmGatewayOptions = {}): Promise<EvmGateway> {
  const chain = opts.chain ?? (await startChain());
  const { anvil, usdt, usdc } = chain;
  const network: NetworkConfig = {
    driver: 'evm',
    rpc_url: anvil.url,
    chain_id: CHAIN_ID,
    confirmations: opts.confirmations ?? 2,
    tokens: { USDT: usdt.address, USDC: usdc.address },
    start_block: (await anvil.head()) + 1,
    ...(opts.sweep ? { sweep: opts.sweep } : {}),
    ...opts.network,
  };
  let gw: Gateway;
  try {
    gw = await startGateway(backend, { env: { SATCHEL_NETWORKS: JSON.stringify({ ETH: network }), ...opts.env }, now: opts.now });
  } catch (err) {
    if (!opts.chain) await anvil.stop();
    throw err;
  }
  const tick = async () => {
    const errors: unknown[] = [];
    await createWorkers(gw.ctx, { error: (o) => errors.push(o) }).tick();
    if (errors.length) {
      const first = errors[0] as { err?: Error };
      throw first.err ?? new Error(JSON.stringify(errors[0]));
    }
  };
  return {
    ...gw,
    anvil,
    usdt,
    usdc,
    network,
    driver: () => gw.ctx.chains.driver('ETH') as EvmDriver,
    tick,
    payNative: (to, ether) => anvil.wallet(PAYER).sendTransaction({ to: to as `0x${string}`, value: parseEther(ether) }),
    payToken: (to, amount, token = 'USDT') => (token === 'USDT' ? usdt : usdc).transfer(PAYER, to, parseUnits(amount, 6)),
    async mineAndTick(blocks = 1) {
      for (let i = 0; i < blocks; i++) {
        await anvil.mine();
        await tick();
      }
    },
    async stopAll() {
      await gw.close();
      if (!opts.chain) await anvil.stop();
    },
  };
}


/** Another gateway process on the same database and configuration (a second worker), sharing the clock. */
export async function secondInstance(g: Gateway): Promise<{ ctx: Ctx; tick(): Promise<unknown[]>; close(): Promise<void> }> {
  const ctx = await createContext(g.config, { now: () => g.clock.now });
  let closed = false;
  return {
    ctx,
    /** One round of its workers; returns what they logged instead of throwing. */
    async tick() {
      const errors: unknown[] = [];
      await createWorkers(ctx, { error: (o) => errors.push(o) }).tick();
      return errors;
    },
    async close() {
      if (closed) return;
      closed = true;
      await createWorkers(ctx).stop();
      await ctx.storage.close().catch(() => {});
    },
  };
}
