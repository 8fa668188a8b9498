import { describe, it, expect } from 'vitest';
import { mnemonicToSeedSync } from '@scure/bip39';
import { HDKey } from '@scure/bip32';
import { base58, base64url, bech32, createBase58check, hex } from '@scure/base';
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { getAddress } from 'viem';
import { mnemonicToAccount, privateKeyToAddress } from 'viem/accounts';
import {
  addressDeriver,
  deriveAddress,
  deriveRange,
  isValidAddress,
  paymentUri,
  qrContent,
  type AddressFormat,
  type PaymentUriOptions,
} from '../helpers/addresses.ts';
import { edDerive } from '../../src/chain/address/hd.ts';
import { crc16 } from '../../src/chain/address/ton.ts';

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const SEED = mnemonicToSeedSync(MNEMONIC);
const b58c = createBase58check(sha256);
const hash160 = (b: Uint8Array) => ripemd160(sha256(b));

const COIN_TYPES: Record<AddressFormat, number> = {
  bitcoin: 0,
  litecoin: 2,
  dogecoin: 3,
  evm: 60,
  tron: 195,
  ton: 607,
  solana: 501,
  monero: 128,
  'monero-stagenet': 128,
  'monero-testnet': 128,
};
const FORMATS = Object.keys(COIN_TYPES) as AddressFormat[];

/** Full-path private derivation, independent of the module's cached public-node route. */
function pubAt(path: string): Uint8Array {
  return HDKey.fromMasterSeed(SEED).derive(path).publicKey!;
}

/** Rewrites the last character so the checksum no longer matches. */
function corrupt(address: string, alphabet: string): string {
  const last = address.at(-1)!;
  const next = alphabet[(alphabet.indexOf(last) + 1) % alphabet.length]!;
  return address.slice(0, -1) + next;
}
const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BECH = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';

