// One EVM network as every part of the `evm` driver sees it: its node, its assets (the native
// coin and the configured tokens), the keys, the storage, and the node questions they all ask
// (fees, gas estimates, token balances). The scanner, the sender and the sweeper share one.
import { encodeFunctionData, erc20Abi, getAddress, isAddress, type Hex } from 'viem';
import type { Kysely } from 'kysely';
import type { ChainLog } from '../contract.ts';
import { HotWalletShortError, NodeError, NodeUnreachableError, SendRejectedError, WrongChainError } from '../errors.ts';
import type { NetworkDef, Priority } from '../../registry/index.ts';
import type { Storage } from '../../db/dialect.ts';
import { Decimal } from '../../money/decimal.ts';
import { evmDb, type EvmDB } from './schema.ts';
import { RpcClient, num, hex, type BlockTag } from './rpc.ts';
import { quantityHex } from '../node-values.ts';
import { EvmKeys } from './keys.ts';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { CustodyMode } from '../network-settings.ts';

/** keccak256("Transfer(address,address,uint256)") */
export const TRANSFER_TOPIC: Hex = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

/** maxPriorityFeePerGas = node suggestion x percent. */
export const PRIORITY_PERCENT: Record<Priority, bigint> = { economy: 80n, recommended: 100n, high: 150n, highest: 200n };

export interface EvmToken {
  code: string;
  contract: `0x${string}`;
  decimals: number;
}

export interface Asset {
  code: string;
  decimals: number;
  contract: `0x${string}` | null;
}

export interface Call {
  to: `0x${string}`;
  value: bigint;
  data: Hex;
}

export interface Fees {
  baseFee: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

export interface EvmChainOptions {
  network: NetworkDef;
  rpcUrl: string;
  chainId: number;
  /** Confirmations after which a transfer (or one of our transactions) is final. */
  confirmations: number;
  tokens: EvmToken[];
  /** BIP-39 seed (64 bytes), read only in hot custody. Held in memory only. */
  seed?: Uint8Array;
  /** `watch-only`: the seed is never read; payouts come from `float` (default `hot`). */
  custody?: CustodyMode;
  /** Watch-only: the payout float's account (null or absent: no float, nothing can be paid). */
  float?: PrivateKeyAccount | null;
  storage: Storage;
  now?: () => number;
  /** Called with the method name of every JSON-RPC request (metrics). */
  onRpcRequest?: (method: string) => void;
  /** An answer larger than this is the node's fault (default 64 MiB). */
  maxResponseBytes?: number;
  log?: ChainLog;
}

export class EvmChain {
  readonly network: NetworkDef;
  readonly code: string;
  readonly chainId: number;
  readonly confirmations: number;
  readonly rpc: RpcClient;
  readonly db: Kysely<EvmDB>;
  readonly storage: Storage;
  readonly keys: EvmKeys;
  readonly custody: CustodyMode;
  readonly now: () => number;
  readonly log: ChainLog;
  readonly native: Asset;
  readonly tokens: Asset[];
  readonly tokenByContract = new Map<string, Asset>();
  /** Watched deposit addresses (lower case) and the HD path of each (the sweep signs with it). */
  readonly watched = new Map<string, string>();
  private chainChecked = false;

  constructor(opts: EvmChainOptions) {
    if (!Number.isSafeInteger(opts.confirmations) || opts.confirmations < 1) {
      throw new RangeError(`${opts.network.code}: confirmations must be a positive integer`);
    }
    // `network.confirmations` and `chain_id` are the effective values (config overrides applied).
    this.network = { ...opts.network, confirmations: opts.confirmations, chain_id: opts.chainId };
    this.code = opts.network.code;
    this.chainId = opts.chainId;
    this.confirmations = opts.confirmations;
    this.storage = opts.storage;
    this.db = evmDb(opts.storage.db);
    this.rpc = new RpcClient(opts.rpcUrl, { onRequest: opts.onRpcRequest, maxResponseBytes: opts.maxResponseBytes });
    this.custody = opts.custody ?? 'hot';
    if (this.custody === 'hot' && !opts.seed) throw new Error(`${opts.network.code}: hot custody needs the gateway's seed`);
    this.keys = new EvmKeys(this.custody === 'hot' ? opts.seed! : { float: opts.float ?? null }, opts.network.coin_type);
    this.now = opts.now ?? Date.now;
    this.log = opts.log ?? (() => {});
    const nat = opts.network.currencies.find((c) => c.native);
    if (!nat) throw new Error(`${opts.network.code}: the registry lists no native currency`);
    this.native = { code: nat.code, decimals: nat.decimals, contract: null };
    this.tokens = opts.tokens.map((t) => {
      if (!isAddress(t.contract, { strict: false })) throw new Error(`${opts.network.code}: bad contract for ${t.code}: ${t.contract}`);
      return { code: t.code, decimals: t.decimals, contract: getAddress(t.contract) };
    });
    for (const t of this.tokens) this.tokenByContract.set(t.contract!.toLowerCase(), t);
  }

