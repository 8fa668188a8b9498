// What the double's request handlers share: ton-http-api's error (status code and message, sent
// as `{ok: false, error, code}`), its address rule, and the double's state they read.
import { Address } from '@ton/core';
import type { Blockchain } from '@ton/sandbox';

export class ApiError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** Any form toncenter accepts (raw `0:..`, user-friendly bounceable or not, url-safe or not); else 416. */
export function parseAddress(s: string | undefined): Address {
  if (s === undefined || s === '') throw new ApiError(422, 'Validation error: address: field required');
  try {
    return Address.parse(s.trim());
  } catch {
    throw new ApiError(416, 'Incorrect address');
  }
}

export interface BlockIdExt {
  '@type': string;
  workchain: number;
  shard: string;
  seqno: number;
  root_hash: string;
  file_hash: string;
}

export interface TransactionIdJson {
  '@type': string;
  lt: string;
  hash: string;
}

export interface DoubleCore {
  readonly blockchain: Blockchain;
  readonly seqno: number;
  blockId(): BlockIdExt;
  lastTransactionId(address: Address): TransactionIdJson;
  /** tonlib's `@extra` request tag. */
  extra(): string;
}
