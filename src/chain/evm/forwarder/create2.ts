// Offline address computation for the forwarder contracts: the factory's address (the same on
// every EVM chain that has the deterministic deployment proxy), the Forwarder implementation it
// creates, and the deposit address for a merchant's cold address and a per-deposit salt. Pure
// functions over the committed bytecode: no RPC, no solc.
import { concat, getAddress, getContractAddress, isHex, keccak256, stringToHex, zeroAddress, type Address, type Hex } from 'viem';
import { FACTORY_BYTECODE } from './artifacts.ts';

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
const implementations = new Map<Address, Address>();

/** The Forwarder the factory's constructor creates: its first CREATE (a new contract's nonce is 1). */
export function implementationAddress(factory: Address = factoryAddress()): Address {
  let a = implementations.get(factory);
  if (!a) {
    a = getContractAddress({ opcode: 'CREATE', from: factory, nonce: 1n });
    if (implementations.size < 64) implementations.set(factory, a);
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
 * before or after it has code, can only ever be flushed to `cold`. */
export function forwarderAddress(cold: Address, salt: Hex, factory: Address = factoryAddress()): Address {
  if (!isHex(salt) || salt.length !== 66) throw new Error(`salt must be 32 bytes of hex, got ${salt}`);
  return getContractAddress({
    opcode: 'CREATE2',
    from: factory,
    salt,
    bytecode: proxyInitCode(cold, implementationAddress(factory)),
  });
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