  /**
   * Where payouts come from (and, in hot custody, sweeps go to): m/44'/coin'/1'/0/0 of the seed, or
   * a watch-only network's payout float. Throws on a watch-only network without a float.
   */
  get hotWallet(): `0x${string}` {
    return this.keys.hot.address;
  }

  /** The node must serve the configured chain (asked once per process). */
  async checkChain(): Promise<void> {
    if (this.chainChecked) return;
    const id = num(await this.rpc.chainId());
    if (id !== this.chainId) {
      throw new WrongChainError(`${this.code}: the node at the configured rpc_url is chain ${id}, configured chain_id is ${this.chainId}`);
    }
    this.chainChecked = true;
  }

  asset(code: string): Asset | undefined {
    const c = code.toUpperCase();
    if (this.native.code.toUpperCase() === c) return this.native;
    return this.tokens.find((t) => t.code.toUpperCase() === c);
  }

  tokenOf(contract: string): string {
    return this.tokenByContract.get(contract.toLowerCase())?.code ?? this.native.code;
  }

  /** The call that pays `units` of `asset` to `to`. */
  paymentCall(asset: Asset, to: `0x${string}`, units: bigint): Call {
    return asset.contract
      ? { to: asset.contract, value: 0n, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, units] }) }
      : { to, value: units, data: '0x' };
  }

  async fees(priority: Priority): Promise<Fees> {
    const latest = await this.rpc.header('latest');
    const baseFee = BigInt(latest?.baseFeePerGas ?? '0x0');
    let tip: bigint;
    try {
      tip = await this.rpc.maxPriorityFee();
    } catch {
      const gp = await this.rpc.gasPrice();
      tip = gp > baseFee ? gp - baseFee : 0n;
    }
    const maxPriorityFeePerGas = (tip * (PRIORITY_PERCENT[priority] ?? 100n)) / 100n;
    return { baseFee, maxPriorityFeePerGas, maxFeePerGas: baseFee * 2n + maxPriorityFeePerGas };
  }

  /** Gas for a call (contract calls get a 20% margin); the node's refusals as the chain's errors. */
  async estimate(from: `0x${string}`, call: Call): Promise<bigint> {
    try {
      const gas = await this.rpc.estimateGas({ from, to: call.to, value: hex(call.value), data: call.data });
      return call.data === '0x' ? gas : (gas * 12n) / 10n;
    } catch (err) {
      if (err instanceof NodeError && !(err instanceof NodeUnreachableError)) {
        if (/insufficient funds|exceeds balance|insufficient balance/i.test(err.message)) {
          throw new HotWalletShortError(call.data === '0x' ? this.native.code : this.tokenOf(call.to), err.message);
        }
        if (err.code === 3 || /revert|gas required exceeds/i.test(err.message)) throw new SendRejectedError('reverted', err.message);
      }
      throw err;
    }
  }

  async tokenBalance(contract: `0x${string}`, who: `0x${string}`, tag: BlockTag = 'latest'): Promise<bigint> {
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [who] });
    const out = await this.rpc.ethCall({ to: contract, data }, tag);
    return out === '0x' ? 0n : quantityHex('eth_call', 'a token balance', out);
  }
}

/** A positive amount in base units, or the send's refusal. */
export function toUnits(amount: string, decimals: number): bigint {
  const d = Decimal.tryParse(amount);
  if (!d || d.isNegative()) throw new SendRejectedError('invalid', `Not a positive amount: ${amount}`);
  let units: bigint;
  try {
    units = d.toBaseUnits(decimals);
  } catch {
    throw new SendRejectedError('invalid', `More than ${decimals} decimal places: ${amount}`);
  }
  if (units <= 0n) throw new SendRejectedError('invalid', `Not a positive amount: ${amount}`);
  return units;
}
