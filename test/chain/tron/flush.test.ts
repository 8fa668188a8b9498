// TRON watch-only receiving on the node double: payments (TRX and USDT) to forwarder deposit
// addresses of two merchants' cold addresses are detected as today, then flushed: one
// TriggerSmartContract to the factory per deposit address, signed by the relayer. The double
// decodes every broadcast with tronweb (signature, owner, contract, call data) and runs the
// factory's effect (deploy the forwarder, move its balances to the cold address it was made for).
// Nothing is ever sent to a deposit address by the gateway: no activation, no TRX for energy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mnemonicToSeedSync } from '@scure/bip39';
import { TronWeb } from 'tronweb';
import { Registry } from '../../../src/registry/index.ts';
import { openStorage, type Storage } from '../../../src/db/dialect.ts';
import { migrateToLatest } from '../../../src/db/migrate.ts';
import { createTronDriver } from '../../../src/chain/tron/index.ts';
import type { TronDriver } from '../../../src/chain/tron/tron-driver.ts';
import { configuredTronNetwork, tronWatchOnly } from '../../../src/chain/tron/custody.ts';
import { tronDb } from '../../../src/chain/tron/schema.ts';
import { parseForwarderPath } from '../../../src/chain/watch-paths.ts';
import type { ChainSink, IncomingTransfer } from '../../../src/chain/contract.ts';
import { backends, type Backend } from '../../helpers/backends.ts';
import { TRON_PAYER as PAYER, TRON_PAYER_KEY as PAYER_KEY, TRON_USDT as USDT, TRX as UNITS } from '../gateway-setup.ts';
import { TronNodeDouble } from './node-double.ts';
import { FLUSH_BASE, FLUSH_DEPLOY, FLUSH_NATIVE, ENERGY_TO_HOLDER, ENERGY_TO_NEW, PARAMS } from './chain-state.ts';

const TRON = Registry.load().network('TRON')!;
const SEED = mnemonicToSeedSync('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about');
const addressOf = (key: string) => TronWeb.address.fromPrivateKey(key) as string;
const FACTORY = addressOf('fa'.repeat(32));
const IMPLEMENTATION = addressOf('1e'.repeat(32));
const RELAYER_KEY = '7e'.repeat(32);
const RELAYER = addressOf(RELAYER_KEY);
const COLD_A = addressOf('a1'.repeat(32));
const COLD_B = addressOf('b2'.repeat(32));
const CONFIRMATIONS = 3;

class Sink implements ChainSink {
  readonly seen = new Map<string, IncomingTransfer>();
  readonly outgoings: Array<{ txid: string; status: string }> = [];
  async transfer(t: IncomingTransfer): Promise<void> {
    this.seen.set(`${t.txid}:${t.index}`, t);
  }
  async dropped(): Promise<void> {}
  async outgoing(_network: string, txid: string, status: 'confirmed' | 'failed'): Promise<void> {
    this.outgoings.push({ txid, status });
  }
  to(address: string): Array<{ currency: string; amount: string; confirmations: number }> {
    return [...this.seen.values()].filter((t) => t.to === address).map((t) => ({ currency: t.currency, amount: t.amount, confirmations: t.confirmations }));
  }
}

interface Setup {
  node: TronNodeDouble;
  storage: Storage;
  driver: TronDriver;
  sink: Sink;
  clock: { now: number };
  drop(): Promise<void>;
  /** Mines `n` blocks, polling after each. */
  mine(n: number): Promise<void>;
}

const dir = mkdtempSync(join(tmpdir(), 'satchel-tron-flush-'));
const relayerFile = join(dir, 'relayer.key');
writeFileSync(relayerFile, `0x${RELAYER_KEY}\n`, { mode: 0o600 });
chmodSync(relayerFile, 0o600);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function setup(backend: Backend, network: Record<string, unknown> = {}): Promise<Setup> {
  const node = await new TronNodeDouble({ solidDepth: 2 }).start();
  node.token(USDT, PAYER, UNITS('1000000'));
  node.fund(PAYER, UNITS('100000'));
  node.fund(RELAYER, UNITS('500'));
  node.factory(FACTORY, IMPLEMENTATION);
  node.mine();
  // The driver's clock moves with the chain's: 3 s a block.
  const clock = { now: 1_800_000_000_000 };
  const db = await backend.create();
  const storage = openStorage({ databaseUrl: db.databaseUrl, sqlitePath: ':memory:' });
  await migrateToLatest(storage);
  const driver = createTronDriver(
    TRON,
    {
      driver: 'tron', api_url: node.url, confirmations: CONFIRMATIONS, tokens: { USDT }, start_block: node.head.number + 1,
      factory_address: FACTORY, implementation_address: IMPLEMENTATION, relayer_key_file: relayerFile,
      flush: { every_seconds: 0 },
      ...network,
    },
    { seed: SEED, storage, now: () => clock.now },
  );
  const sink = new Sink();
  return {
    clock,
    node,
    storage,
    driver,
    sink,
    async mine(n) {
      for (let i = 0; i < n; i++) {
        node.mine();
        clock.now += 3000;
        await driver.poll(sink);
      }
    },
    async drop() {
      await driver.close();
      await storage.close();
      await db.drop();
      await node.stop();
    },
  };
}

