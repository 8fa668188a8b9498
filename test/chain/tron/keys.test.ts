// TRON keys, addresses and the hand-written protobuf, checked against the official `tronweb`
// package (a test-only oracle): addresses of m/44'/195'/0'/0/i and the hot wallet, hex/base58
// spellings, validation, signatures (byte for byte: both are RFC 6979), and decoding of the
// transactions tronweb's own protobuf code builds.
import { describe, expect, it } from 'vitest';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { TronWeb, utils as tw } from 'tronweb';
import { deriveAddress } from '../../helpers/addresses.ts';
import { TronKeys, tronHotWalletPath, parseTronDepositIndex } from '../../../src/chain/tron/keys.ts';
import { accountIdHex, fromHexAddress, isTronAddress, toHexAddress } from '../../../src/chain/tron/address.ts';
import { decodeRaw, encodeSignedTransaction, ProtobufError } from '../../../src/chain/tron/protobuf.ts';

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const SEED = mnemonicToSeedSync(MNEMONIC);
const proto = (globalThis as unknown as { TronWebProto: any }).TronWebProto;

function privHex(path: string): string {
  return bytesToHex(HDKey.fromMasterSeed(SEED).derive(path).privateKey!);
}

/** What java-tron answers for a built transaction, made with tronweb's protobuf code. */
function built(contract: { type: string; parameter: { value: Record<string, unknown>; type_url: string } }, extra: Record<string, unknown> = {}) {
  const tx: any = {
    visible: false,
    raw_data: { contract: [contract], ref_block_bytes: 'a1b2', ref_block_hash: '0102030405060708', expiration: 1_800_000_060_000, timestamp: 1_800_000_000_000, ...extra },
  };
  const pb = tw.transaction.txJsonToPb(tx);
  return { raw: (tw.transaction.txPbToRawDataHex(pb) as string).toLowerCase(), txID: tw.transaction.txPbToTxID(pb).replace(/^0x/, '') as string };
}

