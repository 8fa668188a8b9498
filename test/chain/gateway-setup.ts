// A whole gateway on a chain of any family, set up by configuration alone (SATCHEL_NETWORKS): the
// family's node (anvil with test tokens, litecoind in regtest, the TRON node double) and an
// in-process gateway whose network runs the family's driver against it. Its clock is the real one
// plus a movable offset: drivers time rebroadcasts and sweeps with it, and tests still jump past
// an invoice's expiry. A family gives what differs (its node, its network settings, how a block
// is mined, what a payer does); the rest is written once here.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { parseEther, parseUnits, type Hex } from 'viem';
import { TronWeb } from 'tronweb';
import { loadConfig, type Config, type NetworkConfig } from '../../src/config.ts';
import type { Ctx } from '../../src/context.ts';
import { createContext } from '../../src/compose.ts';
import { buildApp } from '../../src/http/app.ts';
import { createMerchant, type Merchant } from '../../src/merchants/store.ts';
import { signBody } from '../../src/webhooks/signature.ts';
import { createWorkers } from '../../src/worker/index.ts';
import type { ChainDriver } from '../../src/chain/contract.ts';
import type { EvmDriver } from '../../src/chain/evm/evm-driver.ts';
import type { BitcoinCoreDriver } from '../../src/chain/bitcoin/bitcoin-core-driver.ts';
import type { TronDriver } from '../../src/chain/tron/tron-driver.ts';
import type { Backend } from '../helpers/backends.ts';
import { STATIC_RATES } from '../helpers/gateway.ts';
import { CHAIN_ID, deployToken, startAnvil, type Anvil, type TestToken } from './evm/anvil.ts';
import { Payer, startLitecoind, type Litecoind } from './bitcoin/litecoind.ts';
import { TronNodeDouble, type NodeDoubleOptions } from './tron/node-double.ts';

export const GATEWAY_MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
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
  const dataDir = mkdtempSync(join(tmpdir(), 'satchel-chain-gw-'));
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

/** What a family gives: its network's settings, how a block is mined, and how its node stops. */
export interface FamilyNode<D extends ChainDriver> {
  /** The registry code of the network the driver runs. */
  code: string;
  network: NetworkConfig;
  mine(): Promise<unknown> | unknown;
  /** Stops the node; not called for a node the test passed in (it stays running). */
  stop(): Promise<void>;
  /** Runs once the gateway is up (funding its hot wallet, say). */
  ready?(driver: D): void;
}

export interface ChainGateway<D extends ChainDriver> extends Gateway {
  /** The network's configuration as the gateway was given it. */
  network: NetworkConfig;
  /** The network's driver (the one the workers poll). */
  driver(): D;
  /** One round of the background workers (chains, expiry, webhooks); throws what a job logged. */
  tick(): Promise<void>;
  /** Mines `blocks` blocks one at a time, running the workers after each. */
  mineAndTick(blocks?: number): Promise<void>;
  stopAll(): Promise<void>;
}

export interface ChainGatewayOptions {
  env?: Record<string, string>;
  now?: () => number;
  /** The node was passed in by the test: left running on close. */
  keepNode?: boolean;
}

/** A gateway whose network `family.code` runs on the family's node. */
export async function startChainGateway<D extends ChainDriver>(backend: Backend, family: FamilyNode<D>, opts: ChainGatewayOptions = {}): Promise<ChainGateway<D>> {
  let gw: Gateway;
  try {
    gw = await startGateway(backend, { env: { SATCHEL_NETWORKS: JSON.stringify({ [family.code]: family.network }), ...opts.env }, now: opts.now });
  } catch (err) {
    if (!opts.keepNode) await family.stop();
    throw err;
  }
  const driver = () => gw.ctx.chains.driver(family.code) as D;
  family.ready?.(driver());
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
    network: family.network,
    driver,
    tick,
    async mineAndTick(blocks = 1) {
      for (let i = 0; i < blocks; i++) {
        await family.mine();
        await tick();
      }
    },
    async stopAll() {
      await gw.close();
      if (!opts.keepNode) await family.stop();
    },
  };
}

// ---------------------------------------------------------------- EVM: anvil and two tokens

/** The anvil account that pays the invoices (index 0 deploys and mints). */
export const PAYER = 1;

export interface TestChain {
  anvil: Anvil;
  usdt: TestToken;
  usdc: TestToken;
}

export interface EvmGateway extends ChainGateway<EvmDriver>, TestChain {
  /** Pays `ether` from the payer account; the transaction waits in the mempool until mined. */
  payNative(to: string, ether: string): Promise<Hex>;
  /** Pays `amount` USDT (or USDC) from the payer account; waits in the mempool until mined. */
  payToken(to: string, amount: string, token?: 'USDT' | 'USDC'): Promise<Hex>;
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
    // These gateways test the seed's deposit addresses and the sweep: hot custody, unless a test says otherwise.
    custody: 'hot',
    ...(opts.sweep ? { sweep: opts.sweep } : {}),
    ...opts.network,
  };
  const gw = await startChainGateway<EvmDriver>(backend, { code: 'ETH', network, mine: () => anvil.mine(), stop: () => anvil.stop() }, { env: opts.env, now: opts.now, keepNode: !!opts.chain });
  return {
    ...gw,
    anvil,
    usdt,
    usdc,
    payNative: (to, ether) => anvil.wallet(PAYER).sendTransaction({ to: to as `0x${string}`, value: parseEther(ether) }),
    payToken: (to, amount, token = 'USDT') => (token === 'USDT' ? usdt : usdc).transfer(PAYER, to, parseUnits(amount, 6)),
  };
}

