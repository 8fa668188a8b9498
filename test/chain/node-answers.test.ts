// What a node answers is bounded before use: the shared value rules refuse every malformed value
// as a FaultyNodeError, the head guard refuses a head that jumps or falls back beyond its window,
// each family's client refuses an answer over its size cap without buffering it, and the faulty
// state is logged once when it starts and once when it ends.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultyNodeError, NodeError } from '../../src/chain/errors.ts';
import { hash32, heightHex, heightNumber, quantityHex } from '../../src/chain/node-values.ts';
import { HeadGuard } from '../../src/chain/head-guard.ts';
import { range } from '../../src/chain/map-limit.ts';
import { RpcClient } from '../../src/chain/evm/rpc.ts';
import { BitcoinRpc } from '../../src/chain/bitcoin/rpc.ts';
import { TronApi } from '../../src/chain/tron/api.ts';
import { NodeFaults } from '../../src/chain/node-faults.ts';
import { nodeLimits } from '../../src/chain/network-settings.ts';
import { EVM_NODE_LIMITS } from '../../src/chain/evm/limits.ts';
import { BITCOIN_NODE_LIMITS } from '../../src/chain/bitcoin/limits.ts';
import { TRON_NODE_LIMITS } from '../../src/chain/tron/limits.ts';
import { openStorage } from '../../src/db/dialect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';

const faulty = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof FaultyNodeError && err instanceof NodeError;
  }
  return false;
};

describe('node values', () => {
  it('heights: only safe integers up to the plausible bound, in the dialect\'s own form', () => {
    for (const v of ['0x20000000000040', '0x1fffffffffffff', '0x8000000000000000', '-0x1', '0x3e8zz', '0x', '1000', ' 0x1', 1000, null, undefined, {}, []]) {
      expect(faulty(() => heightHex('eth_blockNumber', v)), String(v)).toBe(true);
    }
    for (const v of [9007199254741000, 2 ** 53 - 1, 2 ** 63, -1, 1000.5, '1000', '0x3e8', NaN, Infinity, null, true]) {
      expect(faulty(() => heightNumber('getblockcount', v)), String(v)).toBe(true);
    }
    expect(heightHex('eth_blockNumber', '0x3e8')).toBe(1000);
    expect(heightNumber('getblockcount', 1000)).toBe(1000);
  });

  it('amounts: non-negative hex below 2^256; hashes: 64 hex digits', () => {
    expect(quantityHex('m', 'a value', `0x${'f'.repeat(64)}`)).toBe((1n << 256n) - 1n);
    for (const v of [`0x1${'0'.repeat(64)}`, '-0x5', '0x1.5', 5, '5']) expect(faulty(() => quantityHex('m', 'a value', v)), String(v)).toBe(true);
    expect(faulty(() => hash32('m', 'a hash', `0x${'a'.repeat(63)}`, true))).toBe(true);
    expect(faulty(() => hash32('m', 'a hash', 'g'.repeat(64), false))).toBe(true);
  });

  it('a range of heights past 2^53 or larger than a batch is refused instead of looping forever', () => {
    expect(() => range(2 ** 53, 2 ** 53 + 10)).toThrow(RangeError);
    expect(() => range(0, 10_000_000)).toThrow(RangeError);
    expect(range(5, 7)).toEqual([5, 6, 7]);
  });
});

describe('the settings', () => {
  it('max_head_jump and max_response_bytes: the family\'s defaults, or a positive integer (a tiny cap refused)', () => {
    expect(nodeLimits({}, 'networks.ETH', EVM_NODE_LIMITS)).toEqual({ maxHeadJump: 50_000, maxResponseBytes: 64 * 2 ** 20 });
    expect(nodeLimits({}, 'networks.BTC', BITCOIN_NODE_LIMITS)).toEqual({ maxHeadJump: 1000, maxResponseBytes: 256 * 2 ** 20 });
    expect(nodeLimits({ max_head_jump: 10, max_response_bytes: 4096 }, 'networks.TRON', TRON_NODE_LIMITS)).toEqual({ maxHeadJump: 10, maxResponseBytes: 4096 });
    expect(() => nodeLimits({ max_head_jump: 0 }, 'networks.ETH', EVM_NODE_LIMITS)).toThrow(/networks.ETH.max_head_jump/);
    expect(() => nodeLimits({ max_head_jump: '10' }, 'networks.ETH', EVM_NODE_LIMITS)).toThrow(/networks.ETH.max_head_jump/);
    expect(() => nodeLimits({ max_response_bytes: 100 }, 'networks.ETH', EVM_NODE_LIMITS)).toThrow(/networks.ETH.max_response_bytes/);
  });
});

