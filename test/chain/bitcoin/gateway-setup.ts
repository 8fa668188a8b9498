// A whole gateway on a real Litecoin node: litecoind in regtest, a payer holding its own key, and an
// in-process gateway whose network LTC runs the `bitcoin-core` driver against the node, set up by
// configuration alone (SATCHEL_NETWORKS), exactly as the contract writes it.
import type { NetworkConfig } from '../../../src/config.ts';
import { createWorkers } from '../../../src/worker/index.ts';
import type { BitcoinCoreDriver } from '../../../src/chain/bitcoin/bitcoin-core-driver.ts';
import type { Backend } from '../../helpers/backends.ts';
import { startGateway, type Gateway } from '../evm/gateway-setup.ts';
import { Payer, startLitecoind, type Litecoind } from './litecoind.ts';

export interface LtcGateway extends Gateway {
  node: Litecoind;
  payer: Payer;
  network: NetworkConfig;
  driver(): BitcoinCoreDriver;
  /** One round of the background workers; throws what a job logged. */
  tick(): Promise<void>;
  /** Mines `blocks` blocks one at a time, running the workers after each. */
  mineAndTick(blocks?: number): Promise<void>;
  stopAll(): Promise<void>;
}

export interface LtcGatewayOptions {
  confirmations?: number;
  network?: Record<string, unknown>;
  env?: Record<string, string>;
  /** A node to use (left running on close); by default a new litecoind is started and funded. */
  node?: { node: Litecoind; payer: Payer };
}

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

export async function startLtcGateway(backend: Backend, opts: LtcGatewayOptions = {}): Promise<LtcGateway> {
  const { node, payer } = opts.node ?? (await startNode());
  const network: NetworkConfig = {
    driver: 'bitcoin-core',
    rpc_url: node.url,
    chain: 'regtest',
    confirmations: opts.confirmations ?? 2,
    start_height: (await node.head()) + 1,
    ...opts.network,
  };
  let gw: Gateway;
  try {
    gw = await startGateway(backend, { env: { SATCHEL_NETWORKS: JSON.stringify({ LTC: network }), ...opts.env } });
  } catch (err) {
    if (!opts.node) await node.close();
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
    node,
    payer,
    network,
    driver: () => gw.ctx.chains.driver('LTC') as BitcoinCoreDriver,
    tick,
    async mineAndTick(blocks = 1) {
      for (let i = 0; i < blocks; i++) {
        await node.mine();
        await tick();
      }
    },
    async stopAll() {
      await gw.close();
      if (!opts.node) await node.close();
    },
  };
}
