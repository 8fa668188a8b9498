// The handful of java-tron protobuf messages the driver reads or writes, by hand (no protobuf
// runtime in the server): Transaction, Transaction.raw, Transaction.Contract, and the contracts it
// signs (TransferContract, TriggerSmartContract, DelegateResourceContract,
// UnDelegateResourceContract). Field numbers from java-tron's protocol/core/Tron.proto and
// core/contract/*.proto. The node builds transactions; this decodes what it built so the driver
// can check every field before signing, and wraps the signed bytes for broadcasthex.
import { bytesToHex, concatBytes, hexToBytes } from '@noble/hashes/utils.js';

export class ProtobufError extends Error {}

/** Contract types (Transaction.Contract.ContractType) the driver signs. */
export const CONTRACT_TYPE = {
  TransferContract: 1,
  TriggerSmartContract: 31,
  DelegateResourceContract: 57,
  UnDelegateResourceContract: 58,
} as const;
export type ContractTypeName = keyof typeof CONTRACT_TYPE;

export const RESOURCE = { BANDWIDTH: 0, ENERGY: 1 } as const;

type Field = { wire: 0; value: bigint } | { wire: 2; value: Uint8Array };

/** Fields by number, in order; only varint and length-delimited wire types (all these messages use). */
export function decodeMessage(buf: Uint8Array): Map<number, Field[]> {
  const out = new Map<number, Field[]>();
  let i = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (i >= buf.length) throw new ProtobufError('truncated varint');
      const b = buf[i++]!;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 63n) throw new ProtobufError('varint too long');
    }
  };
  while (i < buf.length) {
    const key = varint();
    const num = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (num < 1) throw new ProtobufError('bad field number');
    let f: Field;
    if (wire === 0) f = { wire: 0, value: varint() };
    else if (wire === 2) {
      const len = Number(varint());
      if (i + len > buf.length) throw new ProtobufError('truncated field');
      f = { wire: 2, value: buf.subarray(i, i + len) };
      i += len;
    } else throw new ProtobufError(`unexpected wire type ${wire} (field ${num})`);
    const list = out.get(num);
    if (list) list.push(f);
    else out.set(num, [f]);
  }
  return out;
}

/** A message with only the allowed fields, each at most once unless repeated. */
class Reader {
  constructor(
    private readonly fields: Map<number, Field[]>,
    what: string,
    allowed: number[],
    repeated: number[] = [],
  ) {
    for (const [n, list] of fields) {
      if (!allowed.includes(n)) throw new ProtobufError(`${what}: unexpected field ${n}`);
      if (list.length > 1 && !repeated.includes(n)) throw new ProtobufError(`${what}: field ${n} repeated`);
    }
  }
  int(n: number): bigint {
    const f = this.fields.get(n)?.[0];
    if (!f) return 0n;
    if (f.wire !== 0) throw new ProtobufError(`field ${n}: not a varint`);
    // int64 is two's complement on the wire.
    return f.value >= 1n << 63n ? f.value - (1n << 64n) : f.value;
  }
  bytes(n: number): Uint8Array {
    const f = this.fields.get(n)?.[0];
    if (!f) return new Uint8Array(0);
    if (f.wire !== 2) throw new ProtobufError(`field ${n}: not bytes`);
    return f.value;
  }
  all(n: number): Uint8Array[] {
    return (this.fields.get(n) ?? []).map((f) => {
      if (f.wire !== 2) throw new ProtobufError(`field ${n}: not bytes`);
      return f.value;
    });
  }
}

export interface RawTransaction {
  refBlockBytes: string;
  refBlockHash: string;
  /** Milliseconds since the epoch after which the transaction can no longer be included. */
  expiration: number;
  timestamp: number;
  feeLimit: bigint;
  contract: DecodedContract;
}

export type DecodedContract =
  | { type: 'TransferContract'; owner: string; to: string; amount: bigint }
  | { type: 'TriggerSmartContract'; owner: string; contract: string; callValue: bigint; data: string }
  | { type: 'DelegateResourceContract'; owner: string; receiver: string; resource: number; balance: bigint; lock: boolean }
  | { type: 'UnDelegateResourceContract'; owner: string; receiver: string; resource: number; balance: bigint };