describe('the head guard', () => {
  it('refuses a head that jumps beyond max_head_jump or falls back beyond the reorganisation window, and takes the next sane one', () => {
    const g = new HeadGuard(1000, 256);
    g.commit(g.check('head', 1002)); // the first head of a process is taken as it comes
    expect(faulty(() => g.check('head', 1_000_000))).toBe(true);
    expect(faulty(() => g.check('head', 2003))).toBe(true);
    g.commit(g.check('head', 2002));
    expect(faulty(() => g.check('head', 1745))).toBe(true);
    g.commit(g.check('head', 1746)); // within a reorganisation
  });

  it('a refused head never becomes the reference', () => {
    const g = new HeadGuard(1000, 256);
    g.commit(g.check('head', 100));
    g.check('head', 900); // checked, but its poll failed: not committed
    expect(faulty(() => g.check('head', 1200))).toBe(true);
  });
});

describe('answers over the size cap', () => {
  const TOTAL = 24 * 2 ** 20;
  const CAP = 2 ** 20;
  let server: Server;
  let url = '';
  const written: number[] = [];

  beforeAll(async () => {
    // Streams TOTAL bytes of a JSON string without a content-length, respecting back-pressure,
    // and records how much it got to write before the client hung up.
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        let sent = 0;
        const chunk = Buffer.alloc(64 * 1024, 'a');
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"result":"');
        const pump = () => {
          while (sent < TOTAL) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end('"}');
        };
        res.on('close', () => written.push(sent));
        pump();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const clients: Array<[string, () => Promise<unknown>]> = [
    ['EVM', () => new RpcClient(url, { maxResponseBytes: CAP }).blockWithTxs(1)],
    ['Bitcoin family', () => new BitcoinRpc({ url, maxResponseBytes: CAP }).call('getblock', ['00'])],
    ['TRON', () => new TronApi(url, { maxResponseBytes: CAP }).blocks(1, 2)],
  ];

  it.each(clients)('%s: refused as a faulty answer, the connection dropped long before the whole answer was sent', async (_name, call) => {
    written.length = 0;
    const before = process.memoryUsage().arrayBuffers;
    await expect(call()).rejects.toSatisfy((err) => err instanceof FaultyNodeError && /max_response_bytes/.test((err as Error).message));
    await new Promise((r) => setTimeout(r, 100));
    expect(written.length).toBe(1);
    expect(written[0]!).toBeLessThan(TOTAL / 2);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(TOTAL / 2);
  });
});

describe('the faulty state', () => {
  it('logs a warning naming the network when it turns faulty and when it recovers, once each', async () => {
    const storage = openStorage({ sqlitePath: ':memory:' });
    await migrateToLatest(storage);
    const logs: Array<[string, string, unknown]> = [];
    let now = 1000;
    const faults = new NodeFaults(storage.db, () => now, (level, msg, data) => logs.push([level, msg, data]));
    const err = new FaultyNodeError('eth_blockNumber', 'the node answered "0x20000000000040" for a block height');
    await faults.faulty('ETH', err);
    now += 1000;
    await faults.faulty('ETH', err);
    expect(logs).toEqual([['warn', expect.stringMatching(/faulty/), { network: 'ETH', reason: err.message }]]);
    expect(await storage.db.selectFrom('node_faults').selectAll().execute()).toEqual([
      { network: 'ETH', reason: err.message, since: expect.anything(), updated_at: expect.anything() },
    ]);
    await faults.sane('ETH');
    await faults.sane('ETH');
    expect(logs[1]).toEqual(['warn', expect.stringMatching(/recovered/), { network: 'ETH' }]);
    expect(logs).toHaveLength(2);
    expect(await storage.db.selectFrom('node_faults').selectAll().execute()).toEqual([]);
    await storage.close();
  });
});
