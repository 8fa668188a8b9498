// Deposit addresses by the registry's `address_format`: derived from the gateway's seed, checked,
// written into payment URIs. The rules of each format come from the chain family that defines it
// (src/chain/<family>/address-format.ts), gathered by the composition root; this module names none.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { AddressFormatRules, DerivedAddress, Deriver, NetworkChain, PaymentUriOptions } from './types.ts';
import { depositKey } from '../watch-paths.ts';
import { depositQrContent, paymentUri, qrContent, type DepositNetwork } from './uri.ts';

export type { AddressFormat, AddressFormatRules, DerivedAddress, Deriver, NetworkChain, PaymentUriOptions, UriParts } from './types.ts';
export type { DepositNetwork } from './uri.ts';

const MAX_CACHED = 64;
const derivers = new Map<string, Deriver>();

/** The rules' deriver for a seed, cached per seed, format, coin type and chain, so only the last path levels are derived per index. */
export function cachedDeriver(rules: AddressFormatRules, seed: Uint8Array, coinType: number, chain: NetworkChain = 'main'): Deriver {
  if (!Number.isSafeInteger(coinType) || coinType < 0 || coinType >= 0x80000000) {
    throw new RangeError(`Invalid coin type: ${coinType}`);
  }
  // Key on a hash so the seed itself is not kept as a string.
  const key = `${rules.module.url}#${rules.module.name}/${coinType}/${chain}/${bytesToHex(sha256(seed))}`;
  let deriver = derivers.get(key);
  if (!deriver) {
    deriver = rules.deriver(seed, coinType, chain);
    if (derivers.size >= MAX_CACHED) derivers.delete(derivers.keys().next().value!);
    derivers.set(key, deriver);
  }
  return deriver;
}

/** Addresses `start` .. `start + count - 1` of `derive`, in order. */
export function deriveRange(derive: Deriver, start: number, count: number): DerivedAddress[] {
  if (derive.many) return derive.many(start, count);
  return Array.from({ length: count }, (_, i) => derive(start + i));
}

/** The address formats a gateway knows, by the registry's `address_format`. */
export class AddressFormats {
  constructor(private readonly table: Readonly<Record<string, AddressFormatRules>>) {}

  /** The rules of a format; throws on a format no family defines. */
  rules(format: string): AddressFormatRules {
    const rules = Object.hasOwn(this.table, format) ? this.table[format] : undefined;
    if (!rules) throw new Error(`No chain family defines the address format "${format}"`);
    return rules;
  }

  /** `chain` picks a format's prefixes (main, test, regtest) where it has several. */
  deriver(format: string, seed: Uint8Array, coinType: number, chain: NetworkChain = 'main'): Deriver {
    return cachedDeriver(this.rules(format), seed, coinType, chain);
  }

  /** The deposit address at `index` for a BIP-39 seed. */
  derive(format: string, seed: Uint8Array, coinType: number, index: number, chain: NetworkChain = 'main'): DerivedAddress {
    return this.deriver(format, seed, coinType, chain)(index);
  }

  isValid(format: string, address: string, chain: NetworkChain = 'main'): boolean {
    // The longest address of any format: a Monero integrated address, 106 characters.
    if (typeof address !== 'string' || address.length === 0 || address.length > 128) return false;
    return this.rules(format).isValid(address, chain);
  }

  /** A wallet payment URI, or null when the format has none for this kind of payment. */
  paymentUri(opts: PaymentUriOptions): string | null {
    return paymentUri(this.rules(opts.format), opts);
  }

  /**
   * The payment comment a payer (and the merchant's API) is shown for a deposit's `reference`: the
   * reference itself, or null on a network whose format carries it in the payment link only.
   */
  shownComment(network: DepositNetwork | undefined, reference: string | null): string | null {
    if (reference === null || !network || !Object.hasOwn(this.table, network.address_format)) return reference;
    return this.table[network.address_format]!.referenceInLinkOnly ? null : reference;
  }

  /** Whether a deposit's `reference` rides in the payment link only, so a payment must use the link (or its QR) to be matched. */
  linkRequired(network: DepositNetwork | undefined, reference: string | null): boolean {
    return reference !== null && !!network && Object.hasOwn(this.table, network.address_format) && this.table[network.address_format]!.referenceInLinkOnly === true;
  }

  /** What the payment page's QR encodes. */
  qrContent(opts: PaymentUriOptions): string {
    return qrContent(this.rules(opts.format), opts);
  }

  /**
   * What the QR of an allocated deposit encodes (./uri.ts): `deposit` is an address or a deposit
   * key, or, with `reference`, the account that reference is paid to (as an invoice records them).
   */
  depositQrContent(network: DepositNetwork, deposit: string, reference: string | null = null): string {
    return depositQrContent(this.rules(network.address_format), network, reference === null ? deposit : depositKey(deposit, reference));
  }
}
