// Shared fixture of the EVM driver tests: anvil, two test tokens (6 and 18 decimals), an
// in-memory SQLite storage with the migrations, the seed, and a sink that records what it is told.
import { mnemonicToSeedSync } from '@scure/bip39';
import { openStorage, type Storage } from '../../../src/db/dialect.ts';
import { migrateToLatest } from '../../../src/db/migrate.ts';
import { Registry, type NetworkDef } from '../../../src/registry/index.ts';
import { deriveAddress } from '../../helpers/addresses.ts';
import type { ChainSink, IncomingTransfer, WatchedAddress } from '../../../src/chain/contract.ts';
import { EvmDriver, type EvmDriverOptions } from '../../../src/chain/evm/evm-driver.ts';
import { CHAIN_ID, deployToken, startAnvil, type Anvil, type TestToken } from './anvil.ts';

export const MNEMONIC = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
export const SEED = mnemonicToSeedSync(MNEMONIC);
export const CONFIRMATIONS = 3;

export interface Fixture {
  anvil: Anvil;
  usdt: TestToken; // 6 decimals
  dai: TestToken; // 18 decimals
  network: NetworkDef;
}

/** ETH from the registry, re-pointed at the local chain: USDT (6) and DAI (18) are test tokens. */
export function testNetwork(): NetworkDef {
  const eth = Registry.load().network('ETH')!;
  return {
    ...eth,
    chain_id: CHAIN_ID,
    currencies: [
      ...eth.currencies.filter((c) => c.native || c.code === 'USDT'),
      { ...eth.currencies.find((c) => c.code === 'USDT')!, code: 'DAI', name: 'Dai', decimals: 18, contract: undefined },
    ],
  };
}

export async function startFixture(): Promise<Fixture> {
  const anvil = await startAnvil();
  const usdt = await deployToken(anvil, 'USDT', 6);
  const dai = await deployToken(anvil, 'DAI', 18);
  return { anvil, usdt, dai, network: testNetwork() };
}

/** SQLite in memory, or the PostgreSQL database at `databaseUrl`, migrated. */
export async function newStorage(databaseUrl?: string): Promise<Storage> {
  const storage = databaseUrl ? openStorage({ databaseUrl }) : openStorage({ sqlitePath: ':memory:' });
  await migrateToLatest(storage);
  return storage;
}

export function makeDriver(f: Fixture, storage: Storage, extra: Partial<EvmDriverOptions> = {}): EvmDriver {
  return new EvmDriver(driverOptions(f, storage, extra));
}

export function driverOptions(f: Fixture, storage: Storage, extra: Partial<EvmDriverOptions> = {}): EvmDriverOptions {
  return {
    network: f.network,
    rpcUrl: f.anvil.url,
    chainId: CHAIN_ID,
    confirmations: CONFIRMATIONS,
    tokens: [
      { code: 'USDT', contract: f.usdt.address, decimals: 6 },
      { code: 'DAI', contract: f.dai.address, decimals: 18 },
    ],
    seed: SEED,
    storage,
    startBlock: 0,
    ...extra,
  };
}

const pathOf = new Map<string, string>();

/** Addresses as the gateway gives them to watch(): with the path of the ones depositAddress made. */
export function watched(...addresses: string[]): WatchedAddress[] {
  return addresses.map((address) => ({ address, path: pathOf.get(address.toLowerCase()) ?? '' }));
}

/** The deposit address at index i (what the gateway's allocator hands out), recorded like it does. */
export async function depositAddress(storage: Storage, i: number, owner = `inv-${i}`): Promise<string> {
  const { address, path } = deriveAddress('evm', SEED, 60, i);
  pathOf.set(address.toLowerCase(), path);
  await storage.db
    .insertInto('addresses')
    .values({ address, network: 'ETH', path, owner_kind: 'invoice', owner_id: owner, created_at: Date.now() })
    .onConflict((oc) => oc.doNothing())
    .execute();
  return address;
}

export type SinkEvent =
  | { kind: 'transfer'; t: IncomingTransfer }
  | { kind: 'dropped'; network: string; txid: string; index: number }
  | { kind: 'outgoing'; network: string; txid: string; status: 'confirmed' | 'failed'; confirmations: number };

export class RecordingSink implements ChainSink {
  events: SinkEvent[] = [];
  /** Makes the next n calls throw (a failing gateway). */
  failNext = 0;

  private check(): void {
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('sink down');
    }
  }
  async transfer(t: IncomingTransfer): Promise<void> {
    this.check();
    this.events.push({ kind: 'transfer', t });
  }
  async dropped(network: string, txid: string, index: number): Promise<void> {
    this.check();
    this.events.push({ kind: 'dropped', network, txid, index });
  }
  async outgoing(network: string, txid: string, status: 'confirmed' | 'failed', confirmations: number): Promise<void> {
    this.check();
    this.events.push({ kind: 'outgoing', network, txid, status, confirmations });
  }

  transfers(filter?: { txid?: string; to?: string }): IncomingTransfer[] {
    return this.events
      .filter((e): e is Extract<SinkEvent, { kind: 'transfer' }> => e.kind === 'transfer')
      .map((e) => e.t)
      .filter((t) => (!filter?.txid || t.txid === filter.txid) && (!filter?.to || t.to.toLowerCase() === filter.to.toLowerCase()));
  }
  drops(): Array<{ txid: string; index: number }> {
    return this.events
      .filter((e): e is Extract<SinkEvent, { kind: 'dropped' }> => e.kind === 'dropped')
      .map((e) => ({ txid: e.txid, index: e.index }));
  }
  outgoings(txid?: string): Array<{ txid: string; status: string; confirmations: number }> {
    return this.events
      .filter((e): e is Extract<SinkEvent, { kind: 'outgoing' }> => e.kind === 'outgoing')
      .filter((e) => !txid || e.txid === txid)
      .map((e) => ({ txid: e.txid, status: e.status, confirmations: e.confirmations }));
  }
  clear(): void {
    this.events = [];
  }
}