/** Deposit address `index` of a merchant's custody row, as the gateway allocates it. */
function deposit(cold: string, custodyId: string, index: number): { address: string; path: string } {
  const network = configuredTronNetwork(TRON, { factory_address: FACTORY, implementation_address: IMPLEMENTATION });
  return tronWatchOnly.deposit(network, cold, custodyId, index);
}

const movements = (s: Setup) =>
  tronDb(s.storage.db).selectFrom('tron_movements').select(['kind', 'currency', 'from_address', 'to_address', 'amount', 'status', 'txid']).orderBy('from_address').orderBy('currency').execute();

describe.each(await backends())('TRON watch-only flushing on $name', (backend) => {
  describe('two merchants, two cold addresses', () => {
    let s: Setup;
    const a0 = deposit(COLD_A, '6a0c3f7e-1111-4c55-9a57-3b8e2f6d1a00', 0);
    const a1 = deposit(COLD_A, '6a0c3f7e-1111-4c55-9a57-3b8e2f6d1a00', 1);
    const b0 = deposit(COLD_B, '9b1d2e3f-2222-4f6a-8b19-c4d7e2a9f311', 0);
    beforeAll(async () => {
      s = await setup(backend);
      s.driver.watch([a0, a1, b0]);
    });
    afterAll(async () => s?.drop());

    it('detects TRX and USDT paid to forwarders that have no code yet, as today', async () => {
      s.node.payToken(PAYER_KEY, USDT, a0.address, UNITS('100'));
      s.node.payTrx(PAYER_KEY, a1.address, UNITS('50'));
      s.node.payToken(PAYER_KEY, USDT, b0.address, UNITS('30'));
      s.node.payTrx(PAYER_KEY, b0.address, UNITS('5'));
      await s.mine(CONFIRMATIONS + 1);
      expect(s.sink.to(a0.address)).toEqual([{ currency: 'USDT', amount: '100', confirmations: CONFIRMATIONS }]);
      expect(s.sink.to(a1.address)).toEqual([{ currency: 'TRX', amount: '50', confirmations: CONFIRMATIONS }]);
      expect(s.sink.to(b0.address).sort((x, y) => x.currency.localeCompare(y.currency))).toEqual([
        { currency: 'TRX', amount: '5', confirmations: CONFIRMATIONS },
        { currency: 'USDT', amount: '30', confirmations: CONFIRMATIONS },
      ]);
      for (const d of [a0, a1, b0]) expect(s.node.deployed(d.address)).toBe(false);
    });

    it('flushes each deposit address to its own cold address, one factory call each, signed by the relayer', async () => {
      const relayerTrx = s.node.trx(RELAYER);
      const txids = await s.driver.flush();
      expect(txids).toHaveLength(3);
      // What tronweb decoded from the signed bytes the node was given.
      const calls = s.node.factoryCalls.filter((c) => txids.includes(c.txID));
      expect(calls).toHaveLength(3);
      for (const c of calls) {
        expect(c.owner).toBe(RELAYER);
        expect(c.contract).toBe(FACTORY);
        expect(c.feeLimit).toBe(UNITS('50'));
      }
      const byCold = (d: { path: string }) => {
        const p = parseForwarderPath(d.path)!;
        return calls.find((c) => c.flush?.cold === p.cold && c.flush.salt === p.salt)?.flush;
      };
      expect(byCold(a0)).toEqual({ cold: COLD_A, salt: parseForwarderPath(a0.path)!.salt, tokens: [USDT], native: false });
      expect(byCold(a1)).toEqual({ cold: COLD_A, salt: parseForwarderPath(a1.path)!.salt, tokens: [], native: true });
      expect(byCold(b0)).toEqual({ cold: COLD_B, salt: parseForwarderPath(b0.path)!.salt, tokens: [USDT], native: true });
      // Every transaction the gateway sent is one of these: nothing went to a deposit address.
      const ours = s.node.broadcasts.filter((b) => b.effect.owner !== TronWeb.address.toHex(PAYER).toLowerCase());
      expect(ours.map((b) => b.txID).sort()).toEqual([...txids].sort());

      await s.mine(CONFIRMATIONS + 1);
      expect(s.node.tokenBalance(USDT, COLD_A)).toBe(UNITS('100'));
      expect(s.node.trx(COLD_A)).toBe(UNITS('50'));
      expect(s.node.tokenBalance(USDT, COLD_B)).toBe(UNITS('30'));
      expect(s.node.trx(COLD_B)).toBe(UNITS('5'));
      for (const d of [a0, a1, b0]) {
        expect(s.node.deployed(d.address)).toBe(true);
        expect(s.node.trx(d.address)).toBe(0n);
        expect(s.node.tokenBalance(USDT, d.address)).toBe(0n);
      }
      // The relayer paid the fees (it stakes nothing, so energy is burned): three deployments, two
      // TRX legs, two USDT transfers to cold addresses that held none; and only the relayer paid.
      const fees = await feesOf(s, txids);
      expect(fees.energy).toBe((3n * (FLUSH_BASE + FLUSH_DEPLOY) + 2n * FLUSH_NATIVE + 2n * ENERGY_TO_NEW) * PARAMS.getEnergyFee);
      expect(relayerTrx - s.node.trx(RELAYER)).toBe(fees.total);
    });

    it('records each flush with its transaction, done once final, and marks the payments it moved as swept', async () => {
      await s.driver.flush(); // settles the flushes of the last round; nothing left to flush
      const m = await movements(s);
      expect(m.map(({ txid: _t, ...rest }) => rest)).toEqual(
        [
          { kind: 'flush', currency: 'USDT', from_address: a0.address, to_address: COLD_A, amount: '100', status: 'done' },
          { kind: 'flush', currency: 'TRX', from_address: a1.address, to_address: COLD_A, amount: '50', status: 'done' },
          { kind: 'flush', currency: 'TRX', from_address: b0.address, to_address: COLD_B, amount: '5', status: 'done' },
          { kind: 'flush', currency: 'USDT', from_address: b0.address, to_address: COLD_B, amount: '30', status: 'done' },
        ].sort((x, y) => (x.from_address === y.from_address ? x.currency.localeCompare(y.currency) : x.from_address < y.from_address ? -1 : 1)),
      );
      const b0Tx = m.filter((x) => x.from_address === b0.address).map((x) => x.txid);
      expect(b0Tx[0]).toBe(b0Tx[1]); // one transaction moved both
      expect(s.node.factoryCalls.some((c) => c.txID === b0Tx[0] && c.flush?.cold === COLD_B)).toBe(true);
      const outgoing = await tronDb(s.storage.db).selectFrom('scan_outgoing').select(['kind', 'from_address', 'to_address', 'status', 'txid']).execute();
      expect(outgoing).toHaveLength(3);
      for (const o of outgoing) expect(o).toMatchObject({ kind: 'flush', from_address: RELAYER, status: 'confirmed' });
      const unswept = await tronDb(s.storage.db).selectFrom('scan_transfers').select('to_address').where('swept', '=', 0).execute();
      expect(unswept).toEqual([]);
      expect(s.node.factoryCalls).toHaveLength(3);
    });

    it('a second payment to a deployed forwarder is detected and flushed again, without a second deployment', async () => {
      const relayerTrx = s.node.trx(RELAYER);
      s.node.payToken(PAYER_KEY, USDT, a0.address, UNITS('7.5'));
      await s.mine(CONFIRMATIONS + 1);
      expect(s.sink.to(a0.address)).toContainEqual({ currency: 'USDT', amount: '7.5', confirmations: CONFIRMATIONS });
      const [txid] = await s.driver.flush();
      expect(s.node.factoryCalls.find((c) => c.txID === txid)).toMatchObject({ owner: RELAYER, contract: FACTORY, flush: { cold: COLD_A, tokens: [USDT], native: false } });
      await s.mine(CONFIRMATIONS + 1);
      expect(s.node.tokenBalance(USDT, COLD_A)).toBe(UNITS('107.5'));
      expect(s.node.tokenBalance(USDT, a0.address)).toBe(0n);
      // Already deployed, and the cold address holds USDT already: the cheapest flush.
      const fees = await feesOf(s, [txid!]);
      expect(fees.energy).toBe((FLUSH_BASE + ENERGY_TO_HOLDER) * PARAMS.getEnergyFee);
      expect(relayerTrx - s.node.trx(RELAYER)).toBe(fees.total);
      await s.driver.flush();
      expect((await movements(s)).filter((m) => m.txid === txid)).toEqual([expect.objectContaining({ currency: 'USDT', amount: '7.5', status: 'done' })]);
    });
  });

  describe('thresholds and safety', () => {
    let s: Setup;
    const d0 = deposit(COLD_A, '0e0e0e0e-3333-4c55-9a57-3b8e2f6d1a00', 0);
    afterAll(async () => s?.drop());

    it('leaves amounts below min_token / min_native at the forwarder until they are reached', async () => {
      s = await setup(backend, { flush: { every_seconds: 0, min_native: '10', min_token: { USDT: '20' } } });
      s.driver.watch([d0]);
      s.node.payToken(PAYER_KEY, USDT, d0.address, UNITS('15'));
      s.node.payTrx(PAYER_KEY, d0.address, UNITS('3'));
      await s.mine(CONFIRMATIONS + 1);
      expect(await s.driver.flush()).toEqual([]);
      expect(s.node.factoryCalls).toHaveLength(0);
      s.node.payToken(PAYER_KEY, USDT, d0.address, UNITS('5'));
      await s.mine(CONFIRMATIONS + 1);
      const sent = await s.driver.flush();
      expect(sent).toHaveLength(1);
      // Once a flush is paid for, it takes everything: the TRX below min_native too.
      expect(s.node.factoryCalls[0]!.flush).toMatchObject({ cold: COLD_A, tokens: [USDT], native: true });
      await s.mine(CONFIRMATIONS + 1);
      expect(s.node.tokenBalance(USDT, COLD_A)).toBe(UNITS('20'));
      expect(s.node.trx(COLD_A)).toBe(UNITS('3'));
    });

    it('flushes from poll() on its own every every_seconds', async () => {
      const t = await setup(backend, { flush: { every_seconds: 30 } });
      try {
        const d = deposit(COLD_B, '0f0f0f0f-4444-4c55-9a57-3b8e2f6d1a00', 0);
        t.driver.watch([d]);
        await t.mine(1); // the first round, with nothing to flush
        t.node.payTrx(PAYER_KEY, d.address, UNITS('12'));
        await t.mine(CONFIRMATIONS + 1); // confirmed, 12 s after the first round: not yet
        expect(t.node.factoryCalls).toHaveLength(0);
        await t.mine(6); // 30 s after the first round
        expect(t.node.factoryCalls.map((c) => c.flush?.cold)).toEqual([COLD_B]);
        await t.mine(CONFIRMATIONS + 1);
        expect(t.node.trx(COLD_B)).toBe(UNITS('12'));
      } finally {
        await t.drop();
      }
    });

    it('a cold address refusing TRX: its tokens are flushed without the TRX; a flush that would revert is never sent', async () => {
      const t = await setup(backend);
      try {
        const refuser = addressOf('c3'.repeat(32));
        t.node.refuseTrx(refuser);
        const mixed = deposit(refuser, '1a1a1a1a-5555-4c55-9a57-3b8e2f6d1a00', 0);
        const trxOnly = deposit(refuser, '1a1a1a1a-5555-4c55-9a57-3b8e2f6d1a00', 1);
        t.driver.watch([mixed, trxOnly]);
        t.node.payToken(PAYER_KEY, USDT, mixed.address, UNITS('40'));
        t.node.payTrx(PAYER_KEY, mixed.address, UNITS('2'));
        t.node.payTrx(PAYER_KEY, trxOnly.address, UNITS('9'));
        await t.mine(CONFIRMATIONS + 1);
        const relayerTrx = t.node.trx(RELAYER);
        const sent = await t.driver.flush();
        expect(sent).toHaveLength(1);
        expect(t.node.factoryCalls.map((c) => c.flush)).toEqual([{ cold: refuser, salt: parseForwarderPath(mixed.path)!.salt, tokens: [USDT], native: false }]);
        await t.mine(CONFIRMATIONS + 1);
        expect(t.node.tokenBalance(USDT, refuser)).toBe(UNITS('40'));
        expect(t.node.trx(mixed.address)).toBe(UNITS('2'));
        expect(t.node.trx(trxOnly.address)).toBe(UNITS('9'));
        expect(relayerTrx - t.node.trx(RELAYER)).toBe((await feesOf(t, sent)).total); // nothing burned on a revert
        expect(await t.driver.flush()).toEqual([]);
        expect(t.node.factoryCalls).toHaveLength(1);
        expect((await movements(t)).map((m) => [m.currency, m.from_address, m.status])).toEqual([['USDT', mixed.address, 'done']]);
      } finally {
        await t.drop();
      }
    });

    it('a flush the node lost is sent again while it can be mined, then planned anew once it expired', async () => {
      const t = await setup(backend);
      try {
        const d = deposit(COLD_A, '2b2b2b2b-6666-4c55-9a57-3b8e2f6d1a00', 0);
        t.driver.watch([d]);
        t.node.payToken(PAYER_KEY, USDT, d.address, UNITS('60'));
        await t.mine(CONFIRMATIONS + 1);
        t.node.dropBroadcasts = true;
        const [lost] = await t.driver.flush();
        await t.mine(30); // past its expiration (60 s): rebroadcast meanwhile, lost each time
        expect(t.node.broadcasts.filter((b) => b.txID === lost).length).toBeGreaterThan(1);
        expect(t.node.tokenBalance(USDT, d.address)).toBe(UNITS('60'));
        t.node.dropBroadcasts = false;
        const [again] = await t.driver.flush();
        expect(again).toBeDefined();
        expect(again).not.toBe(lost);
        await t.mine(CONFIRMATIONS + 1);
        expect(t.node.tokenBalance(USDT, COLD_A)).toBe(UNITS('60'));
        await t.driver.flush();
        expect((await movements(t)).map((m) => [m.txid, m.status])).toEqual(expect.arrayContaining([[lost, 'failed'], [again, 'done']]));
        const rows = await tronDb(t.storage.db).selectFrom('scan_outgoing').select(['txid', 'status']).execute();
        expect(rows).toEqual(expect.arrayContaining([{ txid: lost, status: 'expired' }, { txid: again, status: 'confirmed' }]));
      } finally {
        await t.drop();
      }
    });

    it('refuses to flush when the factory does not answer the configured implementation', async () => {
      const t = await setup(backend, { implementation_address: addressOf('99'.repeat(32)) });
      try {
        await expect(t.driver.flush()).rejects.toThrow(`TRON: the contract at factory_address ${FACTORY} answers implementation ${IMPLEMENTATION}, not implementation_address`);
        const u = await setup(backend, { factory_address: addressOf('98'.repeat(32)) });
        try {
          await expect(u.driver.flush()).rejects.toThrow('is not a forwarder factory');
        } finally {
          await u.drop();
        }
        expect(t.node.broadcasts).toHaveLength(0);
      } finally {
        await t.drop();
      }
    });

    it('never flushes without a relayer key; hot custody never flushes', async () => {
      const t = await setup(backend, { relayer_key_file: undefined });
      try {
        await expect(t.driver.flush()).rejects.toThrow('TRON: no relayer_key_file is configured; nothing can be flushed');
      } finally {
        await t.drop();
      }
      const hot = await setup(backend, { custody: 'hot', factory_address: undefined, implementation_address: undefined, relayer_key_file: undefined, flush: undefined });
      try {
        expect(hot.driver.flusher).toBeNull();
        await expect(hot.driver.flush()).rejects.toThrow('TRON is in hot custody');
      } finally {
        await hot.drop();
      }
    });
  });
});

/** What the node reports these transactions burned: in all, and for energy. */
async function feesOf(s: Setup, txids: string[]): Promise<{ total: bigint; energy: bigint }> {
  let total = 0n;
  let energy = 0n;
  for (const id of txids) {
    const r = await fetch(`${s.node.url}/wallet/gettransactioninfobyid`, { method: 'POST', body: JSON.stringify({ value: id }) });
    const info = (await r.json()) as { fee?: number; receipt?: { energy_fee?: number; result?: string } };
    expect(info.receipt?.result).toBe('SUCCESS');
    total += BigInt(info.fee ?? 0);
    energy += BigInt(info.receipt?.energy_fee ?? 0);
  }
  return { total, energy };
}
