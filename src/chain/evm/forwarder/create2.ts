// Offline address computation for the forwarder contracts: the factory's address (the same on
// every EVM chain that has the deterministic deployment proxy), the Forwarder implementation it
// creates, and the deposit address for a merchant's cold address and a per-deposit salt. Pure
// functions over the committed bytecode: no RPC, no solc. The same contracts run on TRON's TVM,
// whose CREATE2 hashes with 0x41 where the EVM uses 0xff: the prefix parameters say which.
import { concat, getAddress, getContractAddress, isHex, keccak256, slice, stringToHex, toHex, zeroAddress, zeroHash, type Address, type Hex } from 'viem';
import { FACTORY_BYTECODE, FORWARDER_BYTECODE } from './artifacts.ts';

/** The first byte of a CREATE2 address preimage: 0xff on the EVM, 0x41 on TRON's TVM (java-tron
 * hashes the deployer's 21-byte TRON address, whose first byte is 0x41). The factory learns it at
 * construction and reports it as `prefix()`. */
export type Create2Prefix = 0xff | 0x41;
export const EVM_CREATE2_PREFIX = 0xff satisfies Create2Prefix;
export const TRON_CREATE2_PREFIX = 0x41 satisfies Create2Prefix;

/** The deterministic deployment proxy (Arachnid's): CREATE2 with the first 32 bytes of call data as
 * the salt and the rest as init code. Present on anvil by default and on the major EVM chains. */
export const DEPLOYMENT_PROXY: Address = '0x4e59b44847b379578588920ca78fbf26c0b4956c';

/** The fixed salt the factory is deployed with. Anyone may deploy it (the result is the same
 * contract at the same address), so the salt needs no secrecy, only to never change. */
export const FACTORY_SALT: Hex = keccak256(stringToHex('satchel.forwarder-factory.v1'));

/** The transaction that deploys the factory: send it (no value) from any funded account. */
export function factoryDeployment(): { to: Address; data: Hex } {
  return { to: DEPLOYMENT_PROXY, data: concat([FACTORY_SALT, FACTORY_BYTECODE]) };
}

/** The factory's address: CREATE2 of its init code by the deployment proxy with FACTORY_SALT. */
export function factoryAddress(): Address {
  // Hashing the factory's init code is most of the cost of a deposit address: done once.
  return (factory ??= getContractAddress({ opcode: 'CREATE2', from: DEPLOYMENT_PROXY, salt: FACTORY_SALT, bytecode: FACTORY_BYTECODE }));
}
let factory: Address | undefined;
const implementations = new Map<string, Address>();
let forwarderInitHash: Hex | undefined;

/** The Forwarder the factory's constructor creates: CREATE2 by the factory with salt 0, so it is
 * computable offline on the EVM and on TRON alike (give TRON's factory and TRON_CREATE2_PREFIX). */
export function implementationAddress(factory: Address = factoryAddress(), prefix: Create2Prefix = EVM_CREATE2_PREFIX): Address {
  const key = `${prefix}:${factory}`;
  let a = implementations.get(key);
  if (!a) {
    a = create2(prefix, factory, zeroHash, (forwarderInitHash ??= keccak256(FORWARDER_BYTECODE)));
    if (implementations.size < 64) implementations.set(key, a);
  }
  return a;
}

/** The init code of a deposit address (ForwarderFactory.proxyInitCode): a 71-byte proxy that
 * accepts plain payments, delegates calls to the implementation, and ends with the cold address. */
export function proxyInitCode(cold: Address, implementation: Address = implementationAddress()): Hex {
  return concat([
    '0x3d604780600a3d3981f3',
    '0x36600557005b363d3d373d3d3d363d73',
    getAddress(implementation),
    '0x5af43d82803e903d91603157fd5bf3',
    checkCold(cold),
  ]);
}

/** The deposit address for `cold` and `salt` (ForwarderFactory.forwarderAddress): funds paid to it,
 * before or after it has code, can only ever be flushed to `cold`. On TRON pass the factory's
 * address (20 bytes, hex) and TRON_CREATE2_PREFIX; the result is the 20 bytes after TRON's 0x41. */
export function forwarderAddress(cold: Address, salt: Hex, factory: Address = factoryAddress(), prefix: Create2Prefix = EVM_CREATE2_PREFIX): Address {
  if (!isHex(salt) || salt.length !== 66) throw new Error(`salt must be 32 bytes of hex, got ${salt}`);
  return create2(prefix, factory, salt, keccak256(proxyInitCode(cold, implementationAddress(factory, prefix))));
}

/** keccak256(prefix ++ deployer ++ salt ++ initHash), last 20 bytes: CREATE2 with the chain's prefix. */
function create2(prefix: Create2Prefix, deployer: Address, salt: Hex, initHash: Hex): Address {
  if (prefix !== EVM_CREATE2_PREFIX && prefix !== TRON_CREATE2_PREFIX) {
    throw new Error(`the CREATE2 prefix must be 0xff (EVM) or 0x41 (TRON), got ${String(prefix)}`);
  }
  return getAddress(slice(keccak256(concat([toHex(prefix, { size: 1 }), getAddress(deployer), salt, initHash])), 12));
}

/**
 * The salt for a deposit: keccak256 of the UTF-8 of a gateway-chosen id. The id must be unique
 * among the deposit addresses of one cold address (e.g. the id of the invoice or of the address
 * allocation), never reused: the same (cold, salt) is the same address. Ids need not be secret
 * (the salt is public once the address is deployed) and merchants with different cold addresses
 * never collide, whatever their ids.
 */
export function depositSalt(id: string): Hex {
  if (id === '') throw new Error('deposit id must not be empty');
  return keccak256(stringToHex(id));
}

function checkCold(cold: Address): Address {
  const a = getAddress(cold);
  if (a === zeroAddress) throw new Error('the cold address must not be the zero address');
  return a;
}
