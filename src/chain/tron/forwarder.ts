// The parts of the forwarder contracts (ForwarderFactory and Forwarder, compiled and committed with
// the EVM family's code) that the TRON driver needs, written here because a family names no other
// family: the deposit's salt, the proxy's init code and the factory's flush call. They must stay
// byte for byte what the EVM family computes for the same contracts; test/chain/tron/custody.test.ts
// compares them with it, and the vectors of test/chain/tron/fixtures/ with an independent implementation.
import { concat, encodeFunctionData, keccak256, stringToHex, type Hex } from 'viem';

/**
 * The salt of a deposit: keccak256 of the UTF-8 of a gateway-chosen id, unique among the deposit
 * addresses of one cold address (`<custody row id>/<index>`). The same (cold, salt) is the same address.
 */
export function depositSalt(id: string): Hex {
  if (id === '') throw new Error('deposit id must not be empty');
  return keccak256(stringToHex(id));
}

/**
 * ForwarderFactory.proxyInitCode: a 71-byte proxy that accepts plain payments, delegates calls to
 * the implementation, and ends with the cold address (both 20-byte account ids, 0x and 40 hex).
 */
export function proxyInitCode(cold: Hex, implementation: Hex): Hex {
  for (const a of [cold, implementation]) if (!/^0x[0-9a-fA-F]{40}$/.test(a)) throw new Error(`not a 20-byte account id: ${a}`);
  return concat(['0x3d604780600a3d3981f3', '0x36600557005b363d3d373d3d3d363d73', implementation.toLowerCase() as Hex, '0x5af43d82803e903d91603157fd5bf3', cold.toLowerCase() as Hex]);
}

const FLUSH_FUNCTION = [
  {
    type: 'function',
    name: 'flush',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'cold', type: 'address' },
      { name: 'salt', type: 'bytes32' },
      { name: 'tokens', type: 'address[]' },
      { name: 'native', type: 'bool' },
    ],
    outputs: [{ name: 'forwarder', type: 'address' }],
  },
] as const;

/** Call data (0x...) of the factory's `flush(cold, salt, tokens, native)`; addresses as 20-byte account ids. */
export function flushCallData(cold: Hex, salt: Hex, tokens: readonly Hex[], native: boolean): Hex {
  return encodeFunctionData({ abi: FLUSH_FUNCTION, functionName: 'flush', args: [cold, salt, [...tokens], native] });
}