describe('deriveAddress: published vectors for the BIP-39 "abandon ... about" mnemonic', () => {
  it('bitcoin: BIP-84 test vectors (m/84\'/0\'/0\'/0/i)', () => {
    expect(deriveAddress('bitcoin', SEED, 0, 0)).toEqual({
      address: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
      path: "m/84'/0'/0'/0/0",
    });
    expect(deriveAddress('bitcoin', SEED, 0, 1).address).toBe('bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g');
  });

  it('litecoin: native segwit at m/84\'/2\'/0\'/0/i', () => {
    const got = deriveAddress('litecoin', SEED, 2, 0);
    expect(got).toEqual({ address: 'ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh', path: "m/84'/2'/0'/0/0" });
    const program = hash160(pubAt(got.path));
    expect(got.address).toBe(bech32.encode('ltc', [0, ...bech32.toWords(program)]));
  });

  it('dogecoin: P2PKH at m/44\'/3\'/0\'/0/i', () => {
    const got = deriveAddress('dogecoin', SEED, 3, 0);
    expect(got).toEqual({ address: 'DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC', path: "m/44'/3'/0'/0/0" });
    expect(b58c.encode(Uint8Array.of(0x1e, ...hash160(pubAt(got.path))))).toBe(got.address);
  });

  it('evm: equals viem mnemonicToAccount', () => {
    expect(deriveAddress('evm', SEED, 60, 0)).toEqual({
      address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
      path: "m/44'/60'/0'/0/0",
    });
    for (const addressIndex of [0, 1, 2, 7, 1000]) {
      expect(deriveAddress('evm', SEED, 60, addressIndex).address).toBe(
        mnemonicToAccount(MNEMONIC, { addressIndex }).address,
      );
    }
  });

  it('tron: 0x41 + the viem-computed account id of m/44\'/195\'/0\'/0/i', () => {
    const got = deriveAddress('tron', SEED, 195, 0);
    expect(got).toEqual({ address: 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH', path: "m/44'/195'/0'/0/0" });
    for (const i of [0, 5]) {
      const key = HDKey.fromMasterSeed(SEED).derive(`m/44'/195'/0'/0/${i}`).privateKey!;
      const evm = privateKeyToAddress(`0x${hex.encode(key)}`);
      const expected = b58c.encode(Uint8Array.of(0x41, ...hex.decode(evm.slice(2).toLowerCase())));
      expect(deriveAddress('tron', SEED, 195, i).address).toBe(expected);
    }
  });

  it('solana: SLIP-0010 m/44\'/501\'/i\'/0\' (Phantom / solana-keygen)', () => {
    expect(deriveAddress('solana', SEED, 501, 0)).toEqual({
      address: 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk',
      path: "m/44'/501'/0'/0'",
    });
    expect(deriveAddress('solana', SEED, 501, 3).path).toBe("m/44'/501'/3'/0'");
  });

  it('SLIP-0010 ed25519 derivation matches the spec test vector 1', () => {
    const seed = hex.decode('000102030405060708090a0b0c0d0e0f');
    const a = edDerive(seed, [0]);
    expect(hex.encode(a.key)).toBe('68e0fe46dfb67e368c75379acec591dad19df3cde26e63b93a8e704f1dade7a3');
    expect(hex.encode(ed25519.getPublicKey(a.key))).toBe(
      '8c8a13df77a28f3445213a0f432fde644acaa215fc72dcdf300d5efaa85d350c',
    );
    const b = edDerive(seed, [0, 1, 2, 2, 1000000000]);
    expect(hex.encode(b.key)).toBe('8f94d394a8e8fd6b1bc2f3f49f5c47e385281d5c17e65324b0f62483e37e8793');
    expect(hex.encode(ed25519.getPublicKey(b.key))).toBe(
      '3c24da049451555d51a7014a37337aa4e12d41e485abccfa46b47dfb2af54b7a',
    );
  });

  it('ton: non-bounceable user-friendly address of the m/44\'/607\'/i\' key', () => {
    const got = deriveAddress('ton', SEED, 607, 0);
    expect(got.path).toBe("m/44'/607'/0'");
    expect(got.address).toMatch(/^UQ[A-Za-z0-9_-]{46}$/);
    const body = base64url.decode(got.address);
    const pub = ed25519.getPublicKey(edDerive(SEED, [44, 607, 0]).key);
    expect(body.subarray(2, 34)).toEqual(sha256(pub));
    expect(isValidAddress('ton', got.address)).toBe(true);
  });
});

describe('deriveAddress: behaviour', () => {
  it.each(FORMATS)('%s: 1000 consecutive indexes give 1000 distinct valid addresses', (format) => {
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const { address } = deriveAddress(format, SEED, COIN_TYPES[format], i);
      seen.add(address);
      if (i % 97 === 0) expect(isValidAddress(format, address)).toBe(true);
    }
    expect(seen.size).toBe(1000);
  });

  it.each(FORMATS)('%s: a range derived at once equals the same indexes derived one by one', (format) => {
    const derive = addressDeriver(format, SEED, COIN_TYPES[format]);
    const together = deriveRange(derive, 995, 40);
    expect(together).toEqual(Array.from({ length: 40 }, (_, i) => derive(995 + i)));
    expect(together[0]).toEqual(deriveAddress(format, SEED, COIN_TYPES[format], 995));
    expect(deriveRange(derive, 7, 1)).toEqual([derive(7)]);
    expect(deriveRange(derive, 7, 0)).toEqual([]);
  });

  it('secp256k1 formats derive ranges in one batch (one field inversion for all)', () => {
    for (const format of ['evm', 'tron', 'bitcoin', 'litecoin', 'dogecoin'] as const) expect(addressDeriver(format, SEED, COIN_TYPES[format]).many).toBeTypeOf('function');
    const evm = deriveRange(addressDeriver('evm', SEED, 60), 0, 8).map((a) => a.address);
    expect(evm).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((addressIndex) => mnemonicToAccount(MNEMONIC, { addressIndex }).address));
  });

  it('caches one deriver per seed+format+coinType', () => {
    const d = addressDeriver('evm', SEED, 60);
    expect(addressDeriver('evm', new Uint8Array(SEED), 60)).toBe(d);
    expect(addressDeriver('evm', SEED, 195)).not.toBe(d);
    expect(addressDeriver('tron', SEED, 60)).not.toBe(d);
    const other = mnemonicToSeedSync('legal winner thank year wave sausage worth useful legal winner thank yellow');
    expect(deriveAddress('evm', other, 60, 0).address).not.toBe(deriveAddress('evm', SEED, 60, 0).address);
  });

  it('derives independent of cache state and call order', () => {
    const later = deriveAddress('bitcoin', SEED, 0, 41);
    expect(later.address).toBe(
      bech32.encode('bc', [0, ...bech32.toWords(hash160(pubAt("m/84'/0'/0'/0/41")))]),
    );
  });

  it('rejects invalid indexes and coin types', () => {
    for (const bad of [-1, 1.5, 2 ** 31, Number.NaN]) {
      expect(() => deriveAddress('evm', SEED, 60, bad)).toThrow(RangeError);
      expect(() => deriveAddress('solana', SEED, 501, bad)).toThrow(RangeError);
    }
    expect(() => deriveAddress('evm', SEED, -60, 0)).toThrow(RangeError);
  });
});

