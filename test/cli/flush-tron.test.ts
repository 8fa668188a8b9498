// `satchel flush --network TRON`: the TRON driver flushes too (its flush answers the transaction
// ids it sent); what stands in its way is said, not thrown. A fake driver stands in for the node.
import { describe, expect, it } from 'vitest';
import { flushCli, type FlushContext } from '../../src/cli/flush.ts';
import type { ChainDriver } from '../../src/chain/contract.ts';

function context(driver: Partial<ChainDriver> & Record<string, unknown>): () => Promise<FlushContext> {
  return async () => ({
    chains: { driver: () => driver as unknown as ChainDriver, custodyMode: () => 'watch-only', close: async () => {} },
    storage: { withLock: async (_k: string, _ms: number, fn: () => Promise<unknown>) => ({ value: await fn() }), close: async () => {} } as unknown as FlushContext['storage'],
  });
}

function run(args: string[], driver: Partial<ChainDriver> & Record<string, unknown>) {
  const out: string[] = [];
  const err: string[] = [];
  return flushCli(args, { log: (s) => out.push(s), error: (s) => err.push(s) }, context(driver)).then((code) => ({ code, out, err }));
}

describe('satchel flush on TRON', () => {
  it('prints each transaction the TRON driver sent', async () => {
    const r = await run(['--network', 'TRON'], { kind: 'tron', custody: 'watch-only', flush: async () => ['aa'.repeat(32), 'bb'.repeat(32)] });
    expect(r).toEqual({ code: 0, out: ['aa'.repeat(32), 'bb'.repeat(32)], err: [] });
  });
  it('says what stands in the way (no relayer key) and exits 1', async () => {
    const r = await run(['--network', 'TRON'], {
      kind: 'tron',
      custody: 'watch-only',
      flush: async () => {
        throw new Error('TRON: no relayer_key_file is configured; nothing can be flushed');
      },
    });
    expect(r).toEqual({ code: 1, out: [], err: ['TRON: no relayer_key_file is configured; nothing can be flushed'] });
  });
  it('passes --token to the driver, and says its refusal', async () => {
    const r = await run(['--network', 'TRON', '--token', '0x' + '11'.repeat(20)], {
      kind: 'tron',
      custody: 'watch-only',
      flush: async (req: { tokens?: readonly string[] }) => {
        if (req.tokens?.length) throw new Error('TRON flushes its configured tokens and TRX only: it takes no other token');
        return [];
      },
    });
    expect(r).toEqual({ code: 1, out: [], err: ['TRON flushes its configured tokens and TRX only: it takes no other token'] });
  });
});
