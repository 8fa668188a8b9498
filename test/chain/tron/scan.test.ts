// The TRON scanner's cost per block does not depend on how many addresses are watched: the same
// HTTP calls, path by path, for 10 watched addresses and 20,000, at most one getblockbylimitnext
// per batch and one gettransactioninfobyblocknum per block with transactions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { openStorage, type Storage } from '../../../src/db/dialect.ts';
import { migrateToLatest } from '../../../src/db/migrate.ts';
import { TronApi } from '../../../src/chain/tron/api.ts';
import { fromHexAddress } from '../../../src/chain/tron/address.ts';
import { TronScanner } from '../../../src/chain/tron/scan.ts';
import { tronDb } from '../../../src/chain/tron/schema.ts';
import { TronNodeDouble } from './node-double.ts';
import { TRON_PAYER as PAYER, TRON_PAYER_KEY as PAYER_KEY, TRON_USDT as USDT } from '../gateway-setup.ts';

const BLOCKS = 30;
const randomAddress = () => fromHexAddress(`41${randomBytes(20).toString('hex')}`);

describe('TRON scanner cost', () => {
  let node: TronNodeDouble;
  const storages: Storage[] = [];
  let first = 0;
  const few = Array.from({ length: 10 }, randomAddress);
  beforeAll(async () => {
    node = await new TronNodeDouble({ solidDepth: 2 }).start();
    node.token(USDT, PAYER, 10n ** 12n);
    node.fund(PAYER, 10n ** 12n);
    node.mine();
    first = node.head.number + 1;
    for (let i = 0; i < BLOCKS; i++) {
      node.payTrx(PAYER_KEY, few[i % 10]!, 1_000_000n);
      node.payTrx(PAYER_KEY, randomAddress(), 1_000_000n);
      node.payToken(PAYER_KEY, USDT, few[i % 10]!, 1_000_000n);
      node.payToken(PAYER_KEY, USDT, randomAddress(), 1_000_000n);
      node.mine();
    }
    node.mine(2);
  });
  afterAll(async () => {
    for (const s of storages) await s.close();
    await node?.stop();
  });

  async function catchUp(watched: string[]): Promise<{ calls: Map<string, number>; reported: number }> {
    const storage = openStorage({ sqlitePath: ':memory:' });
    storages.push(storage);
    await migrateToLatest(storage);
    const calls = new Map<string, number>();
    const api = new TronApi(node.url, { onRequest: (p) => calls.set(p, (calls.get(p) ?? 0) + 1) });
    const scanner = new TronScanner({
      network: 'TRON', api, db: tronDb(storage.db), storage, native: { code: 'TRX', decimals: 6 }, tokens: [{ code: 'USDT', contract: USDT, decimals: 6 }],
      confirmations: 19, watched: new Set(watched), now: Date.now, pollBatch: 10, maxBatchesPerPoll: 100, startBlock: first,
      isOwnTransaction: async () => new Set(), log: () => {},
    });
    let reported = 0;
    const sink = { transfer: async () => void reported++, dropped: async () => {}, outgoing: async () => {} };
    await scanner.poll(sink, await scanner.view());
    return { calls, reported };
  }

  it('makes the same calls for 10 and for 20,000 watched addresses, one or two per block', async () => {
    const small = await catchUp(few);
    const large = await catchUp([...few, ...Array.from({ length: 20_000 }, randomAddress)]);
    expect(small.reported).toBe(2 * BLOCKS); // one TRX and one USDT payment per block
    expect(large.reported).toBe(small.reported);
    expect(Object.fromEntries(large.calls)).toEqual(Object.fromEntries(small.calls));
    const scanned = node.head.number - first + 1;
    expect(small.calls.get('/wallet/getblockbylimitnext')).toBe(Math.ceil(scanned / 10));
    expect(small.calls.get('/wallet/gettransactioninfobyblocknum')).toBe(BLOCKS); // the blocks with transactions
  });
});
