// The address formats of the gateway's chain families (src/compose.ts), as the tests call them:
// by format name, as the shared code asks `ctx.chains.families.addresses`.
import { families } from '../../src/compose.ts';
import { deriveRange, type DerivedAddress, type Deriver, type NetworkChain, type PaymentUriOptions } from '../../src/chain/address/index.ts';

export { deriveRange };
export type { AddressFormat, PaymentUriOptions } from '../../src/chain/address/index.ts';

const addresses = families.addresses;

export function addressDeriver(format: string, seed: Uint8Array, coinType: number, chain: NetworkChain = 'main'): Deriver {
  return addresses.deriver(format, seed, coinType, chain);
}

export function deriveAddress(format: string, seed: Uint8Array, coinType: number, index: number, chain: NetworkChain = 'main'): DerivedAddress {
  return addresses.derive(format, seed, coinType, index, chain);
}

export function isValidAddress(format: string, address: string, chain: NetworkChain = 'main'): boolean {
  return addresses.isValid(format, address, chain);
}

export function paymentUri(opts: PaymentUriOptions): string | null {
  return addresses.paymentUri(opts);
}

export function qrContent(opts: PaymentUriOptions): string {
  return addresses.qrContent(opts);
}
