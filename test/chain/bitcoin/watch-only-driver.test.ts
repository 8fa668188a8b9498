// The `bitcoin-core` driver on a watch-only network, against a real litecoind in regtest: deposit
// addresses derive from merchants' account-level PUBLIC keys (a vpub, and a descriptor with its key
// origin), each made from a mnemonic the test generated and keeps to itself. Payments from the
// node's wallet are reported as on any network (amounts, confirmations); then the test, as the
// merchant, spends them with the private keys only it holds, to the node's wallet: the money was
// the merchant's. The driver raises no alarm, never counts those outputs as its coins, has nothing
// to pay out from, and never asks for the gateway's seed. Beside them, older addresses of the seed
// stay the gateway's coins: payouts in hot custody spend those and only those.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';
import { generateMnemonic, mnemonicToSeedSync } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { HDKey } from '@scure/bip32';
import { Address, OutScript, Transaction, p2wpkh } from '@scure/btc-signer';
import { backends, type Backend } from '../../helpers/backends.ts';
import { openStorage, type Storage } from '../../../src/db/dialect.ts';
import { migrateToLatest } from '../../../src/db/migrate.ts';
import { Registry, type NetworkDef } from '../../../src/registry/index.ts';
import type { ChainSink, IncomingTransfer, WatchedAddress } from '../../../src/chain/contract.ts';
import type { NetworkConfig } from '../../../src/config.ts';
import { SendRejectedError } from '../../../src/chain/errors.ts';
import { bitcoinDriverFactory, configuredNetwork, createBitcoinDriver, type BitcoinCoreDriver } from '../../../src/chain/bitcoin/index.ts';
import { bitcoinWatchOnly } from '../../../src/chain/bitcoin/custody.ts';
import { BitcoinKeys } from '../../../src/chain/bitcoin/keys.ts';
import { btcDb } from '../../../src/chain/bitcoin/schema.ts';
import { REGTEST, sats, startLitecoind, type Litecoind, Payer } from './litecoind.ts';

/** BIP-32 version bytes of test chains: tpub/tprv, and SLIP-0132's vpub/vprv (native SegWit). */
const TPUB = { public: 0x043587cf, private: 0x04358394 };
const VPUB = { public: 0x045f1cf6, private: 0x045f18bc };
const ACCOUNT = "m/84'/1'/0'";
/** The gateway's own seed, for the addresses it handed out before the network went watch-only. */
const GATEWAY_SEED = mnemonicToSeedSync('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about');

/** A merchant's wallet: a fresh mnemonic that only the test (the merchant) knows. */
class MerchantWallet {
  readonly custodyId = randomUUID();
  private readonly seed = mnemonicToSeedSync(generateMnemonic(wordlist));
  private readonly root = HDKey.fromMasterSeed(this.seed, TPUB);

  /** The account-level public key, as a wallet exports it for a BIP-84 account on a test chain. */
  vpub(): string {
    return HDKey.fromMasterSeed(this.seed, VPUB).derive(ACCOUNT).publicExtendedKey;
  }

  /** The same account as an output descriptor with its key origin. */
  descriptor(): string {
    const fp = this.root.fingerprint.toString(16).padStart(8, '0');
    return `wpkh([${fp}/84h/1h/0h]${this.root.derive(ACCOUNT).publicExtendedKey}/0/*)`;
  }

  /** The private key of receiving address i (m/84'/1'/0'/0/i), the address and its script. */
  receiving(i: number): { key: Uint8Array; address: string; script: Uint8Array } {
    const node = this.root.derive(`${ACCOUNT}/0/${i}`);
    const p = p2wpkh(node.publicKey!, REGTEST.net);
    return { key: node.privateKey!, address: p.address!, script: p.script };
  }
}

interface Coin {
  txid: string;
  vout: number;
  amount: string;
}

