// The `solana` driver against the JSON-RPC double over LiteSVM (the real System, SPL Token and ATA
// programs execute every payment, built and signed by @solana/kit as a Solana Pay wallet would),
// on both databases: SOL and USDC payments carrying an invoice's reference credited with what
// reached the merchant; a look-alike mint and a failed transaction never credited; two invoices
// in one transaction each credited once; `confirmed` reported short of the network's
// confirmations, `finalized` with all of them; payments without a reference reported as
// unmatched; a node down and back, and a restart from the stored cursor, credit nothing twice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyPairSigner } from '@solana/kit';
import { backends } from '../../helpers/backends.ts';
import { openStorage, type Storage } from '../../../src/db/dialect.ts';
import { migrateToLatest } from '../../../src/db/migrate.ts';
import { Registry } from '../../../src/registry/index.ts';
import type { ChainSink, IncomingTransfer, UnmatchedTransfer } from '../../../src/chain/contract.ts';
import { NodeUnreachableError } from '../../../src/chain/errors.ts';
import { depositKey } from '../../../src/chain/watch-paths.ts';
import { createSolanaDriver } from '../../../src/chain/solana/config.ts';
import type { SolanaDriver } from '../../../src/chain/solana/solana-driver.ts';
import { startSolanaDouble, type SolanaDouble } from './double/server.ts';
import { LAMPORTS_PER_SOL, scenario, type Mint, type Scenario } from './double/scenario.ts';

const SOL = Registry.load().network('SOL')!;

/** Records what the driver reports, as the gateway's sink would (the last word per transfer). */
export class RecordingSink implements ChainSink {
  readonly transfers = new Map<string, IncomingTransfer>();
  readonly calls: IncomingTransfer[] = [];
  readonly unmatchedList: UnmatchedTransfer[] = [];
  readonly droppedList: string[] = [];
  async transfer(t: IncomingTransfer) {
    this.calls.push(t);
    this.transfers.set(`${t.txid}:${t.index}`, t);
  }
  async unmatched(t: UnmatchedTransfer) {
    this.unmatchedList.push(t);
  }
  async dropped(_n: string, txid: string, index: number) {
    this.droppedList.push(`${txid}:${index}`);
  }
  async outgoing() {}
  credited(): IncomingTransfer[] {
    return [...this.transfers.values()];
  }
}

