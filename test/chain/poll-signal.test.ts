// A stalled node's poll stops at its deadline: a fake EVM node on 127.0.0.1 that never answers
// eth_blockNumber, polled through Chains.poll with a signal aborted after 200 ms, makes the poll
// reject within a second (not at the client's 20 s timeout) as NodeUnreachableError, while a
// request to the same node made outside the poll and still in flight at the abort completes.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startGateway, type Gateway } from './gateway-setup.ts';
import { createSink } from '../../src/chain/ingest.ts';
import { RpcClient } from '../../src/chain/evm/rpc.ts';
import { NodeUnreachableError } from '../../src/chain/errors.ts';

const [backend] = await backends();

/** Answers eth_chainId at once, eth_blockNumber never, anything else after `slowMs`. */
async function startStalledNode(slowMs: number): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d.toString()));
    req.on('end', () => {
      const { id, method } = JSON.parse(raw) as { id: number; method: string };
      const answer = (result: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result }));
      if (method === 'eth_blockNumber') return;
      if (method === 'eth_chainId') return answer('0x7a69');
      setTimeout(() => answer('0x0'), slowMs);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('a poll past its deadline', () => {
  let g: Gateway | null = null;
  let server: Server | null = null;
  afterEach(async () => {
    await g?.close();
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
    g = server = null;
  });

  it('stops a hung node request at the abort, and leaves calls outside the poll alone', async () => {
    const node = await startStalledNode(600);
    server = node.server;
    g = await startGateway(backend!, { env: { SATCHEL_NETWORKS: JSON.stringify({ ETH: { driver: 'evm', custody: 'hot', rpc_url: node.url, chain_id: 31337, confirmations: 1 } }) } });
    const ctx = g.ctx;
    const signal = AbortSignal.timeout(200);
    const started = Date.now();
    const poll = ctx.chains.poll('ETH', createSink(ctx), { wait: true, signal });
    // Outside the poll (as a payout's send or a coverage check): its answer comes after the abort.
    const outside = new RpcClient(node.url).call<string>('eth_getBalance', ['0x0000000000000000000000000000000000000000', 'latest']);
    const err = await poll.then(
      () => null,
      (e: unknown) => e,
    );
    expect(Date.now() - started).toBeLessThan(1000);
    expect(err).toBeInstanceOf(NodeUnreachableError);
    await expect(outside).resolves.toBe('0x0');
  });
});
