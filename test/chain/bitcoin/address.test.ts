// Keys and addresses of the Bitcoin family per chain: BIP-84 and BIP-44 vectors, addresses a
// node derived from the same key (recorded from litecoind's `deriveaddresses`), and payee
// validation per chain and type with a message naming the chain an address really belongs to.
import { describe, expect, it } from 'vitest';
import { mnemonicToSeedSync } from '@scure/bip39';
import { bech32, bech32m } from '@scure/base';
import { base58check } from '../../../src/chain/address/base58.ts';
import { deriveAddress, isValidAddress } from '../../helpers/addresses.ts';
import { AddressError, decodePayee, isValidPayee } from '../../../src/chain/bitcoin/address.ts';
import { BitcoinKeys } from '../../../src/chain/bitcoin/keys.ts';
import { chainParams, coinTypeFor } from '../../../src/chain/bitcoin/params.ts';

const SEED = mnemonicToSeedSync('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about');
const keys = (coin: 'bitcoin' | 'litecoin' | 'dogecoin', chain: 'main' | 'test' | 'regtest', registryCoin: number) =>
  new BitcoinKeys(SEED, chainParams(coin, chain), coinTypeFor(registryCoin, chain));

describe('deposit and change keys', () => {
  it('BTC: BIP-84 test vectors, main (m/84\'/0\'/0\') and testnet (m/84\'/1\'/0\')', () => {
    const main = keys('bitcoin', 'main', 0);
    expect(main.deposit(0)).toMatchObject({ address: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', path: "m/84'/0'/0'/0/0" });
    expect(main.deposit(1).address).toBe('bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g');
    expect(main.change(0)).toMatchObject({ address: 'bc1q8c6fshw2dlwun7ekn9qwf37cu2rn755upcp6el', path: "m/84'/0'/0'/1/0" });
    // BIP-84's testnet vector: coin type 1 off the main chain.
    expect(keys('bitcoin', 'test', 0).deposit(0)).toMatchObject({ address: 'tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl', path: "m/84'/1'/0'/0/0" });
    expect(keys('bitcoin', 'regtest', 0).deposit(0).address).toBe('bcrt1q6rz28mcfaxtmd6v789l9rrlrusdprr9pz3cppk');
  });

  it('LTC: native SegWit on ltc1 / tltc1 / rltc1, as litecoind derives from the same key', () => {
    expect(keys('litecoin', 'main', 2).deposit(0)).toMatchObject({ address: 'ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh', path: "m/84'/2'/0'/0/0" });
    expect(keys('litecoin', 'test', 2).deposit(0).address).toBe('tltc1q6rz28mcfaxtmd6v789l9rrlrusdprr9pesrjxk');
    // litecoind 0.21 `deriveaddresses "wpkh(tprv.../84'/1'/0'/0/*)" [0,1]` and ".../1/*" [0,0]:
    const reg = keys('litecoin', 'regtest', 2);
    expect([reg.deposit(0).address, reg.deposit(1).address]).toEqual([
      'rltc1q6rz28mcfaxtmd6v789l9rrlrusdprr9puuzgkg',
      'rltc1qd7spv5q28348xl4myc8zmh983w5jx32cwn4h9f',
    ]);
    expect(reg.change(0).address).toBe('rltc1q9u62588spffmq4dzjxsr5l297znf3z6jg9f78s');
    expect(reg.deposit(0).script).toBe('0014d0c4a3ef09e997b6e99e397e518fe3e41a118ca1');
  });

  it('DOGE: P2PKH at m/44\'/3\'/0\'/0/i (D...) and m/44\'/1\'/0\'/0/i off the main chain', () => {
    const main = keys('dogecoin', 'main', 3);
    expect(main.deposit(0)).toMatchObject({ address: 'DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC', path: "m/44'/3'/0'/0/0" });
    expect(main.deposit(0).script).toBe('76a9144a483568665dcdfa68dd58a1f62893448a64333988ac');
    expect(keys('dogecoin', 'test', 3).deposit(0).address).toBe('nZVmfmUtKPmskB9Ds4P9GUJy9eYFqPKHqH');
    // litecoind `deriveaddresses "pkh(tprv.../44'/1'/0'/0/*)" [0,1]`: the same key hashes; Dogecoin's
    // regtest uses Bitcoin's testnet version bytes, so the node's answer is the address itself.
    const reg = keys('dogecoin', 'regtest', 3);
    expect([reg.deposit(0).address, reg.deposit(1).address]).toEqual(['mkpZhYtJu2r87Js3pDiWJDmPte2NRZ8bJV', 'mzpbWabUQm1w8ijuJnAof5eiSTep27deVH']);
  });

  it('the allocator derives the same addresses for a configured chain', () => {
    expect(deriveAddress('litecoin', SEED, 1, 0, 'regtest')).toEqual({ address: 'rltc1q6rz28mcfaxtmd6v789l9rrlrusdprr9puuzgkg', path: "m/84'/1'/0'/0/0" });
    expect(deriveAddress('dogecoin', SEED, 3, 0)).toEqual({ address: 'DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC', path: "m/44'/3'/0'/0/0" });
  });

  it('signs only with keys of its own paths', () => {
    const k = keys('litecoin', 'regtest', 2);
    expect(k.privateKey("m/84'/1'/0'/1/7")).toHaveLength(32);
    expect(() => k.privateKey("m/84'/2'/0'/0/0")).toThrow(/Not a key path/);
    expect(() => k.privateKey("m/44'/1'/0'/0/0")).toThrow(/Not a key path/);
  });
});

describe('payee addresses', () => {
  const p = (coin: 'bitcoin' | 'litecoin' | 'dogecoin', chain: 'main' | 'test' | 'regtest' = 'main') => chainParams(coin, chain);
  const witness = (hrp: string, version: number, len: number) =>
    (version === 0 ? bech32 : bech32m).encode(hrp, [version, ...bech32.toWords(new Uint8Array(len).fill(3))]);
  const b58 = (version: number) => base58check.encode(Uint8Array.of(version, ...new Uint8Array(20).fill(9)));

  it('each chain takes its own P2PKH, P2SH, P2WPKH, P2WSH and P2TR, and says which type', () => {
    const cases: Array<[ReturnType<typeof p>, string, string]> = [
      [p('bitcoin'), '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', 'pkh'],
      [p('bitcoin'), '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', 'sh'],
      [p('bitcoin'), 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', 'wpkh'],
      [p('bitcoin'), 'bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3', 'wsh'],
      [p('bitcoin'), 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0', 'tr'],
      [p('bitcoin', 'test'), b58(0x6f), 'pkh'],
      [p('bitcoin', 'regtest'), witness('bcrt', 0, 20), 'wpkh'],
      [p('litecoin'), b58(0x30), 'pkh'],
      [p('litecoin'), b58(0x32), 'sh'],
      [p('litecoin'), b58(0x05), 'sh'],
      [p('litecoin'), witness('ltc', 0, 32), 'wsh'],
      [p('litecoin'), witness('ltc', 1, 32), 'tr'],
      [p('litecoin', 'regtest'), witness('rltc', 0, 20), 'wpkh'],
      [p('litecoin', 'regtest'), b58(0x3a), 'sh'],
      [p('litecoin', 'test'), witness('tltc', 0, 20), 'wpkh'],
      [p('dogecoin'), 'DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC', 'pkh'],
      [p('dogecoin'), b58(0x16), 'sh'],
      [p('dogecoin', 'test'), 'nZVmfmUtKPmskB9Ds4P9GUJy9eYFqPKHqH', 'pkh'],
    ];
    for (const [params, address, type] of cases) expect(decodePayee(params, address).type, address).toBe(type);
  });

  it('another chain\'s address is refused with a message naming that chain', () => {
    const refused: Array<[ReturnType<typeof p>, string, RegExp]> = [
      [p('litecoin'), 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', /Bitcoin mainnet address, not Litecoin mainnet/],
      [p('litecoin'), witness('rltc', 0, 20), /Litecoin regtest address, not Litecoin mainnet/],
      [p('litecoin', 'regtest'), 'ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh', /Litecoin mainnet address, not Litecoin regtest/],
      [p('bitcoin'), 'tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl', /Bitcoin testnet address, not Bitcoin mainnet/],
      [p('bitcoin'), 'DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC', /Dogecoin mainnet address/],
      [p('dogecoin'), 'ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh', /Litecoin mainnet address, not Dogecoin mainnet/],
      [p('dogecoin'), '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', /Bitcoin mainnet address/],
    ];
    for (const [params, address, message] of refused) {
      expect(() => decodePayee(params, address), address).toThrow(AddressError);
      expect(() => decodePayee(params, address), address).toThrow(message);
    }
  });

  it('refuses what the chain does not have, and anything malformed', () => {
    expect(isValidPayee(p('dogecoin'), witness('doge', 0, 20))).toBe(false); // no SegWit on Dogecoin
    expect(isValidPayee(p('bitcoin'), witness('bc', 2, 16))).toBe(false); // unknown witness version
    expect(isValidPayee(p('bitcoin'), witness('bc', 0, 21))).toBe(false);
    expect(isValidPayee(p('bitcoin'), 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh')).toBe(false); // v0 in bech32m
    expect(isValidPayee(p('bitcoin'), ' 1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa')).toBe(false);
    expect(isValidPayee(p('bitcoin'), '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb')).toBe(false);
    expect(isValidPayee(p('bitcoin'), 'x'.repeat(5000))).toBe(false);
    expect(() => decodePayee(p('bitcoin'), 'hello')).toThrow(/Not a Bitcoin mainnet address/);
  });

  it('the API validation follows the configured chain', () => {
    expect(isValidAddress('litecoin', 'rltc1q6rz28mcfaxtmd6v789l9rrlrusdprr9puuzgkg', 'regtest')).toBe(true);
    expect(isValidAddress('litecoin', 'rltc1q6rz28mcfaxtmd6v789l9rrlrusdprr9puuzgkg')).toBe(false);
    expect(isValidAddress('litecoin', 'ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh', 'regtest')).toBe(false);
  });
});
