// A whole gateway whose TRON network runs the `tron` driver against the node double, set up by
// configuration alone (SATCHEL_NETWORKS), with a USDT token deployed on the double at the contract
// the configuration names, a payer with TRX and USDT, and a funded hot wallet.
import { TronWeb } from 'tronweb';
import type { NetworkConfig } from '../../../src/config.ts';
import { createWorkers } from '../../../src/worker/index.ts';
import type { TronDriver } from '../../../src/chain/tron/tron-driver.ts';
import type { Backend } from '../../helpers/backends.ts';
import { startGateway, type Gateway } from '../evm/gateway-setup.ts';
import { TronNodeDouble, type NodeDoubleOptions } from './node-double.ts';

/** Payers are outside the gateway's seed. */
export const PAYER_KEY = '1111111111111111111111111111111111111111111111111111111111111111';
export const PAYER = TronWeb.address.fromPrivateKey(PAYER_KEY) as string;
/** A token contract of the test chain (the configuration's `tokens` override). */
export const USDT = TronWeb.address.fromPrivateKey('2222222222222222222222222222222222222222222222222222222222222222') as string;

export const TRX = (n: string | number) => BigInt(Math.round(Number(n) * 1e6));
export const UNITS = TRX;

export interface TronGateway extends Gateway {
  node: TronNodeDouble;
  network: NetworkConfig;
  driver(): TronDriver;
  /** One round of the background workers; throws what a job logged. */
  tick(): Promise<void>;
  /** Mines `blocks` blocks, running the workers after each. */
  mineAndTick(blocks?: number): Promise<void>;
  payTrx(to: string, trx: string): string;
  payUsdt(to: string, amount: string): string;
  stopAll(): Promise<void>;
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

export async function startTronGateway(backend: Backend, opts: TronGatewayOptions = {}): Promise<TronGateway> {
  const node = await new TronNodeDouble({ solidDepth: 2, ...opts.node }).start();
  node.token(USDT, PAYER, UNITS('10000000'));
  node.fund(PAYER, TRX('100000'));
  node.mine();
  const network: NetworkConfig = {
    driver: 'tron',
    api_url: node.url,
    confirmations: opts.confirmations ?? 3,
    tokens: { USDT },
    start_block: node.head.number + 1,
    ...opts.network,
  };
  let gw: Gateway;
  try {
    gw = await startGateway(backend, { env: { SATCHEL_NETWORKS: JSON.stringify({ TRON: network }) } });
  } catch (err) {
    await node.stop();
    throw err;
  }
  const driver = () => gw.ctx.chains.driver('TRON') as TronDriver;
  const hot = driver().hotWallet;
  if (opts.hotTrx || opts.hotStake) node.fund(hot, TRX(opts.hotTrx ?? '0'), TRX(opts.hotStake ?? '0'));
  if (opts.hotUsdt) node.token(USDT, hot, UNITS(opts.hotUsdt));
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
    node,
    network,
    driver,
    tick,
    async mineAndTick(blocks = 1) {
      for (let i = 0; i < blocks; i++) {
        node.mine();
        await tick();
      }
    },
    payTrx: (to, trx) => node.payTrx(PAYER_KEY, to, TRX(trx)),
    payUsdt: (to, amount) => node.payToken(PAYER_KEY, USDT, to, UNITS(amount)),
    async stopAll() {
      await gw.close();
      await node.stop();
    },
  };
}
