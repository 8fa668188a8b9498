// The payout float of a watch-only TON network: the one TON key the gateway holds
// (src/chain/payout-float.ts). Its key file holds a 32-byte ed25519 seed in hex or the 24-word
// mnemonic TON wallet apps show (./keyfile.ts); the float is a standard wallet of that key, v4r2
// by default (what most wallet apps restore first) or v5r1, chosen with
// `"payout_float": {"wallet_version": "v5r1"}`. The address depends on the version, and for v5r1
// on the network (its wallet id carries the network's global id). Funded at the address
// `satchel payout-float address` prints; the first payout deploys it.
import type { NetworkDef } from '../../registry/index.ts';
import { FaultyNodeError } from '../errors.ts';
import type { PayoutFloatForm } from '../payout-float.ts';
import { parseTonAddress, tonFriendly, tonRaw } from './address.ts';
import { nodeAddress, uintString } from './answers.ts';
import type { TonApi } from './api.ts';
import { Builder, bocFromBase64, bocToBase64, type Cell, type TonAddress } from './cell.ts';
import { externalParts } from './float-tx.ts';
import type { TonJetton } from './scan.ts';
import { isTonTestnet } from './custody.ts';
import { tonKeyFromFile, type TonKey } from './keyfile.ts';
import { MAINNET_GLOBAL_ID, TESTNET_GLOBAL_ID, walletAddress, walletCode, walletData, type WalletOptions, type WalletVersion } from './wallet.ts';

const rawOf = (a: TonAddress): string => tonRaw(a);

export const TON_WALLET_VERSIONS: readonly WalletVersion[] = ['v4r2', 'v5r1'];
export const DEFAULT_TON_WALLET_VERSION: WalletVersion = 'v4r2';

function checkVersion(v: unknown, where: string): void {
  if (v !== undefined && !TON_WALLET_VERSIONS.includes(v as WalletVersion)) throw new Error(`${where}: "v4r2" (the default) or "v5r1" is required`);
}

/** The float's wallet as configured: its version, key and the options its address follows from. */
export interface TonFloat {
  version: WalletVersion;
  key: TonKey;
  opts: WalletOptions;
  /** User-friendly, non-bounceable, with the network's test flag: where the operator sends funds. */
  address: string;
  testnet: boolean;
}

export function tonFloat(network: NetworkDef, secret: string, settings: Readonly<Record<string, unknown>> = {}): TonFloat {
  const v = settings.wallet_version;
  checkVersion(v, 'wallet_version');
  const version = (v as WalletVersion | undefined) ?? DEFAULT_TON_WALLET_VERSION;
  const testnet = isTonTestnet(network);
  const key = tonKeyFromFile(secret);
  const opts: WalletOptions = version === 'v5r1' ? { networkGlobalId: testnet ? TESTNET_GLOBAL_ID : MAINNET_GLOBAL_ID } : {};
  const address = tonFriendly(walletAddress(version, key.publicKey, opts), { bounceable: false, testnet });
  return { version, key, opts, address, testnet };
}

export const tonPayoutFloat: PayoutFloatForm = {
  accepts: 'a 32-byte ed25519 seed in hex or a 24-word TON mnemonic',
  settings: { wallet_version: checkVersion },
  address: (network, secret, settings) => tonFloat(network, secret, settings).address,
};

/** What the payout path asks the node about the float: its state, its jetton wallets, fees. */
export class TonFloatReader {
  readonly floatRaw: string;

  constructor(
    private readonly api: TonApi,
    readonly float: TonFloat,
  ) {
    this.floatRaw = tonRaw(parseTonAddress(float.address, { testnet: float.testnet }));
  }

  /** The float's balance, seqno (0 while undeployed) and whether it is deployed. */
  async floatState(): Promise<{ balance: bigint; seqno: number; active: boolean; lastLt: bigint }> {
    const [account, wallet] = await Promise.all([this.api.addressInformation(this.floatRaw), this.api.walletInformation(this.floatRaw)]);
    const active = account.state === 'active';
    let seqno = active ? wallet.seqno : 0;
    if (seqno === null) {
      const r = await this.api.runGetMethod(this.floatRaw, 'seqno', []);
      const top = r.stack[0];
      if (r.exitCode !== 0 || top?.type !== 'num' || top.value < 0n || top.value > 0xffffffffn) throw new FaultyNodeError('runGetMethod', 'the float wallet answered no seqno');
      seqno = Number(top.value);
    }
    return { balance: account.balance, seqno, active, lastLt: account.lastTransaction?.lt ?? 0n };
  }

  /** The jetton wallet the master names for `owner` (raw). */
  async jettonWalletOf(j: TonJetton, owner: string): Promise<string> {
    const arg = bocToBase64(new Builder().storeAddress(parseTonAddress(owner, { testnet: false })).endCell());
    const r = await this.api.runGetMethod(j.master, 'get_wallet_address', [['tvm.Slice', arg]]);
    const top = r.stack[0];
    if (r.exitCode !== 0 || top?.type !== 'cell') throw new FaultyNodeError('runGetMethod', `get_wallet_address of ${j.code}'s master answered exit code ${r.exitCode} and no address`);
    try {
      const a = bocFromBase64(top.boc, { maxCells: 4 }).beginParse().loadAddress();
      if (!a || a.workchain !== 0) throw new Error('no address in workchain 0');
      return rawOf(a);
    } catch (err) {
      throw new FaultyNodeError('runGetMethod', `get_wallet_address of ${j.code}'s master answered no address (${(err as Error).message.slice(0, 80)})`);
    }
  }

  /** The float's balance of `j` in base units: 0 while its jetton wallet is not deployed; the
   * wallet must say it belongs to the float and to that master. */
  async jettonBalance(j: TonJetton, wallet: string): Promise<bigint> {
    const r = await this.api.runGetMethod(wallet, 'get_wallet_data', []);
    if (r.exitCode === -13) return 0n;
    const [balance, owner, master] = r.stack;
    const addr = (e: typeof owner) => (e?.type === 'cell' ? bocFromBase64(e.boc, { maxCells: 4 }).beginParse().loadAddress() : null);
    let ok = false;
    try {
      const own = addr(owner);
      const mas = addr(master);
      ok = r.exitCode === 0 && balance?.type === 'num' && balance.value >= 0n && !!own && rawOf(own) === this.floatRaw && !!mas && rawOf(mas) === nodeAddress('config', 'master', j.master);
    } catch {
      ok = false;
    }
    if (!ok || balance?.type !== 'num') throw new FaultyNodeError('runGetMethod', `the float's ${j.code} wallet ${wallet} does not say it is the float's wallet of that master`);
    return balance.value;
  }

  /** The node's fee estimate of an external message to the float (all of its source fees), nanotons. */
  async fee(external: Cell, withStateInit: boolean): Promise<bigint> {
    const f = this.float;
    const { body } = externalParts(external);
    const init = withStateInit ? { initCode: bocToBase64(walletCode(f.version)), initData: bocToBase64(walletData(f.version, f.key.publicKey, f.opts)) } : {};
    const answer = await this.api.estimateFee({ address: this.floatRaw, body: bocToBase64(body), ...init });
    const fees = typeof answer === 'object' && answer !== null ? (answer as Record<string, unknown>).source_fees : undefined;
    if (typeof fees !== 'object' || fees === null) throw new FaultyNodeError('estimateFee', 'the answer has no source_fees');
    let total = 0n;
    for (const k of ['in_fwd_fee', 'storage_fee', 'gas_fee', 'fwd_fee']) total += uintString('estimateFee', k, (fees as Record<string, unknown>)[k] ?? 0, 64);
    return total;
  }
}
