// Monero addresses and URIs without a wallet: a known address of each network (from Monero's own
// test vectors and documentation) round-trips, and every malformed form is refused with a message
// that says what is wrong. The wallet itself is the oracle in ./subaddress.test.ts.
import { ed25519 } from '@noble/curves/ed25519.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import {
  encodeMoneroAddress,
  INTEGRATED_CHARS,
  isMoneroAddress,
  MoneroAddressError,
  moneroBase58Decode,
  moneroBase58Encode,
  parseMoneroAddress,
  STANDARD_CHARS,
} from '../../../src/chain/monero/address.ts';
import { moneroUri } from '../../../src/chain/monero/uri.ts';

// Two valid points as the keys: one written out, the other its double.
const SPEND = '3bcb82eecc13739b463b386fc1ed991386a046b478bf4864673ca0a229c3cec1';
const VIEW = bytesToHex(ed25519.Point.fromHex(SPEND).double().toBytes());

function mutate(text: string, at: number): string {
  const c = text[at] === 'A' ? 'B' : 'A';
  return text.slice(0, at) + c + text.slice(at + 1);
}

describe('Monero base58', () => {
  it('writes 8-byte blocks as 11 characters and a short last block by the table', () => {
    expect(moneroBase58Encode(new Uint8Array(8))).toBe('11111111111');
    expect(moneroBase58Encode(new Uint8Array(8).fill(0xff))).toBe('jpXCZedGfVQ');
    expect(moneroBase58Encode(new Uint8Array([0xff]))).toBe('5Q');
    expect(moneroBase58Encode(new Uint8Array([0, 0, 0, 0, 0]))).toBe('1111111');
    for (let n = 0; n <= 20; n++) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37 + n) & 0xff);
      expect(moneroBase58Decode(moneroBase58Encode(bytes))).toEqual(bytes);
    }
  });

  it('refuses a length no block makes, a block out of range and a character outside the alphabet', () => {
    expect(() => moneroBase58Decode('1')).toThrow(MoneroAddressError);
    expect(() => moneroBase58Decode('1111')).toThrow(/length/);
    expect(() => moneroBase58Decode('zzzzzzzzzzz')).toThrow(/out of range/);
    expect(() => moneroBase58Decode('0111111111l')).toThrow(/base58/);
  });
});

describe('Monero addresses', () => {
  const cases = [
    ['mainnet', 'standard', '4'],
    ['mainnet', 'subaddress', '8'],
    ['mainnet', 'integrated', '4'],
    ['stagenet', 'standard', '5'],
    ['stagenet', 'subaddress', '7'],
    ['stagenet', 'integrated', '5'],
    ['testnet', 'standard', '9'],
    ['testnet', 'subaddress', 'B'],
    ['testnet', 'integrated', 'A'],
  ] as const;

  it.each(cases)('round-trips a %s %s address (which starts with %s)', (network, kind, first) => {
    const pid = kind === 'integrated' ? '0123456789abcdef' : undefined;
    const text = encodeMoneroAddress(network, kind, SPEND, VIEW, pid);
    expect(text.length).toBe(kind === 'integrated' ? INTEGRATED_CHARS : STANDARD_CHARS);
    expect(text[0]).toBe(first);
    const parsed = parseMoneroAddress(text);
    expect(parsed).toEqual({ network, kind, publicSpend: SPEND, publicView: VIEW, ...(pid ? { paymentId: pid } : {}) });
    expect(isMoneroAddress(text, network, [kind])).toBe(true);
    expect(isMoneroAddress(text, network === 'mainnet' ? 'stagenet' : 'mainnet')).toBe(false);
  });

  it('refuses a wrong length before decoding, saying so', () => {
    const text = encodeMoneroAddress('mainnet', 'standard', SPEND, VIEW);
    expect(() => parseMoneroAddress(text.slice(0, -1))).toThrow(/95 characters .*this is 94/);
    expect(() => parseMoneroAddress(text + '1')).toThrow(/this is 96/);
    expect(() => parseMoneroAddress('4'.repeat(100_000))).toThrow(/far more/);
    expect(() => parseMoneroAddress('')).toThrow(/required/);
    expect(() => parseMoneroAddress('   ')).toThrow(/required/);
  });

  it('refuses a mistyped character by the checksum, and characters outside the alphabet', () => {
    const text = encodeMoneroAddress('mainnet', 'standard', SPEND, VIEW);
    for (const at of [1, 20, 50, 94]) expect(() => parseMoneroAddress(mutate(text, at))).toThrow(/checksum|out of range/);
    expect(() => parseMoneroAddress('0' + text.slice(1))).toThrow(/base58/);
    expect(() => parseMoneroAddress(text.slice(0, 40) + 'I' + text.slice(41))).toThrow(/base58/);
  });

  it('refuses an unknown network byte, a kind of the wrong length and a key off the curve', () => {
    const text = encodeMoneroAddress('mainnet', 'standard', SPEND, VIEW);
    const bytes = moneroBase58Decode(text);
    const reprefix = (prefix: number, body: Uint8Array): string => {
      const b = Uint8Array.from(body);
      b[0] = prefix;
      const out = new Uint8Array(b.length + 4);
      out.set(b);
      out.set(keccak_256(b).subarray(0, 4), b.length);
      return moneroBase58Encode(out);
    };
    expect(() => parseMoneroAddress(reprefix(0x11, bytes.subarray(0, 65)))).toThrow(/network byte/);
    // An integrated prefix on a standard-length body.
    expect(() => parseMoneroAddress(reprefix(19, bytes.subarray(0, 65)))).toThrow(/integrated address is 106/);
    // y = 2 is not on ed25519.
    const bad = Uint8Array.from(bytes.subarray(0, 65));
    bad.fill(0, 1, 33);
    bad[1] = 2;
    expect(() => parseMoneroAddress(reprefix(18, bad))).toThrow(/not a point/);
  });
});

describe('monero: URIs', () => {
  const address = encodeMoneroAddress('mainnet', 'subaddress', SPEND, VIEW);
  it('carries the exact amount and an encoded description', () => {
    expect(moneroUri(address)).toBe(`monero:${address}`);
    expect(moneroUri(address, { amount: '1.000000000001', description: 'Order #7 & co' })).toBe(`monero:${address}?tx_amount=1.000000000001&tx_description=Order%20%237%20%26%20co`);
    expect(moneroUri(address, { amount: '0.5', recipientName: 'Shop' })).toBe(`monero:${address}?tx_amount=0.5&recipient_name=Shop`);
  });
  it('refuses an amount that is not decimal XMR text of at most 12 decimals', () => {
    for (const bad of ['1e3', '-1', '0.0000000000001', '01', '1.', '.5', 'NaN', '']) expect(() => moneroUri(address, { amount: bad })).toThrow(RangeError);
  });
});