describe('TRON keys and addresses (tronweb as the oracle)', () => {
  it('deposit addresses m/44\'/195\'/0\'/0/i are what tronweb derives from the same keys', () => {
    const keys = new TronKeys(SEED, 195);
    for (const i of [0, 1, 2, 19, 1000]) {
      const expected = TronWeb.address.fromPrivateKey(privHex(`m/44'/195'/0'/0/${i}`));
      expect(deriveAddress('tron', SEED, 195, i).address).toBe(expected);
      expect(keys.deposit(i).address).toBe(expected);
    }
    // A fixed vector, so a change of path or encoding cannot pass unnoticed.
    expect(keys.deposit(0).address).toBe('TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH');
  });

  it('the hot wallet is account 1, m/44\'/195\'/1\'/0/0', () => {
    expect(tronHotWalletPath(195)).toBe("m/44'/195'/1'/0/0");
    const keys = new TronKeys(SEED, 195);
    expect(keys.hot.address).toBe(TronWeb.address.fromPrivateKey(privHex("m/44'/195'/1'/0/0")));
    expect(keys.hot.address).not.toBe(keys.deposit(0).address);
    expect(parseTronDepositIndex("m/44'/195'/0'/0/42", 195)).toBe(42);
    expect(parseTronDepositIndex("m/44'/60'/0'/0/42", 195)).toBeNull();
    expect(parseTronDepositIndex("m/44'/195'/1'/0/0", 195)).toBeNull();
  });

  it('hex and base58 spellings convert as tronweb converts them', () => {
    const keys = new TronKeys(SEED, 195);
    for (const a of [keys.hot.address, keys.deposit(3).address, 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t']) {
      const hex = TronWeb.address.toHex(a).toLowerCase();
      expect(toHexAddress(a)).toBe(hex);
      expect(fromHexAddress(hex)).toBe(a);
      expect(fromHexAddress(hex.slice(2))).toBe(a);
      expect(accountIdHex(a)).toBe(hex.slice(2));
    }
  });

  it('validation agrees with tronweb on good and bad addresses', () => {
    const good = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
    const bad = [
      'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u', // checksum
      'tr7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
      '41a614f803b6fd780986a42c78ec9c7f77e6ded13c', // hex is not what a payer types
      '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', // base58check, other version byte
      '',
      'T',
    ];
    expect(isTronAddress(good)).toBe(true);
    expect(TronWeb.isAddress(good)).toBe(true);
    for (const b of bad) {
      expect(isTronAddress(b), b).toBe(false);
      if (!b.startsWith('41')) expect(TronWeb.isAddress(b), b).toBe(false);
    }
  });

  it('signatures are tronweb\'s, byte for byte, and recover to the signer', () => {
    const keys = new TronKeys(SEED, 195);
    const { raw, txID } = built({
      type: 'TransferContract',
      parameter: { value: { owner_address: toHexAddress(keys.hot.address), to_address: toHexAddress(keys.deposit(1).address), amount: 1_500_000 }, type_url: 'type.googleapis.com/protocol.TransferContract' },
    });
    const ours = keys.hot.sign(hexToBytes(raw));
    const theirs = tw.crypto.signTransaction(privHex("m/44'/195'/1'/0/0"), { txID, raw_data_hex: raw }).signature[0];
    expect(ours).toBe(theirs!.toLowerCase());
    expect(TronWeb.address.fromHex(tw.crypto.ecRecover(txID, ours))).toBe(keys.hot.address);
    // The signed protobuf for broadcasthex decodes with tronweb's Transaction message.
    const signed = proto.Transaction.deserializeBinary(hexToBytes(encodeSignedTransaction(raw, ours)));
    expect(bytesToHex(signed.getRawData().serializeBinary())).toBe(raw);
    expect(bytesToHex(signed.getSignatureList_asU8()[0])).toBe(ours);
  });

  it('decodes what the node builds: TRX transfer, TRC-20 call, delegation', () => {
    const owner = toHexAddress('TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH');
    const to = toHexAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t');
    const t = decodeRaw(hexToBytes(built({ type: 'TransferContract', parameter: { value: { owner_address: owner, to_address: to, amount: 123_456_789 }, type_url: 'type.googleapis.com/protocol.TransferContract' } }).raw));
    expect(t).toMatchObject({ expiration: 1_800_000_060_000, refBlockBytes: 'a1b2', feeLimit: 0n, contract: { type: 'TransferContract', owner, to, amount: 123_456_789n } });

    const data = 'a9059cbb' + '0'.repeat(24) + to.slice(2) + (10n ** 6n).toString(16).padStart(64, '0');
    const c = decodeRaw(hexToBytes(built({ type: 'TriggerSmartContract', parameter: { value: { owner_address: owner, contract_address: to, data }, type_url: 'type.googleapis.com/protocol.TriggerSmartContract' } }, { fee_limit: 30_000_000 }).raw));
    expect(c).toMatchObject({ feeLimit: 30_000_000n, contract: { type: 'TriggerSmartContract', owner, contract: to, callValue: 0n, data } });

    const d = decodeRaw(hexToBytes(built({ type: 'DelegateResourceContract', parameter: { value: { owner_address: owner, receiver_address: to, balance: 5_000_000, resource: 'ENERGY' }, type_url: 'type.googleapis.com/protocol.DelegateResourceContract' } }).raw));
    expect(d.contract).toEqual({ type: 'DelegateResourceContract', owner, receiver: to, resource: 1, balance: 5_000_000n, lock: false });
  });

  it('refuses what it does not fully understand: a memo, another contract type, garbage', () => {
    const owner = toHexAddress('TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH');
    const memo = built({ type: 'TransferContract', parameter: { value: { owner_address: owner, to_address: owner, amount: 1 }, type_url: 'type.googleapis.com/protocol.TransferContract' } }, { data: '6869' });
    expect(() => decodeRaw(hexToBytes(memo.raw))).toThrow(ProtobufError);
    const freeze = built({ type: 'FreezeBalanceV2Contract', parameter: { value: { owner_address: owner, frozen_balance: 1, resource: 'ENERGY' }, type_url: 'type.googleapis.com/protocol.FreezeBalanceV2Contract' } });
    expect(() => decodeRaw(hexToBytes(freeze.raw))).toThrow(/type 54/);
    expect(() => decodeRaw(hexToBytes('0a02ff'))).toThrow(ProtobufError);
    expect(() => decodeRaw(hexToBytes('ffffffff'))).toThrow(ProtobufError);
  });
});
