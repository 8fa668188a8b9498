// Reads what the scanner needs from a serialized transaction: the outpoints it spends and its
// outputs (amount in base units, scriptPubKey). Only the canonical part is read: Litecoin's MWEB
// data, when flagged, follows the outputs and is never looked at (MWEB is not supported), so only
// canonical outputs are ever credited. Linear in the size of the transaction.

export interface TxInput {
  /** The spent transaction's id (display order, hex). */
  txid: string;
  vout: number;
  sequence: number;
}

export interface TxOutput {
  sats: bigint;
  /** scriptPubKey, hex. */
  script: string;
}

export interface ParsedTx {
  inputs: TxInput[];
  outputs: TxOutput[];
}

export class RawTxError extends Error {}

export function parseRawTx(hex: string): ParsedTx {
  const b = Buffer.from(hex, 'hex');
  if (b.length * 2 !== hex.length) throw new RawTxError('transaction hex is malformed');
  let o = 4; // version
  const need = (n: number) => {
    if (o + n > b.length) throw new RawTxError('transaction ends early');
  };
  const varint = (): number => {
    need(1);
    const first = b[o++]!;
    if (first < 0xfd) return first;
    if (first === 0xfd) {
      need(2);
      o += 2;
      return b.readUInt16LE(o - 2);
    }
    if (first === 0xfe) {
      need(4);
      o += 4;
      return b.readUInt32LE(o - 4);
    }
    throw new RawTxError('count too large');
  };
  need(2);
  if (b[o] === 0x00 && b[o + 1] !== 0x00) o += 2; // segwit marker and flags (witness, MWEB)
  const nIn = varint();
  const inputs: TxInput[] = [];
  for (let i = 0; i < nIn; i++) {
    need(36);
    const txid = Buffer.from(b.subarray(o, o + 32)).reverse().toString('hex');
    const vout = b.readUInt32LE(o + 32);
    o += 36;
    const len = varint();
    need(len + 4);
    o += len;
    inputs.push({ txid, vout, sequence: b.readUInt32LE(o) });
    o += 4;
  }
  const nOut = varint();
  const outputs: TxOutput[] = [];
  for (let i = 0; i < nOut; i++) {
    need(8);
    const sats = b.readBigUInt64LE(o);
    o += 8;
    const len = varint();
    need(len);
    outputs.push({ sats, script: b.toString('hex', o, o + len) });
    o += len;
  }
  return { inputs, outputs };
}

/** The coinbase's input spends nothing. */
export const NULL_TXID = '0'.repeat(64);