describe.each(await backends())('bitcoin-core watch-only on litecoind regtest ($name)', (backend: Backend) => {
  let node: Litecoind;
  let network: NetworkDef;
  const drops: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    node = await startLitecoind({ wallet: true });
    // The node's wallet pays the invoices: mature coins for it.
    await node.mine(101, await node.rpc<string>('getnewaddress', '', 'bech32'));
    network = configuredNetwork(Registry.load().network('LTC')!, settings());
  }, 60_000);
  afterAll(async () => {
    for (const d of drops) await d();
    await node?.close();
  });

  function settings(extra: NetworkConfig = {} as NetworkConfig): NetworkConfig {
    return { driver: 'bitcoin-core', rpc_url: node?.url ?? 'http://u:p@127.0.0.1:1', chain: 'regtest', confirmations: 2, ...extra };
  }

  /** A fresh database of the backend, migrated (one per test: each scans LTC from its own cursor). */
  async function storage(): Promise<Storage> {
    const db = await backend.create();
    const s = db.databaseUrl ? openStorage({ databaseUrl: db.databaseUrl }) : openStorage({ sqlitePath: ':memory:' });
    await migrateToLatest(s);
    drops.push(async () => {
      await s.close();
      await db.drop();
    });
    return s;
  }

  /** The deposit addresses the gateway handed out, and its answer to "which of these are deposits". */
  function handedOut() {
    const paths = new Map<string, string>();
    return {
      add(list: WatchedAddress[]) {
        for (const a of list) paths.set(a.address, a.path);
        return list;
      },
      depositPaths: async (addresses: readonly string[]) => new Map(addresses.filter((a) => paths.has(a)).map((a) => [a, paths.get(a)!])),
    };
  }

  function recorder() {
    const seen: IncomingTransfer[] = [];
    const dropped: string[] = [];
    const sink: ChainSink = {
      transfer: async (t) => void seen.push(t),
      dropped: async (_n, txid, vout) => void dropped.push(`${txid}:${vout}`),
      outgoing: async () => {},
    };
    return { seen, dropped, sink };
  }

  function logs() {
    const lines: Array<{ level: string; msg: string; data?: Record<string, unknown> }> = [];
    return { lines, log: (level: 'info' | 'warn' | 'error', msg: string, data?: Record<string, unknown>) => void lines.push({ level, msg, data }) };
  }

  /** The outputs of `txid` paying `address`, as the node shows them. */
  async function outputsTo(txid: string, address: string): Promise<Coin[]> {
    const tx = await node.rpc<{ vout: Array<{ n: number; value: number; scriptPubKey: { addresses?: string[]; address?: string } }> }>('getrawtransaction', txid, true);
    return tx.vout
      .filter((o) => (o.scriptPubKey.address ?? o.scriptPubKey.addresses?.[0]) === address)
      .map((o) => ({ txid, vout: o.n, amount: o.value.toFixed(8).replace(/0+$/, '').replace(/\.$/, '') }));
  }

  /** The merchant spends its coins with keys only it holds, to `to`, one fee of 0.0001 LTC. */
  function merchantSpend(spends: Array<{ coin: Coin; key: Uint8Array; script: Uint8Array }>, to: string): { hex: string; txid: string; sent: bigint } {
    const tx = new Transaction();
    let total = 0n;
    for (const s of spends) {
      tx.addInput({ txid: s.coin.txid, index: s.coin.vout, witnessUtxo: { script: s.script, amount: sats(s.coin.amount) } });
      total += sats(s.coin.amount);
    }
    const sent = total - 10_000n;
    tx.addOutput({ script: OutScript.encode(Address(REGTEST.net).decode(to)), amount: sent });
    spends.forEach((s, i) => tx.signIdx(s.key, i));
    tx.finalize();
    return { hex: tx.hex, txid: tx.id, sent };
  }

  const payee = () => Payer.elsewhere();

  it('reports payments to merchants\' watch-only addresses, which the merchant then spends with its own keys: no alarm, no coin of the gateway, nothing to pay out, no seed asked', async () => {
    const a = new MerchantWallet(); // gives a vpub
    const b = new MerchantWallet(); // gives a descriptor with its key origin
    const materialA = bitcoinWatchOnly.parse(network, { xpub: a.vpub() }).material;
    const materialB = bitcoinWatchOnly.parse(network, { descriptor: b.descriptor() }).material;
    const out = handedOut();
    const depositsA = out.add([0, 1, 2].map((i) => bitcoinWatchOnly.deposit(network, materialA, a.custodyId, i)));
    const depositsB = out.add([0, 1].map((i) => bitcoinWatchOnly.deposit(network, materialB, b.custodyId, i)));
    // The addresses the merchants' own wallets show for their receiving chain.
    expect(depositsA.map((d) => d.address)).toEqual([0, 1, 2].map((i) => a.receiving(i).address));
    expect(depositsB.map((d) => d.address)).toEqual([0, 1].map((i) => b.receiving(i).address));
    expect(depositsA[1]!.path).toBe(`watch:${a.custodyId}/0/1`);
    // An address of the gateway's seed handed out before the network switched to watch-only.
    const old = new BitcoinKeys(GATEWAY_SEED, REGTEST, 1).deposit(7);
    out.add([{ address: old.address, path: old.path }]);

    const db = await storage();
    const { lines, log } = logs();
    let seedAsked = 0;
    const driver = bitcoinDriverFactory({
      network,
      settings: settings({ start_height: (await node.head()) + 1 } as NetworkConfig),
      confirmations: 2,
      storage: db,
      now: Date.now,
      // A seed that cannot be had: nothing in watch-only receiving may need it.
      seed: () => {
        seedAsked++;
        throw new Error('the gateway seed was asked for');
      },
      log,
      depositPaths: out.depositPaths,
    }) as BitcoinCoreDriver;
    expect(driver.custody).toBe('watch-only'); // the default of a real driver
    driver.watch([...depositsA, ...depositsB, { address: old.address, path: old.path }]);
    const { seen, sink } = recorder();
    await driver.poll(sink);

    // The node's wallet pays: one transaction to A/0 and B/0, one to A/1, one to the old address.
    const t1 = await node.rpc<string>('sendmany', '', { [depositsA[0]!.address]: 1.25, [depositsB[0]!.address]: 0.5 });
    const t2 = await node.rpc<string>('sendtoaddress', depositsA[1]!.address, 0.3);
    const t3 = await node.rpc<string>('sendtoaddress', old.address, 0.2);
    const [a0] = await outputsTo(t1, depositsA[0]!.address);
    const [b0] = await outputsTo(t1, depositsB[0]!.address);
    const [a1] = await outputsTo(t2, depositsA[1]!.address);
    const [o0] = await outputsTo(t3, old.address);
    expect([a0!.amount, b0!.amount, a1!.amount, o0!.amount]).toEqual(['1.25', '0.5', '0.3', '0.2']);

    await driver.poll(sink); // in the mempool
    const height = (await node.head()) + 1;
    await node.mine(1);
    await driver.poll(sink); // 1 confirmation
    await node.mine(1);
    await driver.poll(sink); // 2: final
    const report = (c: Coin, to: string) =>
      [0, 1, 2].map((confirmations) => ({
        network: 'LTC', currency: 'LTC', txid: c.txid, index: c.vout, from: null, to, amount: c.amount,
        blockHeight: confirmations === 0 ? null : height, blockHash: confirmations === 0 ? null : expect.stringMatching(/^[0-9a-f]{64}$/), confirmations,
      }));
    const of = (c: Coin) => seen.filter((t) => t.txid === c.txid && t.index === c.vout);
    expect(of(a0!)).toEqual(report(a0!, depositsA[0]!.address));
    expect(of(b0!)).toEqual(report(b0!, depositsB[0]!.address));
    expect(of(a1!)).toEqual(report(a1!, depositsA[1]!.address));
    expect(of(o0!)).toEqual(report(o0!, old.address));
    expect(seen).toHaveLength(12);

    // Recorded as the merchants' outputs, the old address's as the gateway's coin.
    const rows = async () => new Map((await btcDb(db.db).selectFrom('btc_outputs').selectAll().execute()).map((r) => [`${r.txid}:${r.vout}`, r]));
    let r = await rows();
    for (const c of [a0!, b0!, a1!]) expect(r.get(`${c.txid}:${c.vout}`)).toMatchObject({ kind: 'watch', status: 'confirmed', amount: c.amount, spent_txid: null });
    expect(r.get(`${o0!.txid}:${o0!.vout}`)).toMatchObject({ kind: 'deposit', status: 'confirmed', spent_txid: null });

    // Nothing of its own to pay out from, whatever the amount, and nothing signed or stored.
    const cover = await driver.canCover({ to: payee(), amount: '0.0001', priority: 'recommended' });
    expect(cover).toEqual({ covered: false, currency: 'LTC', message: expect.stringContaining('LTC receives watch-only') });
    expect(cover.covered === false && cover.message).toMatch(/holds no LTC of its own to pay from/);
    const send = driver.send({ id: randomUUID(), network: 'LTC', currency: 'LTC', to: payee(), amount: '0.0001', priority: 'recommended' });
    await expect(send).rejects.toBeInstanceOf(SendRejectedError);
    await expect(send).rejects.toThrow(/receives watch-only/);
    expect(await db.db.selectFrom('scan_outgoing').selectAll().execute()).toEqual([]);

    // The merchant A spends both its coins with the keys only it holds, to the node's wallet.
    const wallet = await node.rpc<string>('getnewaddress', '', 'bech32');
    const spend = merchantSpend(
      [
        { coin: a0!, key: a.receiving(0).key, script: a.receiving(0).script },
        { coin: a1!, key: a.receiving(1).key, script: a.receiving(1).script },
      ],
      wallet,
    );
    expect(await node.rpc<string>('sendrawtransaction', spend.hex)).toBe(spend.txid);
    await driver.poll(sink); // the spend in the mempool
    await node.mine(1);
    await driver.poll(sink); // and in a block
    await node.mine(1);
    await driver.poll(sink);
    // The node's wallet has the money; the coins are gone from the chain's unspent set.
    expect(sats((await node.rpc<number>('getreceivedbyaddress', wallet, 1)).toFixed(8))).toBe(spend.sent);
    expect(await node.rpc('gettxout', a0!.txid, a0!.vout)).toBeNull();
    expect(await node.rpc('gettxout', a1!.txid, a1!.vout)).toBeNull();
    // No alarm, no error, nothing reported about it, and the rows untouched: the gateway never followed them.
    expect(lines.filter((l) => l.level === 'error' || l.data?.alarm)).toEqual([]);
    expect(seen).toHaveLength(12);
    r = await rows();
    for (const c of [a0!, a1!]) expect(r.get(`${c.txid}:${c.vout}`)).toMatchObject({ kind: 'watch', status: 'confirmed', spent_txid: null, spent_by: null });
    expect((await driver.canCover({ to: payee(), amount: '0.0001', priority: 'recommended' })).covered).toBe(false);

    // The old address's coin IS the gateway's: someone else spending it with the seed's key is an alarm.
    const thief = new Payer(node).spendForeign(HDKey.fromMasterSeed(GATEWAY_SEED).derive(old.path).privateKey!, { txid: o0!.txid, vout: o0!.vout, sats: sats(o0!.amount) }, payee(), 10_000n);
    await node.rpc('sendrawtransaction', thief.hex);
    await driver.poll(sink);
    expect(lines.filter((l) => l.data?.alarm)).toEqual([
      expect.objectContaining({ level: 'error', data: expect.objectContaining({ alarm: 'foreign_spend', coin: `${o0!.txid}:${o0!.vout}`, txid: thief.txid }) }),
    ]);
    expect(seedAsked).toBe(0);
  }, 60_000);

  it('a watch-only payment replaced in the mempool by one paying elsewhere is reported dropped, the replacement not at all', async () => {
    const m = new MerchantWallet();
    const material = bitcoinWatchOnly.parse(network, { xpub: m.vpub() }).material;
    const out = handedOut();
    const deposits = out.add([bitcoinWatchOnly.deposit(network, material, m.custodyId, 0)]);
    const db = await storage();
    const { lines, log } = logs();
    const driver = createBitcoinDriver(network, settings({ start_height: (await node.head()) + 1 } as NetworkConfig), { seed: () => new Uint8Array(0), storage: db, log, depositPaths: out.depositPaths });
    driver.watch(deposits);
    const payer = new Payer(node, 'watch-only rbf');
    await payer.fund(1);
    const { seen, dropped, sink } = recorder();
    await driver.poll(sink);
    const first = await payer.pay([{ address: deposits[0]!.address, amount: '0.4' }]);
    await driver.poll(sink);
    expect(seen).toEqual([expect.objectContaining({ txid: first.txid, to: deposits[0]!.address, amount: '0.4', confirmations: 0 })]);
    const second = await payer.respend(first, [{ address: payee(), amount: '0.4' }], 20);
    await driver.poll(sink);
    await node.mine(1);
    await driver.poll(sink);
    expect(await node.rpc('gettxout', second.txid, 0)).not.toBeNull();
    expect(dropped).toEqual([`${first.txid}:0`]);
    expect(seen).toHaveLength(1);
    expect(lines.filter((l) => l.level === 'error' || l.data?.alarm)).toEqual([]);
  }, 60_000);

  it('hot custody with a mixed set: payouts spend the seed\'s coins only, never a watch-only output, and no key is derived for a watch: path; switched to watch-only, a payout signed before is followed, a new one refused', async () => {
    const m = new MerchantWallet();
    const material = bitcoinWatchOnly.parse(network, { descriptor: m.descriptor() }).material;
    const out = handedOut();
    const watchOnly = out.add([bitcoinWatchOnly.deposit(network, material, m.custodyId, 4)]);
    const db = await storage();
    const { lines, log } = logs();
    const driver = createBitcoinDriver(network, settings({ custody: 'hot', start_height: (await node.head()) + 1, fee_rate_fallback: '20' } as NetworkConfig), {
      seed: GATEWAY_SEED,
      storage: db,
      log,
      depositPaths: out.depositPaths,
    });
    expect(driver.custody).toBe('hot');
    const hot = out.add([0].map((i) => ({ address: driver.keys.deposit(i).address, path: driver.keys.deposit(i).path })));
    driver.watch([...hot, ...watchOnly]);
    const { seen, sink } = recorder();
    await driver.poll(sink);
    const tHot = await node.rpc<string>('sendtoaddress', hot[0]!.address, 1);
    const tWatch = await node.rpc<string>('sendtoaddress', watchOnly[0]!.address, 3);
    const [hotCoin] = await outputsTo(tHot, hot[0]!.address);
    const [watchCoin] = await outputsTo(tWatch, watchOnly[0]!.address);
    await node.mine(2);
    await driver.poll(sink);
    expect(seen.filter((t) => t.confirmations === 2).map((t) => [t.to, t.amount]).sort()).toEqual([[hot[0]!.address, '1'], [watchOnly[0]!.address, '3']].sort());

    const privateKey = vi.spyOn(BitcoinKeys.prototype, 'privateKey');
    const payout = { id: randomUUID(), network: 'LTC', currency: 'LTC', to: payee(), amount: '0.5', priority: 'recommended' as const };
    let txid = '';
    try {
      // 1 LTC of the gateway's own; the merchant's 3 LTC are not counted.
      const big = await driver.canCover({ to: payee(), amount: '2', priority: 'recommended' });
      expect(big).toEqual({ covered: false, currency: 'LTC', message: expect.stringContaining('do not cover 2 LTC') });
      expect(await driver.canCover({ to: payee(), amount: '0.5', priority: 'recommended' })).toEqual({ covered: true });
      await expect(driver.send({ id: randomUUID(), network: 'LTC', currency: 'LTC', to: payee(), amount: '2', priority: 'recommended' })).rejects.toThrow(/do not cover 2 LTC/);

      ({ txid } = await driver.send(payout));
      const tx = await node.rpc<{ vin: Array<{ txid: string; vout: number }> }>('getrawtransaction', txid, true);
      expect(tx.vin.map((i) => `${i.txid}:${i.vout}`)).toEqual([`${hotCoin!.txid}:${hotCoin!.vout}`]);
      expect(privateKey.mock.calls.map(([path]) => path)).toEqual([hot[0]!.path]);
    } finally {
      privateKey.mockRestore();
    }

    // The merchant spends its coin with its own key: normal, no alarm; the gateway's payout confirms.
    const spend = merchantSpend([{ coin: watchCoin!, key: m.receiving(4).key, script: m.receiving(4).script }], await node.rpc<string>('getnewaddress', '', 'bech32'));
    await node.rpc('sendrawtransaction', spend.hex);
    await driver.poll(sink);
    await node.mine(2);
    await driver.poll(sink);
    expect(await node.rpc('gettxout', watchCoin!.txid, watchCoin!.vout)).toBeNull();
    expect(lines.filter((l) => l.level === 'error' || l.data?.alarm)).toEqual([]);
    const rows = await btcDb(db.db).selectFrom('btc_outputs').selectAll().execute();
    expect(rows.find((r) => r.txid === watchCoin!.txid && r.vout === watchCoin!.vout)).toMatchObject({ kind: 'watch', spent_txid: null, spent_by: null });
    expect(rows.find((r) => r.txid === hotCoin!.txid && r.vout === hotCoin!.vout)).toMatchObject({ kind: 'deposit', spent_by: 'own', spent_height: expect.anything() });
    // What is left of the gateway's own: the payout's change, not the merchant's 3 LTC.
    const left = await driver.canCover({ to: payee(), amount: '0.6', priority: 'recommended' });
    expect(left.covered).toBe(false);

    // The operator switches the network to watch-only: the payout signed before is still followed
    // (asked again, it answers its transaction instead of failing it), a new one is refused.
    const switched = createBitcoinDriver(network, settings(), { seed: GATEWAY_SEED, storage: db, log, depositPaths: out.depositPaths });
    expect(switched.custody).toBe('watch-only');
    expect(await switched.send(payout)).toEqual({ txid });
    await expect(switched.send({ ...payout, id: randomUUID() })).rejects.toThrow(/receives watch-only/);
    expect(await db.db.selectFrom('scan_outgoing').select('txid').execute()).toEqual([{ txid }]);
    await switched.close();
  }, 60_000);
});
