// A whole gateway receiving XMR on the real `monero` driver against the regtest rig
// (test/helpers/monero-rig.ts), for the end-to-end tests through the public API. The merchant's
// wallet is a real one, made by its own monero-wallet-rpc: its primary address and private view key
// are set as the merchant's watch-only receiving material the way the CLI and the dashboard set it
// (checked, then written with the daemon's height as the start height), and the test asks that
// wallet which subaddress it has at an index, to compare with the address an invoice answers.
import { Decimal } from '../../../src/money/decimal.ts';
import { checkCustody, writeCustody } from '../../../src/custody/store.ts';
import type { MoneroDriver } from '../../../src/chain/monero/monero-driver.ts';
import type { Backend } from '../../helpers/backends.ts';
import { otherRpc, type MoneroRig, type WalletRpc } from '../../helpers/monero-rig.ts';
import { startChainGateway, type ChainGateway } from '../gateway-setup.ts';

/** The chain poll deadline of the test gateways (SATCHEL_CHAIN_POLL_TIMEOUT_MS). */
export const XMR_POLL_DEADLINE_MS = 180_000;

/** XMR in piconero (12 decimals), exactly. */
export const pico = (xmr: string): bigint => Decimal.parse(xmr).toBaseUnits(12);

/** A merchant's own Monero wallet, in a monero-wallet-rpc of the rig. */
export interface ShopWallet {
  address: string;
  viewKey: string;
  rpc: WalletRpc;
  /** Subaddress (0, minor) as the wallet itself makes it. */
  subaddress(minor: number): Promise<string>;
  /** The minor index of one of its subaddresses (account 0), looked for among the first 50. */
  minorOf(address: string): Promise<number>;
  /** What the wallet received (in blocks and in the pool): subaddress index, piconero, txid. */
  received(): Promise<Array<{ minor: number; amount: bigint; txid: string }>>;
}

/** A new wallet named `name` in a wallet RPC started for it (stopped with the rig). */
export async function shopWallet(rig: MoneroRig, name: string): Promise<ShopWallet> {
  const rpc = await rig.startWalletRpc();
  await rpc.rpc('create_wallet', { filename: name, password: '', language: 'English' });
  const { address } = await rpc.rpc<{ address: string }>('get_address', { account_index: 0 });
  const { key: viewKey } = await rpc.rpc<{ key: string }>('query_key', { key_type: 'view_key' });
  let made = 0;
  const subaddress = async (minor: number) => {
    if (minor > made) {
      await rpc.rpc('create_address', { account_index: 0, count: minor - made });
      made = minor;
    }
    const r = await rpc.rpc<{ addresses: Array<{ address: string; address_index: number }> }>('get_address', { account_index: 0, address_index: [minor] });
    return r.addresses.find((a) => a.address_index === minor)!.address;
  };
  return {
    address,
    viewKey,
    rpc,
    subaddress,
    async minorOf(address) {
      for (let minor = 1; minor <= 50; minor++) if ((await subaddress(minor)) === address) return minor;
      throw new Error(`${address} is not among the wallet's first 50 subaddresses`);
    },
    async received() {
      await rpc.rpc('refresh', {});
      const r = await rpc.rpc<{ in?: Transfer[]; pool?: Transfer[] }>('get_transfers', { in: true, pool: true, account_index: 0 });
      return [...(r.in ?? []), ...(r.pool ?? [])].map((t) => ({ minor: t.subaddr_index.minor, amount: BigInt(t.amount), txid: t.txid }));
    },
  };
}

/**
 * Mines one block at a time until the daemon has every one of `txids` in a block; returns the
 * blocks mined. monerod leaves a transaction out of the blocks it makes while Dandelion++ keeps it
 * in its stem phase, which on a loaded machine can outlast the first block mined after the payment:
 * the block that holds it is then not the first one mined.
 */
export async function mineIn(rig: MoneroRig, txids: readonly string[]): Promise<number> {
  for (let blocks = 1; ; blocks++) {
    await rig.mine(1);
    const r = await otherRpc<{ txs?: Array<{ tx_hash: string; in_pool: boolean }> }>(rig.daemonUrl, 'get_transactions', { txs_hashes: txids, decode_as_json: false, prune: true });
    const mined = new Set((r.txs ?? []).filter((t) => !t.in_pool).map((t) => t.tx_hash));
    if (txids.every((t) => mined.has(t))) return blocks;
    if (blocks >= 100) throw new Error(`${txids.join(', ')} still not in a block after ${blocks} blocks`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

interface Transfer {
  txid: string;
  amount: number;
  subaddr_index: { major: number; minor: number };
}

export interface XmrGateway extends ChainGateway<MoneroDriver> {
  rig: MoneroRig;
  shop: ShopWallet;
  /** Pays `xmr` to `address` from the rig's payer (into the pool); returns the txid. */
  pay(address: string, xmr: string): Promise<string>;
  /** Mines until a block holds every one of `txids` (`mineIn`), then runs the workers once: their first confirmation. */
  mineInAndTick(...txids: string[]): Promise<void>;
}

/**
 * A gateway whose XMR network runs the `monero` driver against `rig` with `confirmations` (the
 * registry's 10 by default), and `shop` set as the merchant's receiving material. The rig stays
 * running when the gateway stops: one rig serves a whole test file.
 */
export async function startXmrGateway(backend: Backend, rig: MoneroRig, shop: ShopWallet, opts: { confirmations?: number } = {}): Promise<XmrGateway> {
  const network = { driver: 'monero', daemon_url: rig.daemonUrl, network: 'mainnet', ...(opts.confirmations ? { confirmations: opts.confirmations } : {}) };
  // The first poll of a merchant starts the driver's wallet RPC and makes the view-only wallet: on a
  // loaded machine that outlasts the default 30 s poll deadline, which a test's tick reports as an error.
  const env = { SATCHEL_CHAIN_POLL_TIMEOUT_MS: String(XMR_POLL_DEADLINE_MS) };
  const g = await startChainGateway<MoneroDriver>(backend, { code: 'XMR', network, mine: () => rig.mine(1), stop: async () => {} }, { keepNode: true, env });
  try {
    const req = { merchantId: g.merchant.id, network: 'XMR', input: { address: shop.address, viewKey: shop.viewKey }, actor: 'test', replace: false };
    const checked = await checkCustody(g.ctx, req);
    await g.ctx.storage.write((trx) => writeCustody(trx, req, checked, g.ctx.now()));
  } catch (err) {
    await g.stopAll();
    throw err;
  }
  return {
    ...g,
    rig,
    shop,
    pay: (address, xmr) => rig.pay(address, pico(xmr)),
    async mineInAndTick(...txids) {
      await mineIn(rig, txids);
      await g.tick();
    },
  };
}
