// Watch-only receiving for TRON: the merchant names a cold address, and each deposit address is a
// counterfactual forwarder made by the ForwarderFactory (./forwarder.ts: the same contracts as on
// EVM chains) with CREATE2, whose creation code fixes that cold address: what
// reaches it, TRX or any TRC-20, can only ever be flushed there.
//
// Two things differ from EVM chains, and both are why the factory's address comes from the
// network's settings instead of being computed:
// - TRON has no deterministic deployment proxy, and a contract created by a transaction gets an
//   address made from that transaction's id: the factory's address is known only once the operator
//   deployed it (`factory_address`, docs/networks.md).
// - The Forwarder the factory's constructor creates with CREATE gets an address made from the
//   deploying transaction's id and an internal nonce (java-tron's generateContractAddress), not
//   from the factory's address and nonce 1: it is read from the deployed factory's
//   `implementation()` getter once, at deployment, and kept in the settings
//   (`implementation_address`); the driver checks it against the factory before flushing.
// TVM's CREATE2 is EVM's with the prefix byte 0x41 instead of 0xff:
//   keccak256(0x41 ++ factory (20 bytes) ++ salt ++ keccak256(init code)), last 20 bytes.
import { concat, keccak256, type Hex } from 'viem';
import type { NetworkConfig } from '../../config.ts';
import type { NetworkDef } from '../../registry/index.ts';
import { CustodyInputError } from '../errors.ts';
import type { CustodyInput, ParsedCustody, WatchOnlyCustody } from '../family.ts';
import { forwarderPath } from '../watch-paths.ts';
import { depositSalt, proxyInitCode } from './forwarder.ts';
import { accountIdHex, fromHexAddress, isTronAddress } from './address.ts';

/** The account id 0 as a TRON address: whatever is sent there is lost. */
export const TRON_ZERO_ADDRESS = 'T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb';

/** Where the forwarder contracts of a TRON network live (both base58). */
export interface TronForwarderDeployment {
  /** The ForwarderFactory the operator deployed (`factory_address`). */
  factory: string;
  /** The Forwarder its constructor created, as its `implementation()` answers (`implementation_address`). */
  implementation: string;
}

/** A TRON network as its settings make it: with its forwarder deployment when one is configured. */
export type TronNetworkDef = NetworkDef & { tron_forwarder?: TronForwarderDeployment };

/**
 * The forwarder deployment named in a TRON network's settings, or null when it names none. Both
 * settings go together: a deposit address depends on each of them.
 */
export function forwarderSettings(cfg: NetworkConfig | undefined, where: string): TronForwarderDeployment | null {
  const factory = cfg?.factory_address;
  const implementation = cfg?.implementation_address;
  if (factory === undefined && implementation === undefined) return null;
  for (const [name, v] of [['factory_address', factory], ['implementation_address', implementation]] as const) {
    if (v === undefined) throw new Error(`${where}.${name}: required with ${name === 'factory_address' ? 'implementation_address' : 'factory_address'} (docs/networks.md, TRON watch-only)`);
    if (typeof v !== 'string' || !isTronAddress(v)) throw new Error(`${where}.${name}: a TRON contract address (T..., base58check) is required`);
  }
  if (factory === implementation) throw new Error(`${where}.implementation_address: must differ from factory_address (the factory's implementation() getter answers it)`);
  return { factory: factory as string, implementation: implementation as string };
}

/** The network with the forwarder deployment of its settings attached (the family's configuredNetwork). */
export function configuredTronNetwork(network: NetworkDef, cfg: NetworkConfig | undefined): NetworkDef {
  const deployment = forwarderSettings(cfg, `networks.${network.code}`);
  if (!deployment) return network;
  const configured: TronNetworkDef = { ...network, tron_forwarder: deployment };
  return configured;
}

