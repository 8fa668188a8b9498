// Watch-only receiving for EVM networks: the merchant names a cold address, and each deposit
// address is a counterfactual CREATE2 forwarder (./forwarder/) whose creation code fixes that cold
// address: what reaches it can only ever be flushed there. The salt is made from the custody row's
// id and the deposit's index, so two merchants (or two materials of one merchant) never share an
// address even with the same cold address.
import { getAddress, isAddress, zeroAddress, type Address } from 'viem';
import type { NetworkConfig } from '../../config.ts';
import type { NetworkDef } from '../../registry/index.ts';
import { CustodyInputError } from '../errors.ts';
import type { CustodyInput, ParsedCustody, WatchOnlyCustody, WatchOnlyWarning } from '../family.ts';
import { forwarderPath } from '../watch-paths.ts';
import { depositSalt, forwarderAddress } from './forwarder/create2.ts';
import { RpcClient } from './rpc.ts';

/** A cold address as the merchant wrote it: EIP-55 checked when mixed case, never the zero address. */
export function parseColdAddress(network: NetworkDef, input: CustodyInput): ParsedCustody {
  if (input.xpub !== undefined || input.descriptor !== undefined) {
    throw new CustodyInputError('wrong_form', `${network.code} takes a cold address (0x...), not an extended key or a descriptor`);
  }
  const a = typeof input.address === 'string' ? input.address.trim() : '';
  if (a === '') throw new CustodyInputError('missing', `${network.code} takes a cold address (0x...)`);
  if (/^(0x)?[0-9a-f]{64}$/i.test(a)) throw new CustodyInputError('private_key', 'This looks like a private key, not an address: it was not stored. Give the cold wallet\'s address (0x and 40 hex digits)');
  if (!/^0x[0-9a-fA-F]{40}$/.test(a)) throw new CustodyInputError('not_address', 'A cold address is 0x followed by 40 hex digits');
  if (!isAddress(a, { strict: true })) throw new CustodyInputError('bad_checksum', 'The cold address has a bad checksum (EIP-55 mixed case): a letter was mistyped');
  const cold = getAddress(a);
  if (cold === zeroAddress) throw new CustodyInputError('zero_address', 'The cold address is the zero address: funds sent there are lost');
  return { kind: 'address', material: cold, summary: cold };
}

export function evmDeposit(network: NetworkDef, cold: string, custodyId: string, index: number): { address: string; path: string } {
  const salt = depositSalt(`${custodyId}/${index}`);
  return { address: forwarderAddress(cold as Address, salt), path: forwarderPath(cold, salt) };
}

export const evmWatchOnly: WatchOnlyCustody = {
  module: { url: import.meta.url, name: 'evmWatchOnly' },
  accepts: 'a cold address (0x...) that every payment is forwarded to',
  inputs: ['address'],
  parse: parseColdAddress,
  deposit: evmDeposit,
  async warn(network: NetworkDef, settings: NetworkConfig | undefined, parsed: ParsedCustody): Promise<WatchOnlyWarning | null> {
    if (typeof settings?.rpc_url !== 'string') return null;
    const rpc = new RpcClient(settings.rpc_url, { timeoutMs: 5000, maxResponseBytes: 1 << 20 });
    const code = await rpc.call<string>('eth_getCode', [parsed.material, 'latest']);
    return typeof code === 'string' && code !== '0x' && code !== '0x0'
      ? {
          code: 'contract_address',
          params: { address: parsed.material, network: network.code },
          message: `The cold address ${parsed.material} is a contract on ${network.code}, not a plain account: make sure it can receive the native coin and every token you accept`,
        }
      : null;
  },
};