describe('isValidAddress', () => {
  const valid: Record<AddressFormat, string[]> = {
    bitcoin: [
      '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', // genesis coinbase P2PKH
      '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', // BIP-13 P2SH
      'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', // BIP-173 P2WPKH
      'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', // same, upper case
      'bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3', // BIP-173 P2WSH
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0', // BIP-350 taproot
      'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
    ],
    litecoin: [
      'ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh',
      bech32.encode('ltc', [0, ...bech32.toWords(new Uint8Array(32).fill(7))]), // P2WSH
      b58c.encode(Uint8Array.of(0x30, ...new Uint8Array(20).fill(9))), // L...
      b58c.encode(Uint8Array.of(0x32, ...new Uint8Array(20).fill(9))), // M...
      b58c.encode(Uint8Array.of(0x05, ...new Uint8Array(20).fill(9))), // legacy 3...
    ],
    dogecoin: [
      'DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC',
      b58c.encode(Uint8Array.of(0x16, ...new Uint8Array(20).fill(9))), // P2SH
    ],
    evm: [
      '0xdAC17F958D2ee523a2206206994597C13D831ec7',
      '0xdac17f958d2ee523a2206206994597c13d831ec7',
      '0xDAC17F958D2EE523A2206206994597C13D831EC7',
      // EIP-55 spec vectors
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
      '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
      '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
    ],
    tron: ['TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH'],
    ton: [
      'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs', // USDT jetton master
      '0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe',
      '-1:' + 'ab'.repeat(32),
      'Ef8zMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzM0vF', // elector, masterchain
    ],
    solana: [
      'EPjFWdd5AufqSSqeM2qFLdkdsQn7y3WR1jQoNtaA5CTs', // USDC mint
      'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB',
      'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
      '11111111111111111111111111111111', // system program: all-zero key
    ],
    // Written by monero-wallet-rpc 0.18: a primary address, a subaddress, an integrated address.
    monero: ['487hzSyZA2JAH4SqDy6TrNdZNfNpTQTPHCkKu6dS7vPDBV4o5qxYrthXB57MqW2tBSTid76usXExEKtvVow3i6jb965EYkA', '83f3xkAKR4zQzLgskgY9fBeGEDHz2hz5cMDEXyrvqHXeUUUY4HL1ufMTDgoSqAE4W7PBB6Qh16AfqNnBUn8gYVZ8VYb232d'],
    'monero-stagenet': ['54te5TE5kjxR6FKVsYD1eaRPSbKBCB2nePkJ5EXhneFGgGieB7QSAgEJj2tFudT5mJdbVKFHMcamx1SyhoWbkd8cTQMiZBh', '7Bo9k4SKWJNd3YzmW33G6HR1mm1nYAvFCifFhT7Xo7YzchwtFW3ATPRiu8VoddLZheNz3wAYsamYfMrkiKC9aDyQFRmSmpY', '5EbK6G3aN1UR6FKVsYD1eaRPSbKBCB2nePkJ5EXhneFGgGieB7QSAgEJj2tFudT5mJdbVKFHMcamx1SyhoWbkd8cg9k4TU9WmLJGRzLeLA'],
    'monero-testnet': ['9uCd6d911VwBgABpFeQSmZUZxjbqu5phTE2UTaBQWvbW7edmQ3iZ8fBPMx1cEa2ba43oyyQZU3dAREcU2p1YLMkJ5qm4EaQ', 'BYM77tuMvodbQGqN3KRaVD79RMEAVd6RCWVWdPKRa9bCg6BLgxADdVhBzwrEkjvTbAUuLiv3nyDczhJ23rbWtNJs272LZsx', 'A4uJ7RxVcmTBgABpFeQSmZUZxjbqu5phTE2UTaBQWvbW7edmQ3iZ8fBPMx1cEa2ba43oyyQZU3dAREcU2p1YLMkJ836unUvp1xzGSW8WWM'],
  };

  it.each(FORMATS)('%s: accepts real addresses', (format) => {
    for (const a of valid[format]) expect(isValidAddress(format, a), a).toBe(true);
  });

  it('ton: the raw and both user-friendly alphabets of one account agree', () => {
    const body = base64url.decode('EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs');
    expect(hex.encode(body.subarray(2, 34))).toBe('b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe');
    const std = 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id/sDs';
    expect(isValidAddress('ton', std)).toBe(true);
    expect(isValidAddress('ton', retag(body, 0x51))).toBe(true); // UQ...
  });

  const invalid: Record<AddressFormat, string[]> = {
    bitcoin: [
      corrupt('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', BECH),
      corrupt('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', B58),
      corrupt('3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', B58),
      'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh', // v0 with bech32m checksum (BIP-350)
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd', // v1 with bech32 checksum (BIP-350)
      'bc1qW508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', // mixed case
      'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', // testnet
      'ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh',
      bech32.encode('bc', [0, ...bech32.toWords(new Uint8Array(21))]), // v0 program of wrong length
      'DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC',
      ' 1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa',
      '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa\n',
    ],
    litecoin: [
      corrupt('ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh', BECH),
      'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
      '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa',
      'DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC',
      corrupt(b58c.encode(Uint8Array.of(0x30, ...new Uint8Array(20).fill(9))), B58),
    ],
    dogecoin: [
      corrupt('DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC', B58),
      '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa',
      '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy',
      'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
      b58c.encode(Uint8Array.of(0x1e, ...new Uint8Array(19))), // short payload
    ],
    evm: [
      '0xdAC17F958D2ee523a2206206994597C13D831EC7', // mixed case, bad checksum
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD',
      '0xdac17f958d2ee523a2206206994597c13d831ec',
      '0xdac17f958d2ee523a2206206994597c13d831ec71',
      'dac17f958d2ee523a2206206994597c13d831ec7',
      '0Xdac17f958d2ee523a2206206994597c13d831ec7',
      '0xgac17f958d2ee523a2206206994597c13d831ec7',
      ' 0xdac17f958d2ee523a2206206994597c13d831ec7',
    ],
    tron: [
      corrupt('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', B58),
      '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa',
      '0xdAC17F958D2ee523a2206206994597C13D831ec7',
      'EPjFWdd5AufqSSqeM2qFLdkdsQn7y3WR1jQoNtaA5CTs',
    ],
    ton: [
      'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDt', // bad CRC
      'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sD', // 47 chars
      'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id/sD_', // mixed alphabets
      retag(base64url.decode('EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs'), 0x91), // testnet bounceable
      retag(base64url.decode('EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs'), 0xd1), // testnet non-bounceable
      '1:' + 'ab'.repeat(32),
      '0:' + 'ab'.repeat(31),
      '0:' + 'zz'.repeat(32),
      'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
    ],
    solana: [
      base58.encode(new Uint8Array(31).fill(0xff)),
      base58.encode(new Uint8Array(33).fill(0x01)),
      'EPjFWdd5AufqSSqeM2qFLdkdsQn7y3WR1jQoNtaA5CT0', // '0' is not base58
      'OPjFWdd5AufqSSqeM2qFLdkdsQn7y3WR1jQoNtaA5CTs',
      '0xdAC17F958D2ee523a2206206994597C13D831ec7',
      'EPjFWdd5AufqSSqeM2qFLdkdsQn7y3WR1jQoNtaA5CTs ',
    ],
    monero: [corrupt('487hzSyZA2JAH4SqDy6TrNdZNfNpTQTPHCkKu6dS7vPDBV4o5qxYrthXB57MqW2tBSTid76usXExEKtvVow3i6jb965EYkA', B58), '54te5TE5kjxR6FKVsYD1eaRPSbKBCB2nePkJ5EXhneFGgGieB7QSAgEJj2tFudT5mJdbVKFHMcamx1SyhoWbkd8cTQMiZBh', 'BYM77tuMvodbQGqN3KRaVD79RMEAVd6RCWVWdPKRa9bCg6BLgxADdVhBzwrEkjvTbAUuLiv3nyDczhJ23rbWtNJs272LZsx', '487hzSyZA2JAH4SqDy6TrNdZNfNpTQTPHCkKu6dS7vPDBV4o5qxYrthXB57MqW2tBSTid76usXExEKtvVow3i6jb965EYkA'.slice(0, -1), '487hzSyZA2JAH4SqDy6TrNdZNfNpTQTPHCkKu6dS7vPDBV4o5qxYrthXB57MqW2tBSTid76usXExEKtvVow3i6jb965EYkA ', '0' + '487hzSyZA2JAH4SqDy6TrNdZNfNpTQTPHCkKu6dS7vPDBV4o5qxYrthXB57MqW2tBSTid76usXExEKtvVow3i6jb965EYkA'.slice(1)],
    'monero-stagenet': [corrupt('54te5TE5kjxR6FKVsYD1eaRPSbKBCB2nePkJ5EXhneFGgGieB7QSAgEJj2tFudT5mJdbVKFHMcamx1SyhoWbkd8cTQMiZBh', B58), '487hzSyZA2JAH4SqDy6TrNdZNfNpTQTPHCkKu6dS7vPDBV4o5qxYrthXB57MqW2tBSTid76usXExEKtvVow3i6jb965EYkA', '9uCd6d911VwBgABpFeQSmZUZxjbqu5phTE2UTaBQWvbW7edmQ3iZ8fBPMx1cEa2ba43oyyQZU3dAREcU2p1YLMkJ5qm4EaQ', '5EbK6G3aN1UR6FKVsYD1eaRPSbKBCB2nePkJ5EXhneFGgGieB7QSAgEJj2tFudT5mJdbVKFHMcamx1SyhoWbkd8cg9k4TU9WmLJGRzLeLA'.slice(1)],
    'monero-testnet': [corrupt('9uCd6d911VwBgABpFeQSmZUZxjbqu5phTE2UTaBQWvbW7edmQ3iZ8fBPMx1cEa2ba43oyyQZU3dAREcU2p1YLMkJ5qm4EaQ', B58), '83f3xkAKR4zQzLgskgY9fBeGEDHz2hz5cMDEXyrvqHXeUUUY4HL1ufMTDgoSqAE4W7PBB6Qh16AfqNnBUn8gYVZ8VYb232d', '5EbK6G3aN1UR6FKVsYD1eaRPSbKBCB2nePkJ5EXhneFGgGieB7QSAgEJj2tFudT5mJdbVKFHMcamx1SyhoWbkd8cg9k4TU9WmLJGRzLeLA', 'A4uJ7RxVcmTBgABpFeQSmZUZxjbqu5phTE2UTaBQWvbW7edmQ3iZ8fBPMx1cEa2ba43oyyQZU3dAREcU2p1YLMkJ836unUvp1xzGSW8WWMx'],
  };

  it.each(FORMATS)('%s: rejects corrupted, foreign and malformed addresses', (format) => {
    for (const a of [...invalid[format], '', ' ', '\t']) expect(isValidAddress(format, a), JSON.stringify(a)).toBe(false);
  });

  it('evm: every EIP-55 checksum we emit agrees with viem', () => {
    for (let i = 0; i < 20; i++) {
      const { address } = deriveAddress('evm', SEED, 60, i);
      expect(getAddress(address.toLowerCase())).toBe(address);
    }
  });

  it('solana: 32-byte base58 only', () => {
    expect(base58.decode(valid.solana[0]!).length).toBe(32);
  });
});

