// The scanner's transaction reader: outpoints spent and canonical outputs, from legacy, SegWit and
// Litecoin MWEB-flagged serializations; anything after the outputs (witnesses, MWEB data) unread.
import { describe, expect, it } from 'vitest';
import { Transaction, OutScript } from '@scure/btc-signer';
import { parseRawTx, RawTxError } from '../../../src/chain/bitcoin/rawtx.ts';

const wpkh = OutScript.encode({ type: 'wpkh', hash: new Uint8Array(20).fill(5) });
const pkh = OutScript.encode({ type: 'pkh', hash: new Uint8Array(20).fill(6) });

function build(): Transaction {
  const tx = new Transaction({ allowUnknownOutputs: true });
  tx.addInput({ txid: '01'.repeat(31) + 'ff', index: 3, witnessUtxo: { script: wpkh, amount: 10n ** 9n }, sequence: 0xfffffffd });
  tx.addOutput({ script: wpkh, amount: 123_456_789n });
  tx.addOutput({ script: pkh, amount: 1n });
  return tx;
}

describe('parseRawTx', () => {
  it('reads inputs (display-order txid, vout, sequence) and outputs (exact satoshis, script) of a legacy serialization', () => {
    const hex = build().hex;
    expect(parseRawTx(hex)).toEqual({
      inputs: [{ txid: '01'.repeat(31) + 'ff', vout: 3, sequence: 0xfffffffd }],
      outputs: [
        { sats: 123_456_789n, script: Buffer.from(wpkh).toString('hex') },
        { sats: 1n, script: Buffer.from(pkh).toString('hex') },
      ],
    });
  });

  it('skips the SegWit marker and flag, and the Litecoin MWEB flag (0x08): only canonical outputs', () => {
    const legacy = build().hex;
    // version | 00 flag | rest ... : the witness (flag 1) or MWEB (flag 8) data follow the outputs.
    const withFlag = (flag: string, trailer: string) => `${legacy.slice(0, 8)}00${flag}${legacy.slice(8, -8)}${trailer}${legacy.slice(-8)}`;
    const expected = parseRawTx(legacy);
    expect(parseRawTx(withFlag('01', '0100'))).toEqual(expected);
    expect(parseRawTx(withFlag('08', '00'.repeat(40)))).toEqual(expected);
    expect(parseRawTx(withFlag('09', '0100' + '00'.repeat(40)))).toEqual(expected);
  });

  it('refuses truncated or malformed bytes instead of reading past them', () => {
    const hex = build().hex;
    expect(() => parseRawTx(hex.slice(0, 60))).toThrow(RawTxError);
    expect(() => parseRawTx('zz' + hex.slice(2))).toThrow(RawTxError);
    expect(() => parseRawTx(hex.slice(0, 10) + 'ff' + 'ff'.repeat(8))).toThrow(RawTxError);
  });
});