// ---------------------------------------------------------------- Bitcoin family: litecoind

export interface LtcGateway extends ChainGateway<BitcoinCoreDriver> {
  node: Litecoind;
  payer: Payer;
}

export interface LtcGatewayOptions {
  confirmations?: number;
  network?: Record<string, unknown>;
  env?: Record<string, string>;
  /** A node to use (left running on close); by default a new litecoind is started and funded. */
  node?: { node: Litecoind; payer: Payer };
}

/** litecoind in regtest, and a payer holding its own key with 12 LTC. */
export async function startNode(): Promise<{ node: Litecoind; payer: Payer }> {
  const node = await startLitecoind();
  try {
    const payer = new Payer(node);
    await payer.fund(12);
    return { node, payer };
  } catch (err) {
    await node.close();
    throw err;
  }
}

/** litecoind + a gateway with LTC on the `bitcoin-core` driver pointed at it. */
export async function startLtcGateway(backend: Backend, opts: LtcGatewayOptions = {}): Promise<LtcGateway> {
  const { node, payer } = opts.node ?? (await startNode());
  const network: NetworkConfig = {
    driver: 'bitcoin-core',
    // Today's tests run in hot custody (the seed receives and pays); watch-only tests say so in `network`.
    custody: 'hot',
    rpc_url: node.url,
    chain: 'regtest',
    confirmations: opts.confirmations ?? 2,
    start_height: (await node.head()) + 1,
    ...opts.network,
  };
  const gw = await startChainGateway<BitcoinCoreDriver>(backend, { code: 'LTC', network, mine: () => node.mine(), stop: () => node.close() }, { env: opts.env, keepNode: !!opts.node });
  return { ...gw, node, payer };
}

// ---------------------------------------------------------------- TRON: the node double and a USDT token

/** TRON payers are outside the gateway's seed. */
export const TRON_PAYER_KEY = '1111111111111111111111111111111111111111111111111111111111111111';
export const TRON_PAYER = TronWeb.address.fromPrivateKey(TRON_PAYER_KEY) as string;
/** A token contract of the TRON test chain (the configuration's `tokens` override). */
export const TRON_USDT = TronWeb.address.fromPrivateKey('2222222222222222222222222222222222222222222222222222222222222222') as string;
/** TRX (or a 6-decimal token amount) in base units. */
export const TRX = (n: string | number) => BigInt(Math.round(Number(n) * 1e6));

export interface TronGateway extends ChainGateway<TronDriver> {
  node: TronNodeDouble;
  payTrx(to: string, trx: string): string;
  payUsdt(to: string, amount: string): string;
}

export interface TronGatewayOptions {
  confirmations?: number;
  node?: NodeDoubleOptions;
  network?: Record<string, unknown>;
  /** TRX (and energy stake) of the hot wallet. */
  hotTrx?: string;
  hotStake?: string;
  hotUsdt?: string;
}

/** The TRON node double with USDT deployed + a gateway with TRON on the `tron` driver pointed at it. */
export async function startTronGateway(backend: Backend, opts: TronGatewayOptions = {}): Promise<TronGateway> {
  const node = await new TronNodeDouble({ solidDepth: 2, ...opts.node }).start();
  node.token(TRON_USDT, TRON_PAYER, TRX('10000000'));
  node.fund(TRON_PAYER, TRX('100000'));
  node.mine();
  const network: NetworkConfig = {
    driver: 'tron',
    // Today's tests run in hot custody (the seed receives and pays); watch-only tests say so in `network`.
    custody: 'hot',
    api_url: node.url,
    confirmations: opts.confirmations ?? 3,
    tokens: { USDT: TRON_USDT },
    start_block: node.head.number + 1,
    ...opts.network,
  };
  const ready = (driver: TronDriver) => {
    const hot = driver.hotWallet;
    if (opts.hotTrx || opts.hotStake) node.fund(hot, TRX(opts.hotTrx ?? '0'), TRX(opts.hotStake ?? '0'));
    if (opts.hotUsdt) node.token(TRON_USDT, hot, TRX(opts.hotUsdt));
  };
  const gw = await startChainGateway<TronDriver>(backend, { code: 'TRON', network, mine: () => node.mine(), stop: () => node.stop(), ready });
  return {
    ...gw,
    node,
    payTrx: (to, trx) => node.payTrx(TRON_PAYER_KEY, to, TRX(trx)),
    payUsdt: (to, amount) => node.payToken(TRON_PAYER_KEY, TRON_USDT, to, TRX(amount)),
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
