// The deposit-address forwarder for EVM chains: committed contract artifacts, offline CREATE2
// addresses, and the one call a relayer sends. The relayer's key only pays gas: the call names the
// cold address the deposit address was made for, and a different cold address is a different
// (empty) deposit address, so no call can move a deposit anywhere else.
import { encodeFunctionData, getAddress, type Address, type Hex } from 'viem';
import { FACTORY_ABI, FORWARDER_ABI } from './artifacts.ts';
import { factoryAddress } from './create2.ts';

export * from './artifacts.ts';
export * from './create2.ts';

/** The factory's ABI with the forwarder's errors, which a flush through the factory passes on. */
export const FLUSH_ABI = [...FACTORY_ABI, ...FORWARDER_ABI.filter((x) => x.type === 'error')] as const;

/** The relayer's transaction (no value): deploy the deposit address for (cold, salt) if it has no
 * code yet, then move its whole balance of each token and (unless `native` is false) its native
 * balance to `cold`. Leave the native coin out only when the cold address refuses it, so that
 * the tokens still move. */
export function flushCall(
  cold: Address,
  salt: Hex,
  tokens: readonly Address[],
  opts: { native?: boolean; factory?: Address } = {},
): { to: Address; data: Hex } {
  return {
    to: opts.factory ?? factoryAddress(),
    data: encodeFunctionData({
      abi: FACTORY_ABI,
      functionName: 'flush',
      args: [getAddress(cold), salt, tokens.map((t) => getAddress(t)), opts.native ?? true],
    }),
  };
}