/**
 * A cold address as the merchant wrote it: base58check (T...) or the node API's hex form (41 and
 * 40 hex digits); the material is always base58. Refused: a bad checksum, the zero address, a
 * private key or recovery phrase (never repeated back), an Ethereum-style 0x address.
 */
export function parseTronColdAddress(network: NetworkDef, input: CustodyInput): ParsedCustody {
  if (input.xpub !== undefined || input.descriptor !== undefined) {
    throw new CustodyInputError('wrong_form', `${network.code} takes a cold address (T...), not an extended key or a descriptor`);
  }
  const a = typeof input.address === 'string' ? input.address.trim() : '';
  if (a === '') throw new CustodyInputError('missing', `${network.code} takes a cold address (T...)`);
  if (/^(0x)?[0-9a-f]{64}$/i.test(a)) {
    throw new CustodyInputError('private_key', 'This looks like a private key, not an address: it was not stored. Give the cold wallet\'s TRON address (T..., 34 characters)');
  }
  if (/^[a-z]+(\s+[a-z]+){11,23}$/i.test(a)) {
    throw new CustodyInputError('private_key', 'This looks like a recovery phrase, not an address: it was not stored. Give the cold wallet\'s TRON address (T..., 34 characters)');
  }
  if (/^0x[0-9a-f]{40}$/i.test(a)) {
    throw new CustodyInputError('not_address', 'This is written as an Ethereum address (0x...): give the cold wallet\'s TRON address (T..., 34 characters)');
  }
  let cold: string;
  if (/^41[0-9a-f]{40}$/i.test(a)) {
    cold = fromHexAddress(a);
  } else if (/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(a)) {
    if (!isTronAddress(a)) throw new CustodyInputError('bad_checksum', 'The cold address has a bad checksum: a character was mistyped');
    cold = a;
  } else {
    throw new CustodyInputError('not_address', 'A TRON cold address is T followed by 33 base58 characters (or 41 and 40 hex digits)');
  }
  if (cold === TRON_ZERO_ADDRESS) throw new CustodyInputError('zero_address', 'The cold address is the zero address: funds sent there are lost');
  return { kind: 'address', material: cold, summary: cold };
}

/**
 * The deposit address for `cold` and `salt` under `deployment` (base58): the TVM's CREATE2 of the
 * factory's proxy init code for `cold`. The init code is the EVM one: it holds 20-byte account ids.
 */
export function tronForwarderAddress(deployment: TronForwarderDeployment, cold: string, salt: Hex): string {
  if (!/^0x[0-9a-f]{64}$/i.test(salt)) throw new Error(`salt must be 32 bytes of hex, got ${salt}`);
  if (cold === TRON_ZERO_ADDRESS) throw new Error('the cold address must not be the zero address');
  const init = proxyInitCode(`0x${accountIdHex(cold)}`, `0x${accountIdHex(deployment.implementation)}`);
  const hash = keccak256(concat(['0x41', `0x${accountIdHex(deployment.factory)}`, salt, keccak256(init)]));
  return fromHexAddress(`41${hash.slice(-40)}`);
}

/** Deposit address `index` of custody row `custodyId` for cold address `cold`, and its path. */
export function tronDeposit(network: NetworkDef, cold: string, custodyId: string, index: number): { address: string; path: string } {
  const deployment = (network as TronNetworkDef).tron_forwarder;
  if (!deployment) {
    throw new Error(`networks.${network.code}.factory_address and implementation_address are required to receive watch-only on TRON (docs/networks.md)`);
  }
  const salt = depositSalt(`${custodyId}/${index}`);
  return { address: tronForwarderAddress(deployment, cold, salt), path: forwarderPath(cold, salt) };
}

export const tronWatchOnly: WatchOnlyCustody = {
  module: { url: import.meta.url, name: 'tronWatchOnly' },
  accepts: 'a cold TRON address (T...) that every payment is forwarded to',
  inputs: ['address'],
  parse: parseTronColdAddress,
  deposit: tronDeposit,
};
