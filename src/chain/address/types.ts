import type { AddressFormat } from '../../registry/index.ts';

export type { AddressFormat };

export interface DerivedAddress {
  address: string;
  path: string;
}

export type Deriver = (index: number) => DerivedAddress;

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