/** Same account with another tag byte and a recomputed (valid) CRC. */
function retag(body: Uint8Array, tag: number): string {
  const b = Uint8Array.from(body);
  b[0] = tag;
  const crc = crc16(b.subarray(0, 34));
  b[34] = crc >> 8;
  b[35] = crc & 0xff;
  return base64url.encode(b);
}

describe('paymentUri', () => {
  const btc = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu';
  const eth = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
  const sol = 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk';
  const tron = 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH';
  const ton = deriveAddress('ton', SEED, 607, 0).address;

  it('BIP-21 for bitcoin-family coins', () => {
    const o = { format: 'bitcoin', scheme: 'bitcoin', address: btc, decimals: 8, native: true } as const;
    expect(paymentUri({ ...o, amount: '0.001' })).toBe(`bitcoin:${btc}?amount=0.001`);
    expect(paymentUri({ ...o, amount: '0.00100000' })).toBe(`bitcoin:${btc}?amount=0.001`);
    expect(paymentUri({ ...o, amount: '21' })).toBe(`bitcoin:${btc}?amount=21`);
    expect(paymentUri(o)).toBe(`bitcoin:${btc}`);
    expect(paymentUri({ ...o, format: 'litecoin', scheme: 'litecoin', amount: '1.5' })).toBe(`litecoin:${btc}?amount=1.5`);
    expect(paymentUri({ ...o, format: 'dogecoin', scheme: 'dogecoin', amount: '100' })).toBe(`dogecoin:${btc}?amount=100`);
    expect(paymentUri({ ...o, native: false, contract: 'x' })).toBeNull();
  });

  it('EIP-681 for evm, with exact integer base units', () => {
    const o = { format: 'evm', scheme: 'ethereum', address: eth, native: true, chainId: 1 } as const;
    expect(paymentUri({ ...o, decimals: 18, amount: '1.5' })).toBe(`ethereum:${eth}@1?value=1500000000000000000`);
    expect(paymentUri({ ...o, decimals: 18, amount: '0.000000000000000001' })).toBe(`ethereum:${eth}@1?value=1`);
    expect(paymentUri({ ...o, decimals: 18, amount: '123456789.123456789123456789' })).toBe(
      `ethereum:${eth}@1?value=123456789123456789123456789`,
    );
    expect(paymentUri({ ...o, decimals: 18 })).toBe(`ethereum:${eth}@1`);
    expect(paymentUri({ ...o, decimals: 18, chainId: undefined, amount: '2' })).toBe(`ethereum:${eth}?value=2000000000000000000`);

    const usdt = '0xdAC17F958D2ee523a2206206994597C13D831ec7';
    const token = { ...o, native: false, contract: usdt, decimals: 6, chainId: 137 };
    expect(paymentUri({ ...token, amount: '10.28' })).toBe(`ethereum:${usdt}@137/transfer?address=${eth}&uint256=10280000`);
    expect(paymentUri({ ...token, amount: '0.3' })).toBe(`ethereum:${usdt}@137/transfer?address=${eth}&uint256=300000`);
    expect(paymentUri(token)).toBe(`ethereum:${usdt}@137/transfer?address=${eth}`);
    expect(paymentUri({ ...token, contract: undefined })).toBeNull();
  });

  it('Solana Pay', () => {
    const o = { format: 'solana', scheme: 'solana', address: sol, native: true, decimals: 9 } as const;
    expect(paymentUri({ ...o, amount: '0.01' })).toBe(`solana:${sol}?amount=0.01`);
    expect(paymentUri(o)).toBe(`solana:${sol}`);
    const mint = 'EPjFWdd5AufqSSqeM2qFLdkdsQn7y3WR1jQoNtaA5CTs';
    expect(paymentUri({ ...o, native: false, contract: mint, decimals: 6, amount: '25.50' })).toBe(
      `solana:${sol}?amount=25.5&spl-token=${mint}`,
    );
  });

  it('ton://transfer with nanotons / jetton base units', () => {
    const o = { format: 'ton', scheme: 'ton', address: ton, native: true, decimals: 9 } as const;
    expect(paymentUri({ ...o, amount: '1.5' })).toBe(`ton://transfer/${ton}?amount=1500000000`);
    expect(paymentUri(o)).toBe(`ton://transfer/${ton}`);
    const jetton = 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs';
    expect(paymentUri({ ...o, native: false, contract: jetton, decimals: 6, amount: '12.345' })).toBe(
      `ton://transfer/${ton}?jetton=${jetton}&amount=12345000`,
    );
    // The standard-base64 form would put '/' and '+' into the URI; they are percent-encoded.
    expect(paymentUri({ ...o, address: 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id/sDs' })).toBe(
      'ton://transfer/EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id%2FsDs',
    );
  });

  it('tron', () => {
    const o = { format: 'tron', scheme: 'tron', address: tron, native: true, decimals: 6 } as const;
    expect(paymentUri({ ...o, amount: '100' })).toBe(`tron:${tron}?amount=100`);
    const usdt = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
    expect(paymentUri({ ...o, native: false, contract: usdt, amount: '9.99' })).toBe(
      `tron:${tron}?amount=9.99&token=${usdt}`,
    );
  });

  it('refuses amounts it cannot represent exactly', () => {
    const o = { format: 'bitcoin', scheme: 'bitcoin', address: btc, decimals: 8, native: true } as const;
    expect(() => paymentUri({ ...o, amount: '0.000000001' })).toThrow(RangeError);
    expect(() => paymentUri({ ...o, amount: '-1' })).toThrow(RangeError);
    expect(() => paymentUri({ ...o, amount: '1e-3' })).toThrow();
    expect(() => paymentUri({ ...o, amount: 'abc' })).toThrow();
  });
});

describe('qrContent', () => {
  const base = { decimals: 8, native: true, amount: '0.5' };
  const btc = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu';

  it('encodes a BIP-21 URI with amount for bitcoin-family coins', () => {
    const o: PaymentUriOptions = { ...base, format: 'bitcoin', scheme: 'bitcoin', address: btc };
    expect(qrContent(o)).toBe(`bitcoin:${btc}?amount=0.5`);
    expect(qrContent({ ...o, amount: undefined })).toBe(btc);
    expect(qrContent({ ...o, format: 'dogecoin', scheme: 'dogecoin', address: 'DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC' })).toBe(
      'dogecoin:DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC?amount=0.5',
    );
  });

  it('encodes the plain address for other coins and every token', () => {
    const eth = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
    expect(qrContent({ ...base, format: 'evm', scheme: 'ethereum', address: eth, decimals: 18, chainId: 1 })).toBe(eth);
    expect(
      qrContent({ ...base, format: 'evm', scheme: 'ethereum', address: eth, native: false, contract: '0xdAC17F958D2ee523a2206206994597C13D831ec7', decimals: 6 }),
    ).toBe(eth);
    const sol = 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk';
    expect(qrContent({ ...base, format: 'solana', scheme: 'solana', address: sol, decimals: 9 })).toBe(sol);
    expect(qrContent({ ...base, format: 'tron', scheme: 'tron', address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', decimals: 6 })).toBe(
      'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
    );
  });
});
