import type { AddressFormat } from '../../registry/index.ts';

export type { AddressFormat };

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
}
