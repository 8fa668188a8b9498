// A hostile or broken node between the `solana` driver and the chain: the double rewrites its
// answers (balances past u64, negative or missing, another transaction, account indexes out of
// range, signatures out of order or malformed, a status that contradicts the transaction, a
// head that is not a number or jumps, a body that is not JSON or is too big). Each is a node fault:
// the poll fails with FaultyNodeError, nothing is credited, the cursor stays, and once the node
// is honest again the payment is credited once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyPairSigner } from '@solana/kit';
import { openStorage, type Storage } from '../../../src/db/dialect.ts';
import { migrateToLatest } from '../../../src/db/migrate.ts';
import { Registry } from '../../../src/registry/index.ts';
import { FaultyNodeError } from '../../../src/chain/errors.ts';
import { depositKey } from '../../../src/chain/watch-paths.ts';
import { createSolanaDriver } from '../../../src/chain/solana/config.ts';
import type { SolanaDriver } from '../../../src/chain/solana/solana-driver.ts';
import { startSolanaDouble, type SolanaDouble } from './double/server.ts';
import { LAMPORTS_PER_SOL, scenario, type Scenario } from './double/scenario.ts';
import { RecordingSink } from './recording-sink.ts';

const SOL = Registry.load().network('SOL')!;

type Tx = any;
const onTx = (f: (tx: Tx) => void) => (method: string, _p: unknown[], result: unknown) => {
  if (method === 'getTransaction' && result) f(result as Tx);
  return result;
};

const CASES: [string, (d: SolanaDouble) => void][] = [
  ['a balance past u64', (d) => (d.rewrite = onTx((tx) => (tx.meta.postBalances[1] = 2n ** 64n)))],
  ['a negative balance', (d) => (d.rewrite = onTx((tx) => (tx.meta.preBalances[1] = -5)))],
  ['a fractional balance', (d) => (d.rewrite = onTx((tx) => (tx.meta.postBalances[1] = 1.5)))],
  ['a balance as text with junk', (d) => (d.rewrite = onTx((tx) => (tx.meta.postBalances[1] = '12abc')))],
  ['balance lists shorter than the accounts', (d) => (d.rewrite = onTx((tx) => tx.meta.postBalances.pop()))],
  ['another transaction than asked', (d) => (d.rewrite = onTx((tx) => (tx.transaction.signatures[0] = '1'.repeat(64))))],
  ['an instruction account index out of range', (d) => (d.rewrite = onTx((tx) => (tx.transaction.message.instructions[0].accounts[1] = 99)))],
  ['instruction data that is not base58', (d) => (d.rewrite = onTx((tx) => (tx.transaction.message.instructions[0].data = '0OIl')))],
  ['an account key that is not a key', (d) => (d.rewrite = onTx((tx) => (tx.transaction.message.accountKeys[1] = 'x'.repeat(44))))],
  ['a token balance index out of range', (d) => (d.rewrite = onTx((tx) => (tx.meta.postTokenBalances = [{ accountIndex: 200, mint: tx.transaction.message.accountKeys[0], owner: null, uiTokenAmount: { amount: '1', decimals: 6 } }])))],
  ['a token amount past u64', (d) => (d.rewrite = onTx((tx) => (tx.meta.postTokenBalances = [{ accountIndex: 0, mint: tx.transaction.message.accountKeys[0], uiTokenAmount: { amount: '99999999999999999999999', decimals: 6 } }])))],
  [
    'signatures out of order',
    (d) =>
      (d.rewrite = (m, _p, r) => {
        if (m === 'getSignaturesForAddress' && Array.isArray(r) && r.length > 0) return [{ ...r[0], slot: 1 }, { ...r[0], slot: 999_999_999_999 }];
        return r;
      }),
  ],
  ['a signature that is not one', (d) => (d.rewrite = (m, _p, r) => (m === 'getSignaturesForAddress' && Array.isArray(r) && r.length ? [{ ...r[0], signature: 'abc' }] : r))],
  ['more signatures than the limit', (d) => (d.rewrite = (m, _p, r) => (m === 'getSignaturesForAddress' && Array.isArray(r) && r.length ? Array(1001).fill(r[0]) : r))],
  ['a status that says the credited transaction failed', (d) => (d.rewrite = (m, _p, r: any) => (m === 'getSignatureStatuses' ? { ...r, value: r.value.map((s: any) => s && { ...s, err: { InstructionError: [0, 'GenericError'] } }) } : r))],
  ['a status list of the wrong length', (d) => (d.rewrite = (m, _p, r: any) => (m === 'getSignatureStatuses' ? { ...r, value: [] } : r))],
  ['a head that is not a number', (d) => (d.rewrite = (m, _p, r) => (m === 'getSlot' ? 'soon' : r))],
  ['a head past 2^53', (d) => (d.rewrite = (m, _p, r) => (m === 'getSlot' ? 2n ** 60n : r))],
  ['a body that is not JSON', (d) => (d.rawBody = '<html>bad gateway</html>')],
  ['a body past max_response_bytes', (d) => (d.rawBody = JSON.stringify({ jsonrpc: '2.0', id: 1, result: 'x'.repeat(300_000) }))],
];

describe('solana driver behind a hostile node', () => {
  let double: SolanaDouble;
  let sc: Scenario;
  let storage: Storage;
  let payer: KeyPairSigner;
  let driver: SolanaDriver;

  beforeAll(async () => {
    storage = openStorage({ sqlitePath: ':memory:' });
    await migrateToLatest(storage);
    double = await startSolanaDouble();
    sc = scenario(double);
    payer = await sc.payer(1000n * LAMPORTS_PER_SOL);
    driver = createSolanaDriver(SOL, { driver: 'solana', rpc_url: double.url, cluster: 'localnet', max_response_bytes: 100_000 }, { seed: new Uint8Array(), storage });
  }, 60_000);
  afterAll(async () => {
    await driver?.close();
    await double?.close();
    await storage?.close();
  });

  it.each(CASES)('%s: a node fault, nothing credited; once honest, credited once', async (_name, lie) => {
    const merchant = await sc.payer(LAMPORTS_PER_SOL);
    const ref = await sc.reference();
    driver.watch([{ address: depositKey(merchant.address, ref), path: 'reference:test/0' }]);
    const sink = new RecordingSink();
    await driver.poll(sink);
    const sig = await sc.paySol(payer, merchant.address, 123_000_000n, [ref]);
    double.chain.finalizeAll();
    lie(double);
    try {
      await expect(driver.poll(sink)).rejects.toBeInstanceOf(FaultyNodeError);
      await expect(driver.poll(sink)).rejects.toBeInstanceOf(FaultyNodeError);
    } finally {
      double.rewrite = null;
      double.rawBody = null;
    }
    expect(sink.credited().filter((t) => t.txid === sig)).toEqual([]);
    await driver.poll(sink);
    await driver.poll(sink);
    const mine = sink.credited().filter((t) => t.txid === sig);
    expect(mine.map((t) => [t.amount, t.confirmations])).toEqual([['0.123', 32]]);
    expect(sink.calls.filter((t) => t.txid === sig && t.confirmations === 32)).toHaveLength(1);
  });
});
