import type { AddressFormat, NetworkDef } from '../../registry/index.ts';

export type { AddressFormat };

/** The chain a network is configured for (main unless test or regtest); a format may take its prefixes from it. */
export type NetworkChain = NonNullable<NetworkDef['chain']>;

export interface DerivedAddress {
  address: string;
  path: string;
}

export interface Deriver {
  (index: number): DerivedAddress;
  /** Indexes `start` .. `start + count - 1` at once, where that is cheaper than one by one. */
  many?: (start: number, count: number) => DerivedAddress[];
}

export interface PaymentUriOptions {
  format: AddressFormat;
  /** URI scheme from the registry (`bitcoin`, `ethereum`, `ton`, ...). */
  scheme: string;
  address: string;
  /** Decimal string in whole coins/tokens ("0.001"); omitted from the URI when absent. */
  amount?: string;
  decimals: number;
  /** Token contract / mint / jetton master; ignored for native coins. */
  contract?: string;
  native: boolean;
  chainId?: number;
  /** The payment reference (a comment) the payer must send, on a network that tells deposits apart
   * by it; absent elsewhere. */
  reference?: string;
  /** Who is asking to be paid (the merchant's display name), for a format whose URI names them. */
  label?: string;
}

/** A payment URI's parts, worked out once for every format (./uri.ts). */
export interface UriParts {
  scheme: string;
  address: string;
  /** The address, URI-encoded. */
  encodedAddress: string;
  /** The amount in whole coins, canonical decimal text; undefined when none is asked. */
  coins: string | undefined;
  /** The amount in base units; undefined when none is asked. */
  units: bigint | undefined;
  /** The token's contract; undefined for the native coin. */
  contract: string | undefined;
  native: boolean;
  chainId: number | undefined;
  /** The payment reference the payer must send (raw text: the format encodes it); undefined when none. */
  reference: string | undefined;
  /** Who is asking to be paid (raw text: the format encodes it); undefined when unknown. */
  label: string | undefined;
}

/**
 * How a network writes its addresses (the registry's `address_format`): a family defines the
 * formats of its networks and exports each as one of these.
 */
export interface AddressFormatRules {
  /**
   * Where these rules are exported: the module's URL (its `import.meta.url`) and the export's
   * name. Functions do not cross to the address-pool thread; it loads the rules from here.
   */
  readonly module: { readonly url: string; readonly name: string };
  /** The deposit addresses of `seed`, by index. */
  deriver(seed: Uint8Array, coinType: number, chain: NetworkChain): Deriver;
  isValid(address: string, chain: NetworkChain): boolean;
  /** The wallet payment URI, or null when the format has none for this kind of payment. */
  paymentUri(parts: UriParts): string | null;
  /** The payment page's QR carries the payment URI, not the plain address, for a native coin with an amount. */
  readonly qrCarriesUri?: boolean;
  /**
   * The payment reference rides in the payment URI (and so the QR code) only, and is never shown as
   * a comment for the payer to copy or type (the API's `payment_comment` is null): a Solana Pay
   * reference is an account key the wallet adds to the transaction, which no wallet lets a payer enter.
   */
  readonly referenceInLinkOnly?: boolean;
}