describe.each(await backends())('solana driver on the LiteSVM double ($name)', (backend) => {
  let double: SolanaDouble;
  let sc: Scenario;
  let storage: Storage;
  let drop: () => Promise<void>;
  let payer: KeyPairSigner;
  let usdc: Mint;
  let usdt: Mint;
  let fake: Mint;
  const drivers: SolanaDriver[] = [];
  const makeDriver = (cfg: Record<string, unknown> = {}) => {
    const d = createSolanaDriver(SOL, { driver: 'solana', rpc_url: double.url, cluster: 'localnet', tokens: { USDC: usdc.address, USDT: usdt.address }, ...cfg }, { seed: new Uint8Array(), storage });
    drivers.push(d);
    return d;
  };
  /** A fresh merchant wallet and `n` invoices' references on it, watched by the driver. */
  const invoices = async (d: SolanaDriver, n: number) => {
    const merchant = await sc.payer(LAMPORTS_PER_SOL);
    const refs: string[] = [];
    for (let i = 0; i < n; i++) refs.push(await sc.reference());
    d.watch(refs.map((r, i) => ({ address: depositKey(merchant.address, r), path: `reference:test/${i}` })));
    return { merchant, refs, key: (i: number) => depositKey(merchant.address, refs[i]!) };
  };

  beforeAll(async () => {
    const db = await backend.create();
    drop = db.drop;
    storage = openStorage({ databaseUrl: db.databaseUrl, sqlitePath: ':memory:' });
    await migrateToLatest(storage);
    double = await startSolanaDouble();
    sc = scenario(double);
    payer = await sc.payer(100n * LAMPORTS_PER_SOL);
    usdc = await sc.mint(6);
    usdt = await sc.mint(6);
    fake = await sc.mint(6);
    for (const m of [usdc, usdt, fake]) await sc.mintTo(m, payer.address, 1_000_000_000_000n);
  }, 60_000);
  afterAll(async () => {
    for (const d of drivers) await d.close();
    await double?.close();
    await storage?.close();
    await drop?.();
  });

  it('credits SOL paid with a reference (exact, partial, over): confirmed short of the confirmations, finalized with all', async () => {
    const driver = makeDriver();
    const { merchant, refs, key } = await invoices(driver, 3);
    const sink = new RecordingSink();
    await driver.poll(sink);
    const exact = await sc.paySol(payer, merchant.address, 1_500_000_000n, [refs[0]!]);
    const part = await sc.paySol(payer, merchant.address, 700_000_000n, [refs[1]!]);
    const over = await sc.paySol(payer, merchant.address, 2_000_000_001n, [refs[2]!]);
    await driver.poll(sink);
    // Each transaction landed in its own slot: the oldest has two slots on top of it.
    expect(sink.credited().map((t) => t.confirmations)).toEqual([2, 1, 0]);
    double.chain.advance(5);
    await driver.poll(sink);
    expect(sink.credited().map((t) => t.confirmations)).toEqual([7, 6, 5]);
    double.chain.finalizeAll();
    await driver.poll(sink);
    const byTo = new Map(sink.credited().map((t) => [t.to, t]));
    expect(byTo.get(key(0))).toMatchObject({ network: 'SOL', currency: 'SOL', amount: '1.5', txid: exact, index: 0, from: payer.address, confirmations: 32 });
    expect(byTo.get(key(1))).toMatchObject({ currency: 'SOL', amount: '0.7', txid: part, confirmations: 32 });
    expect(byTo.get(key(2))).toMatchObject({ currency: 'SOL', amount: '2.000000001', txid: over, confirmations: 32 });
    expect(sink.credited()).toHaveLength(3);
    expect(sink.unmatchedList).toEqual([]);
    const before = sink.calls.length;
    double.chain.advance(1);
    await driver.poll(sink);
    expect(sink.calls.length).toBe(before);
  });

  it('credits USDC into the merchant ATA, never a look-alike mint; a failed transaction credits nothing', async () => {
    const driver = makeDriver();
    const { merchant, refs, key } = await invoices(driver, 3);
    const sink = new RecordingSink();
    await driver.poll(sink);
    const paid = await sc.payToken(payer, merchant.address, usdc, 12_500_000n, [refs[0]!]);
    await sc.payToken(payer, merchant.address, fake, 100_000_000n, [refs[1]!]);
    const poor = await sc.payer(1_000_000n);
    const failed = await sc.pay(poor, [{ to: merchant.address, amount: 5_000_000n, references: [refs[2]!] }], { skipPreflight: true });
    expect(double.chain.get(failed)!.err).not.toBeNull();
    double.chain.finalizeAll();
    await driver.poll(sink);
    expect(sink.credited().map((t) => [t.to, t.currency, t.amount, t.txid, t.from])).toEqual([[key(0), 'USDC', '12.5', paid, payer.address]]);
    expect(sink.unmatchedList).toEqual([]);
  });

  it('two invoices paid in one transaction (SOL and USDC legs, two references) are each credited once', async () => {
    const driver = makeDriver();
    const { merchant, refs, key } = await invoices(driver, 3);
    await sc.createAta(merchant.address, usdc);
    const sink = new RecordingSink();
    await driver.poll(sink);
    const sig = await sc.pay(payer, [
      { to: merchant.address, amount: 250_000_000n, references: [refs[0]!] },
      { to: merchant.address, amount: 3_000_000n, references: [refs[1]!], mint: usdc },
      { to: merchant.address, amount: 40_000_000n, references: [refs[2]!] },
    ]);
    double.chain.finalizeAll();
    await driver.poll(sink);
    await driver.poll(sink);
    expect(sink.credited().map((t) => [t.to, t.currency, t.amount, t.index]).sort()).toEqual(
      [
        [key(0), 'SOL', '0.25', 0],
        [key(1), 'USDC', '3', 1],
        [key(2), 'SOL', '0.04', 2],
      ].sort(),
    );
    for (const t of sink.credited()) expect(t.txid).toBe(sig);
    expect(sink.calls.filter((c) => c.confirmations === 32)).toHaveLength(3);
  });

  it('reports transfers without a known reference as unmatched once finalized, to the merchant wallet', async () => {
    const driver = makeDriver();
    const { merchant } = await invoices(driver, 1);
    await sc.createAta(merchant.address, usdt);
    const sink = new RecordingSink();
    await driver.poll(sink);
    const stranger = await sc.reference();
    const plain = await sc.paySol(payer, merchant.address, 300_000_000n);
    const unknown = await sc.paySol(payer, merchant.address, 400_000_000n, [stranger]);
    const token = await sc.pay(payer, [{ to: merchant.address, amount: 2_000_000n, mint: usdt }]);
    await driver.poll(sink);
    expect(sink.unmatchedList).toEqual([]);
    double.chain.finalizeAll();
    await driver.poll(sink);
    expect(sink.credited()).toEqual([]);
    expect(sink.unmatchedList.map((u) => [u.txid, u.currency, u.amount, u.reason, u.memo, u.to, u.from]).sort()).toEqual(
      [
        [plain, 'SOL', '0.3', 'no_reference', null, merchant.address, payer.address],
        [unknown, 'SOL', '0.4', 'unknown_reference', stranger, merchant.address, payer.address],
        [token, 'USDT', '2', 'no_reference', null, merchant.address, payer.address],
      ].sort(),
    );
    const n = sink.unmatchedList.length;
    double.chain.advance(1);
    await driver.poll(sink);
    expect(sink.unmatchedList.length).toBe(n);
  });

  it('resumes after the node was down, and a restart from the stored cursor credits nothing twice', async () => {
    const driver = makeDriver();
    const { merchant, refs, key } = await invoices(driver, 2);
    const sink = new RecordingSink();
    await driver.poll(sink);
    await double.down();
    await expect(driver.poll(sink)).rejects.toBeInstanceOf(NodeUnreachableError);
    await double.up();
    const one = await sc.paySol(payer, merchant.address, 1_000_000_000n, [refs[0]!]);
    await double.down({ refuse: true });
    await expect(driver.poll(sink)).rejects.toBeInstanceOf(NodeUnreachableError);
    await double.up();
    await driver.poll(sink);
    expect(sink.credited().map((t) => [t.txid, t.confirmations])).toEqual([[one, 0]]);
    await driver.close();

    // A new process on the same database: its walks start at the stored cursors; what is open is
    // still reported until finalized, then never again.
    const again = makeDriver();
    again.watch(refs.map((r, i) => ({ address: depositKey(merchant.address, r), path: `reference:test/${i}` })));
    const sink2 = new RecordingSink();
    double.chain.finalizeAll();
    await again.poll(sink2);
    expect(sink2.credited().map((t) => [t.to, t.txid, t.confirmations])).toEqual([[key(0), one, 32]]);
    const calls = sink2.calls.length;
    await again.poll(sink2);
    expect(sink2.calls.length).toBe(calls);
    const two = await sc.paySol(payer, merchant.address, 5n, [refs[1]!]);
    double.chain.finalizeAll();
    await again.poll(sink2);
    expect(sink2.credited().map((t) => t.txid)).toEqual([one, two]);
  });
});
