// The parts of a network's configuration (`networks.<code>` in the config file, docs/networks.md)
// that every chain family's driver factory reads the same way: the confirmation target, optional
// whole numbers, the token contracts (registry defaults with the operator's overrides) and the
// thresholds of the sweep; and the arguments a family's createXDriver is called with. Each message
// names the setting by its path, `where`.
import type { NetworkConfig } from '../config.ts';
import type { Storage } from '../db/dialect.ts';
import type { NetworkDef } from '../registry/index.ts';
import type { ChainLog, DepositPaths, DriverDeps } from './contract.ts';
import type { NodeLimitDefaults } from './family.ts';

/** What a family's createXDriver is given beside the network and its settings; `L`: the family's log. */
export interface DriverServices<L> {
  seed: Uint8Array;
  storage: Storage;
  now?: () => number;
  log?: L;
  /** Which addresses are the network's deposit addresses, with their HD paths (a family that spends
   * from them needs it). */
  depositPaths?: DepositPaths;
}

/** A family's createXDriver arguments from the composition root's deps: the settings carry the
 * effective confirmations. The seed is derived only when a factory reads it (a watch-only network
 * never does). */
export function driverArguments(deps: DriverDeps): [NetworkDef, NetworkConfig, DriverServices<ChainLog>] {
  const services = {
    get seed() {
      return deps.seed();
    },
    storage: deps.storage,
    now: deps.now,
    log: deps.log,
    depositPaths: deps.depositPaths,
  };
  return [deps.network, { ...deps.settings, confirmations: deps.confirmations }, services];
}

/** The confirmations setting, or the registry's: a positive integer. */
export function configuredConfirmations(network: NetworkDef, cfg: NetworkConfig, where: string): number {
  const confirmations = cfg.confirmations ?? network.confirmations;
  if (!Number.isSafeInteger(confirmations) || confirmations < 1) throw new Error(`${where}.confirmations: a positive integer is required`);
  return confirmations;
}

/** An optional setting that must be a non-negative integer when given. */
export function optInt(v: unknown, where: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new Error(`${where}: a non-negative integer is required`);
  return v;
}

/** What a network's node may answer before it is judged faulty (docs/networks.md, "Faulty nodes"). */
export interface NodeLimits {
  /** Blocks the head may grow between two polls. */
  maxHeadJump: number;
  /** Bytes one answer may have. */
  maxResponseBytes: number;
}

/** `max_head_jump` and `max_response_bytes`, or the family's defaults. */
export function nodeLimits(cfg: NetworkConfig, where: string, defaults: NodeLimitDefaults): NodeLimits {
  const jump = optInt(cfg.max_head_jump, `${where}.max_head_jump`);
  const bytes = optInt(cfg.max_response_bytes, `${where}.max_response_bytes`);
  if (jump === 0) throw new Error(`${where}.max_head_jump: a positive integer is required`);
  if (bytes !== undefined && bytes < 1024) throw new Error(`${where}.max_response_bytes: at least 1024 is required`);
  return { maxHeadJump: jump ?? defaults.maxHeadJump, maxResponseBytes: bytes ?? defaults.maxResponseBytes };
}

export interface ConfiguredToken<A extends string> {
  code: string;
  contract: A;
  decimals: number;
}

/**
 * The network's tokens with a contract: the registry's, each overridden by `tokens.<CODE>` when
 * the operator set one. `isContract` checks an address in the family's format; `what` names it in
 * the error. A token the registry does not list for the network is an error.
 */
export function configuredTokens<A extends string>(
  network: NetworkDef,
  cfg: NetworkConfig,
  where: string,
  isContract: (contract: unknown) => contract is A,
  what: string,
): ConfiguredToken<A>[] {
  const overrides = new Map(Object.entries(cfg.tokens ?? {}).map(([code, contract]) => [code.toUpperCase(), contract]));
  const tokens: ConfiguredToken<A>[] = [];
  for (const c of network.currencies) {
    if (c.native) continue;
    const contract = overrides.get(c.code.toUpperCase()) ?? c.contract;
    overrides.delete(c.code.toUpperCase());
    if (!contract) continue;
    if (!isContract(contract)) throw new Error(`${where}.tokens.${c.code}: not a ${what}: ${String(contract)}`);
    tokens.push({ code: c.code, contract, decimals: c.decimals });
  }
  if (overrides.size) throw new Error(`${where}.tokens: ${[...overrides.keys()].join(', ')} not a token of ${network.code} in the registry`);
  return tokens;
}

/** What every family's sweep policy holds. */
export interface SweepThresholds {
  enabled: boolean;
  /** Decimal string: the least native balance worth sweeping. */
  minNative: string;
  /** Decimal strings by token code (upper case): the least token balance worth sweeping. */
  minToken: Record<string, string>;
  /** Swept from the scanner's poll at most this often (0: only when sweep() is called). */
  everyMs: number;
}

/** The `sweep` object's common settings; the family has checked that it is an object. */
export function sweepThresholds(s: { enabled?: unknown; min_native?: unknown; min_token?: unknown; every_seconds?: unknown }, where: string): SweepThresholds {
  const dec = (x: unknown, w: string) => {
    if (typeof x !== 'string' || !/^\d+(\.\d+)?$/.test(x)) throw new Error(`${w}: a decimal string is required`);
    return x;
  };
  const minToken: Record<string, string> = {};
  if (s.min_token !== undefined) {
    if (typeof s.min_token !== 'object' || s.min_token === null) throw new Error(`${where}.min_token: an object is required`);
    for (const [k, x] of Object.entries(s.min_token)) minToken[k.toUpperCase()] = dec(x, `${where}.min_token.${k}`);
  }
  const every = s.every_seconds === undefined ? 60 : optInt(s.every_seconds, `${where}.every_seconds`)!;
  return {
    enabled: s.enabled === true,
    minNative: s.min_native === undefined ? '0' : dec(s.min_native, `${where}.min_native`),
    minToken,
    everyMs: every * 1000,
  };
}

/**
 * How a network's received funds are held (`networks.CODE.custody`, docs/custody.md):
 * - `watch-only` (the default of every real driver): deposit addresses derive from what the merchant
 *   supplied for the network (an extended public key, a descriptor, a cold address behind a
 *   forwarder); the gateway holds no key that can spend them.
 * - `hot`: deposit addresses derive from the gateway's seed, which can spend them (the older model).
 * The simulated driver has no real money and always derives from the seed: it reports `hot`.
 */
export type CustodyMode = 'hot' | 'watch-only';

export const CUSTODY_MODES: readonly CustodyMode[] = ['hot', 'watch-only'];

/** The `custody` setting of a network run by driver `driver`; `where` names it in the error. */
export function custodyMode(cfg: NetworkConfig | undefined, driver: string, where: string): CustodyMode {
  const v = cfg?.custody;
  if (driver === 'simulated') {
    if (v !== undefined && v !== 'hot') throw new Error(`${where}.custody: the simulated driver holds no real money; only "hot" (or nothing) is accepted`);
    return 'hot';
  }
  if (v === undefined || v === null) return 'watch-only';
  if (v !== 'hot' && v !== 'watch-only') throw new Error(`${where}.custody: "watch-only" or "hot" is required`);
  return v;
}