/**
 * Decodes Transaction.raw as the node built it. Anything beyond what a plain transfer, contract
 * call or delegation needs (memo data, scripts, auths, several contracts, a permission id other
 * than owner) is refused: the driver signs only transactions it fully understands.
 */
export function decodeRaw(raw: Uint8Array): RawTransaction {
  // ref_block_bytes 1, ref_block_num 3, ref_block_hash 4, expiration 8, contract 11, timestamp 14, fee_limit 18
  const r = new Reader(decodeMessage(raw), 'raw_data', [1, 3, 4, 8, 11, 14, 18], [11]);
  const contracts = r.all(11);
  if (contracts.length !== 1) throw new ProtobufError(`raw_data: ${contracts.length} contracts, expected 1`);
  // type 1, parameter 2, Permission_id 5
  const c = new Reader(decodeMessage(contracts[0]!), 'contract', [1, 2, 5]);
  if (c.int(5) !== 0n) throw new ProtobufError('contract: a permission other than owner');
  const typeNum = Number(c.int(1));
  const type = (Object.keys(CONTRACT_TYPE) as ContractTypeName[]).find((k) => CONTRACT_TYPE[k] === typeNum);
  if (!type) throw new ProtobufError(`contract: type ${typeNum} is not one the driver signs`);
  const any = new Reader(decodeMessage(c.bytes(2)), 'parameter', [1, 2]);
  const typeUrl = new TextDecoder().decode(any.bytes(1));
  if (typeUrl !== `type.googleapis.com/protocol.${type}`) throw new ProtobufError(`parameter: type_url ${typeUrl} for ${type}`);
  const v = decodeMessage(any.bytes(2));
  let contract: DecodedContract;
  switch (type) {
    case 'TransferContract': {
      const p = new Reader(v, type, [1, 2, 3]);
      contract = { type, owner: addr(p.bytes(1)), to: addr(p.bytes(2)), amount: p.int(3) };
      break;
    }
    case 'TriggerSmartContract': {
      // call_token_value 5 and token_id 6 (TRC-10) are refused by the allowed list.
      const p = new Reader(v, type, [1, 2, 3, 4]);
      contract = { type, owner: addr(p.bytes(1)), contract: addr(p.bytes(2)), callValue: p.int(3), data: bytesToHex(p.bytes(4)) };
      break;
    }
    case 'DelegateResourceContract': {
      const p = new Reader(v, type, [1, 2, 3, 4, 5, 6]);
      if (p.int(6) !== 0n) throw new ProtobufError('DelegateResourceContract: a lock period');
      contract = { type, owner: addr(p.bytes(1)), resource: Number(p.int(2)), balance: p.int(3), receiver: addr(p.bytes(4)), lock: p.int(5) !== 0n };
      break;
    }
    case 'UnDelegateResourceContract': {
      const p = new Reader(v, type, [1, 2, 3, 4]);
      contract = { type, owner: addr(p.bytes(1)), resource: Number(p.int(2)), balance: p.int(3), receiver: addr(p.bytes(4)) };
      break;
    }
  }
  return {
    refBlockBytes: bytesToHex(r.bytes(1)),
    refBlockHash: bytesToHex(r.bytes(4)),
    expiration: Number(r.int(8)),
    timestamp: Number(r.int(14)),
    feeLimit: r.int(18),
    contract,
  };
}

function addr(b: Uint8Array): string {
  if (b.length !== 21 || b[0] !== 0x41) throw new ProtobufError('not a 21-byte 0x41 address');
  return bytesToHex(b);
}

function varintBytes(n: bigint): Uint8Array {
  const out: number[] = [];
  let v = n;
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    out.push(b);
  } while (v > 0n);
  return Uint8Array.from(out);
}

function lenField(num: number, value: Uint8Array): Uint8Array {
  return concatBytes(varintBytes(BigInt((num << 3) | 2)), varintBytes(BigInt(value.length)), value);
}

/** Transaction { raw_data = 1; signature = 2 }: what /wallet/broadcasthex takes. */
export function encodeSignedTransaction(rawHex: string, signatureHex: string): string {
  return bytesToHex(concatBytes(lenField(1, hexToBytes(rawHex)), lenField(2, hexToBytes(signatureHex))));
}
