// The float over JSON-RPC: SolanaPayouts with the node client of ./float-node.ts against the
// JSON-RPC double over LiteSVM, as the driver runs it: the exact SOL amount, a USDC payout that
// creates the recipient's token account (rent as the node quotes it), a crash between signing and
// broadcasting, a broadcast lost until its blockhash expired (the finalized height is what proves
// it), and a node whose answers are not sane.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSigner, lamports, type Address } from '@solana/kit';
import { backends } from '../../helpers/backends.ts';
import { openStorage, type Storage } from '../../../src/db/dialect.ts';
import { migrateToLatest } from '../../../src/db/migrate.ts';
import { FaultyNodeError, NodeError } from '../../../src/chain/errors.ts';
import { rpcPayoutNode, type SolanaCaller } from '../../../src/chain/solana/float-node.ts';
import { solanaFloat } from '../../../src/chain/solana/float.ts';
import { SolanaPayouts, SolanaPendingError } from '../../../src/chain/solana/outgoing.ts';
import { startSolanaDouble, type SolanaDouble } from './double/server.ts';
import { scenario, LAMPORTS_PER_SOL, type Mint, type Scenario } from './double/scenario.ts';
import { tokenBalance } from './payout-svm.ts';

/** A bare JSON-RPC caller (the driver's client is ./rpc.ts; this one keeps the test apart from it). */
function caller(url: string): SolanaCaller {
  let id = 0;
  return {
    async call(method, params) {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }) });
      const body = (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
      if (body.error) throw new NodeError(method, body.error.code, body.error.message);
      return body.result;
    },
  };
}

describe.each(await backends())('Solana payouts over JSON-RPC ($name)', (backend) => {
  let double: SolanaDouble;
  let sc: Scenario;
  let storage: Storage;
  let drop: () => Promise<void>;
  let usdc: Mint;
  let payouts: SolanaPayouts;
  let n = 0;
  const id = () => `00000000-0000-4000-9000-${String(++n).padStart(12, '0')}`;
  const lamportsOf = (a: string) => double.chain.svm.getBalance(a as Address) ?? 0n;

  beforeAll(async () => {
    const db = await backend.create();
    drop = db.drop;
    storage = openStorage({ databaseUrl: db.databaseUrl, sqlitePath: ':memory:' });
    await migrateToLatest(storage);
    double = await startSolanaDouble();
    sc = scenario(double);
    usdc = await sc.mint(6);
    const float = solanaFloat((await import('@scure/base')).base58.encode(new Uint8Array(32).fill(0x33)));
    double.chain.svm.airdrop(float.address as Address, lamports(10n * LAMPORTS_PER_SOL));
    await sc.mintTo(usdc, float.address, 500_000_000n);
    payouts = new SolanaPayouts({
      network: 'SOL',
      node: rpcPayoutNode(caller(double.url)),
      db: storage.db,
      storage,
      native: { code: 'SOL', decimals: 9 },
      tokens: [{ code: 'USDC', mint: usdc.address, decimals: 6 }],
      float,
      confirmations: 32,
      now: Date.now,
      log: () => {},
      findWaitMs: 0,
      rebroadcastAfterMs: 0,
    });
  }, 60_000);
  afterAll(async () => {
    double.rewrite = null;
    await double?.close();
    await storage?.close();
    await drop?.();
  });

  it('SOL exact; USDC to a wallet without a token account creates it, its rent as the node quotes it', async () => {
    const to = (await generateKeyPairSigner()).address;
    await payouts.send(id(), payouts.parse({ network: 'SOL', currency: 'SOL', to, amount: '2.000000001' }));
    expect(lamportsOf(to)).toBe(2_000_000_001n);
    const p = payouts.parse({ network: 'SOL', currency: 'USDC', to, amount: '3.25' });
    const rent = double.chain.svm.minimumBalanceForRentExemption(165n);
    expect(await payouts.destinationFee(p)).toBe((Number(rent) / 1e9).toString());
    await payouts.send(id(), p);
    expect(tokenBalance(double.chain.svm, await sc.ata(to, usdc))).toBe(3_250_000n);
    expect(await payouts.destinationFee(p)).toBe('0');
  });

  it('a crash between signing and broadcasting sends once; a broadcast lost until expiry is signed again only once the finalized height passed it', async () => {
    const to = (await generateKeyPairSigner()).address;
    const crashed = id();
    const p = payouts.parse({ network: 'SOL', currency: 'SOL', to, amount: '0.5' });
    const stored = await payouts.prepare(crashed, p);
    expect(await payouts.send(crashed, p)).toBe(stored.txid);
    expect(await payouts.send(crashed, p)).toBe(stored.txid);
    expect(lamportsOf(to)).toBe(500_000_000n);

    const lost = id();
    double.chain.dropSends = 1;
    await expect(payouts.send(lost, p)).rejects.toBeInstanceOf(SolanaPendingError);
    // Past the blockhash at `confirmed` only: the finalized height is not, so no new signature yet.
    double.chain.expireBlockhashes();
    await expect(payouts.send(lost, p)).rejects.toBeInstanceOf(SolanaPendingError);
    expect((await payouts.attempts(lost)).map((r) => r.attempt)).toEqual([0]);
    double.chain.finalizeAll();
    await payouts.send(lost, p);
    expect((await payouts.attempts(lost)).map((r) => [r.attempt, r.status])).toEqual([
      [1, 'mined'],
      [0, 'expired'],
    ]);
    expect(lamportsOf(to)).toBe(1_000_000_000n);
  });

  it('a node that answers nonsense is a faulty node: nothing is signed', async () => {
    const to = (await generateKeyPairSigner()).address;
    for (const [method, bad] of [
      ['getAccountInfo', { context: { slot: 1 }, value: { lamports: -1, owner: '11111111111111111111111111111111', executable: false, data: ['', 'base64'] } }],
      ['getFeeForMessage', { context: { slot: 1 }, value: '1e9' }],
      ['getLatestBlockhash', { context: { slot: 1 }, value: { blockhash: 'not base58!', lastValidBlockHeight: 5 } }],
    ] as const) {
      double.rewrite = (m, _p, result) => (m === method ? bad : result);
      const key = id();
      await expect(payouts.send(key, payouts.parse({ network: 'SOL', currency: 'SOL', to, amount: '0.1' }))).rejects.toBeInstanceOf(FaultyNodeError);
      double.rewrite = null;
      expect(await payouts.attempts(key)).toEqual([]);
    }
    expect(lamportsOf(to)).toBe(0n);
    // Statuses are asked after the broadcast: a nonsense answer leaves the stored transaction, which
    // the retry follows (one payment).
    double.rewrite = (m, _p, result) => (m === 'getSignatureStatuses' ? { context: { slot: 1 }, value: [] } : result);
    const key = id();
    const p = payouts.parse({ network: 'SOL', currency: 'SOL', to, amount: '0.1' });
    await expect(payouts.send(key, p)).rejects.toBeInstanceOf(FaultyNodeError);
    double.rewrite = null;
    const [stored] = await payouts.attempts(key);
    expect(await payouts.send(key, p)).toBe(stored!.txid);
    expect(lamportsOf(to)).toBe(100_000_000n);
  });
});
