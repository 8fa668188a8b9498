// Watch-only deposit addresses: addresses derived from an account's PUBLIC key alone must equal
// the ones another library derives from the PRIVATE seed (@scure/bip32 from the mnemonic's seed,
// encoded by @scure/btc-signer), for each chain and address type; BIP-44/49/84 and SLIP-0132
// vectors; descriptors and their BIP-380 checksum; and every refusal, with its reason code and a
// message that never repeats the input.
import { describe, expect, it } from 'vitest';
import { mnemonicToSeedSync } from '@scure/bip39';
import { HDKey } from '@scure/bip32';
import { p2pkh, p2sh, p2wpkh } from '@scure/btc-signer';
import { base58check } from '../../../src/chain/address/base58.ts';
import { chainParams, type BitcoinChain, type BitcoinCoin, type ChainParams } from '../../../src/chain/bitcoin/params.ts';
import {
  descriptorChecksum,
  deriveWatchAddress,
  deriveWatchAddresses,
  parseWatchOnly,
  WatchOnlyError,
  type WatchAddressType,
  type WatchOnlyReason,
} from '../../../src/chain/bitcoin/watch-only.ts';

const SEED = mnemonicToSeedSync('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about');

// SLIP-0132 version bytes, written out again here so the test does not trust the module's table.
const VERSIONS = {
  xpub: { public: 0x0488b21e, private: 0x0488ade4 },
  ypub: { public: 0x049d7cb2, private: 0x049d7878 },
  zpub: { public: 0x04b24746, private: 0x04b2430c },
  Zpub: { public: 0x02aa7ed3, private: 0x02aa7a99 },
  tpub: { public: 0x043587cf, private: 0x04358394 },
  upub: { public: 0x044a5262, private: 0x044a4e28 },
  vpub: { public: 0x045f1cf6, private: 0x045f18bc },
  Ltub: { public: 0x019da462, private: 0x019d9cfe },
  Mtub: { public: 0x01b26ef6, private: 0x01b26792 },
  ttub: { public: 0x0436f6e1, private: 0x0436ef7d },
  dgub: { public: 0x02facafd, private: 0x02fac398 },
} as const;
type Prefix = keyof typeof VERSIONS;

/** The account key at `path` serialised with `prefix`'s version bytes, public or private. */
function accountKey(prefix: Prefix, path: string, priv = false): string {
  const node = HDKey.fromMasterSeed(SEED, VERSIONS[prefix]).derive(path);
  return priv ? node.privateExtendedKey : node.publicExtendedKey;
}

/** The deposit address at `path/0/i` derived from the PRIVATE seed by the other library. */
function fromSeed(params: ChainParams, type: WatchAddressType, path: string, i: number): string {
  const pub = HDKey.fromMasterSeed(SEED).derive(`${path}/0/${i}`).publicKey!;
  const p = type === 'p2pkh' ? p2pkh(pub, params.net) : type === 'p2wpkh' ? p2wpkh(pub, params.net) : p2sh(p2wpkh(pub, params.net), params.net);
  return p.address!;
}

const P = (coin: BitcoinCoin, chain: BitcoinChain = 'main') => chainParams(coin, chain);

describe('extended public keys', () => {
  it('BIP-84: the zpub gives the BIP-84 receiving addresses', () => {
    const zpub = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
    const m = parseWatchOnly(P('bitcoin'), zpub);
    expect(m).toMatchObject({ kind: 'extended-key', addressType: 'p2wpkh', key: accountKey('xpub', "m/84'/0'/0'") });
    expect(m.descriptor).toMatch(/^wpkh\(xpub[1-9A-HJ-NP-Za-km-z]{107}\/0\/\*\)#[a-z0-9]{8}$/);
    expect(deriveWatchAddress(m, 0)).toEqual({
      address: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
      script: '0014c0cebcd6c3d3ca8c75dc5ec62ebe55330ef910e2',
      path: '0/0',
    });
    expect(deriveWatchAddress(m, 1).address).toBe('bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g');
    expect(zpub).toBe(accountKey('zpub', "m/84'/0'/0'"));
  });

  it('SLIP-0132 vectors: BIP-44 xpub (P2PKH) and BIP-49 ypub (P2WPKH in P2SH)', () => {
    const xpub = 'xpub6BosfCnifzxcFwrSzQiqu2DBVTshkCXacvNsWGYJVVhhawA7d4R5WSWGFNbi8Aw6ZRc1brxMyWMzG3DSSSSoekkudhUd9yLb6qx39T9nMdj';
    const ypub = 'ypub6Ww3ibxVfGzLrAH1PNcjyAWenMTbbAosGNB6VvmSEgytSER9azLDWCxoJwW7Ke7icmizBMXrzBx9979FfaHxHcrArf3zbeJJJUZPf663zsP';
    const x = parseWatchOnly(P('bitcoin'), xpub);
    expect(x.addressType).toBe('p2pkh');
    expect(deriveWatchAddress(x, 0).address).toBe('1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabA');
    const y = parseWatchOnly(P('bitcoin'), ypub);
    expect(y.addressType).toBe('p2sh-p2wpkh');
    expect(y.descriptor).toMatch(/^sh\(wpkh\(xpub/);
    expect(deriveWatchAddress(y, 0).address).toBe('37VucYSaXLCAsxYyAPfbSi9eh4iEcbShgf');
  });

  // [network, key prefix, account path, address type]: each checked over several indexes against
  // the private derivation.
  const cases: Array<[BitcoinCoin, BitcoinChain, Prefix, string, WatchAddressType]> = [
    ['bitcoin', 'main', 'zpub', "m/84'/0'/0'", 'p2wpkh'],
    ['bitcoin', 'main', 'xpub', "m/44'/0'/0'", 'p2pkh'],
    ['bitcoin', 'main', 'ypub', "m/49'/0'/0'", 'p2sh-p2wpkh'],
    ['bitcoin', 'test', 'vpub', "m/84'/1'/0'", 'p2wpkh'],
    ['bitcoin', 'regtest', 'vpub', "m/84'/1'/0'", 'p2wpkh'],
    ['bitcoin', 'regtest', 'tpub', "m/44'/1'/0'", 'p2pkh'],
    ['bitcoin', 'regtest', 'upub', "m/49'/1'/0'", 'p2sh-p2wpkh'],
    ['litecoin', 'main', 'Ltub', "m/44'/2'/0'", 'p2pkh'],
    ['litecoin', 'main', 'Mtub', "m/49'/2'/0'", 'p2sh-p2wpkh'],
    ['litecoin', 'main', 'zpub', "m/84'/2'/0'", 'p2wpkh'],
    ['litecoin', 'main', 'xpub', "m/44'/2'/0'", 'p2pkh'],
    ['litecoin', 'test', 'ttub', "m/44'/1'/0'", 'p2pkh'],
    ['litecoin', 'regtest', 'vpub', "m/84'/1'/0'", 'p2wpkh'],
    ['litecoin', 'regtest', 'tpub', "m/44'/1'/0'", 'p2pkh'],
    ['dogecoin', 'main', 'dgub', "m/44'/3'/0'", 'p2pkh'],
    ['dogecoin', 'main', 'xpub', "m/44'/3'/0'", 'p2pkh'],
    ['dogecoin', 'test', 'tpub', "m/44'/1'/0'", 'p2pkh'],
    ['dogecoin', 'regtest', 'tpub', "m/44'/1'/0'", 'p2pkh'],
  ];
  it.each(cases)('%s %s: %s at %s gives the %s addresses the private seed gives', (coin, chain, prefix, path, type) => {
    const params = P(coin, chain);
    const key = accountKey(prefix, path);
    expect(key.startsWith(prefix)).toBe(true);
    const m = parseWatchOnly(params, key);
    expect(m.addressType).toBe(type);
    expect(m.key.slice(0, 4)).toBe(chain === 'main' ? 'xpub' : 'tpub');
    for (const i of [0, 1, 2, 19, 1000]) expect(deriveWatchAddress(m, i).address).toBe(fromSeed(params, type, path, i));
    // What is stored (the canonical descriptor) parses back to the same account.
    expect(parseWatchOnly(params, m.descriptor)).toEqual({ ...m, kind: 'descriptor' });
  });

  it('a batch of addresses equals the addresses one by one', () => {
    const m = parseWatchOnly(P('litecoin'), accountKey('Mtub', "m/49'/2'/0'"));
    const batch = deriveWatchAddresses(m, 5, 20);
    expect(batch).toHaveLength(20);
    batch.forEach((a, i) => expect(a).toEqual(deriveWatchAddress(m, 5 + i)));
    expect(deriveWatchAddresses(m, 0, 0)).toEqual([]);
    expect(() => deriveWatchAddresses(m, 0, 10_001)).toThrow(RangeError);
  });

  it('agrees with the gateway\'s own seed-derived deposit addresses', () => {
    expect(deriveWatchAddress(parseWatchOnly(P('litecoin', 'regtest'), accountKey('vpub', "m/84'/1'/0'")), 0).address).toBe(
      'rltc1q6rz28mcfaxtmd6v789l9rrlrusdprr9puuzgkg',
    );
    expect(deriveWatchAddress(parseWatchOnly(P('dogecoin'), accountKey('dgub', "m/44'/3'/0'")), 0).address).toBe('DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC');
    expect(deriveWatchAddress(parseWatchOnly(P('bitcoin', 'regtest'), accountKey('vpub', "m/84'/1'/0'")), 0).address).toBe(
      'bcrt1q6rz28mcfaxtmd6v789l9rrlrusdprr9pz3cppk',
    );
  });

  it('tolerates surrounding whitespace and is deterministic', () => {
    const key = accountKey('zpub', "m/84'/0'/0'");
    expect(parseWatchOnly(P('bitcoin'), ` ${key}\n`)).toEqual(parseWatchOnly(P('bitcoin'), key));
  });
});

describe('descriptors', () => {
  const tpub = accountKey('tpub', "m/84'/1'/0'");
  const xpub84 = accountKey('xpub', "m/84'/0'/0'");
  const fp = HDKey.fromMasterSeed(SEED).fingerprint.toString(16).padStart(8, '0');

  it('BIP-380 checksum: the specification\'s and Bitcoin Core\'s examples', () => {
    expect(descriptorChecksum('raw(deadbeef)')).toBe('89f8spxm');
    expect(descriptorChecksum('addr(mkmZxiEcEd8ZqjQWVZuC6so5dFMKEFpN2j)')).toBe('02wpgw69');
    expect(
      descriptorChecksum(
        "pkh([d34db33f/44'/0'/0']xpub6ERApfZwUNrhLCkDtcHTcxd75RbzS1ed54G1LkBUHQVHQKqhMkhgbmJbZRkrgZw4koxb5JaHWkY4ALHY2grBGRjaDMzQLcgJvLJuZZvRcEL/1/*)",
      ),
    ).toBe('ml40v0wf');
    expect(descriptorChecksum('raw(Ü)')).toBeNull();
  });

  it('wpkh with origin, /0/* and checksum gives the canonical form and the same addresses', () => {
    const body = `wpkh([${fp}/84'/1'/0']${tpub}/0/*)`;
    const m = parseWatchOnly(P('bitcoin', 'regtest'), `${body}#${descriptorChecksum(body)}`);
    expect(m).toMatchObject({ kind: 'descriptor', addressType: 'p2wpkh', key: tpub, origin: { fingerprint: fp, path: '84h/1h/0h' } });
    const canonical = `wpkh([${fp}/84h/1h/0h]${tpub}/0/*)`;
    expect(m.descriptor).toBe(`${canonical}#${descriptorChecksum(canonical)}`);
    expect(deriveWatchAddress(m, 0)).toEqual({ address: 'bcrt1q6rz28mcfaxtmd6v789l9rrlrusdprr9pz3cppk', script: '0014d0c4a3ef09e997b6e99e397e518fe3e41a118ca1', path: "m/84'/1'/0'/0/0" });
    // The stored canonical form parses back to the same material.
    expect(parseWatchOnly(P('bitcoin', 'regtest'), m.descriptor)).toEqual(m);
  });

  it('without origin, without /0/*, without checksum', () => {
    const params = P('bitcoin');
    const plain = parseWatchOnly(params, `wpkh(${xpub84})`);
    expect(plain.kind).toBe('descriptor');
    expect(plain.origin).toBeUndefined();
    expect(plain.descriptor.startsWith(`wpkh(${xpub84}/0/*)#`)).toBe(true);
    expect(parseWatchOnly(params, `wpkh(${xpub84}/0/*)`).descriptor).toBe(plain.descriptor);
    // The same account given as a zpub normalises to the same descriptor.
    expect(parseWatchOnly(params, accountKey('zpub', "m/84'/0'/0'")).descriptor).toBe(plain.descriptor);
    expect(deriveWatchAddress(plain, 1).address).toBe('bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g');
  });

  it('pkh and sh(wpkh) descriptors, Litecoin and Dogecoin', () => {
    const ltc = parseWatchOnly(P('litecoin'), `sh(wpkh([${fp}/49h/2h/0h]${accountKey('xpub', "m/49'/2'/0'")}/0/*))`);
    expect(ltc.addressType).toBe('p2sh-p2wpkh');
    expect(deriveWatchAddress(ltc, 3).address).toBe(fromSeed(P('litecoin'), 'p2sh-p2wpkh', "m/49'/2'/0'", 3));
    expect(deriveWatchAddress(ltc, 3).address.startsWith('M')).toBe(true);
    const doge = parseWatchOnly(P('dogecoin'), `pkh(${accountKey('dgub', "m/44'/3'/0'")}/0/*)`);
    expect(doge.key).toBe(accountKey('xpub', "m/44'/3'/0'"));
    expect(deriveWatchAddress(doge, 0).address).toBe('DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC');
  });
});

describe('refusals', () => {
  const btc = P('bitcoin');
  const reg = P('bitcoin', 'regtest');
  const fail = (params: ChainParams, input: string, reason: WatchOnlyReason, secret = input): WatchOnlyError => {
    let caught: unknown;
    try {
      parseWatchOnly(params, input);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(WatchOnlyError);
    const err = caught as WatchOnlyError;
    expect(err.reason).toBe(reason);
    expect(err.message.length).toBeGreaterThan(10);
    // Neither the input nor any long piece of it appears in the message.
    for (const run of secret.match(/[1-9A-HJ-NP-Za-km-z]{12,}/g) ?? []) expect(err.message).not.toContain(run.slice(4, 16));
    return err;
  };
  const withSum = (body: string) => `${body}#${descriptorChecksum(body)}`;

  it('extended private keys of every form, alone or in a descriptor', () => {
    for (const [prefix, path] of [['xpub', "m/44'/0'/0'"], ['zpub', "m/84'/0'/0'"], ['ypub', "m/49'/0'/0'"]] as const) {
      const prv = accountKey(prefix, path, true);
      expect(fail(btc, prv, 'private_key').message).toMatch(/PRIVATE key.*not stored/);
      fail(btc, withSum(`wpkh(${prv}/0/*)`), 'private_key', prv);
      fail(btc, `wpkh(${prv}/0/*)#qqqqqqqq`, 'private_key', prv);
    }
    for (const [prefix, params] of [['tpub', reg], ['vpub', reg], ['Ltub', P('litecoin')], ['Mtub', P('litecoin')], ['dgub', P('dogecoin')]] as const) {
      const prv = accountKey(prefix, "m/44'/1'/0'", true);
      fail(params, prv, 'private_key');
    }
    // Even with its checksum broken, an xprv is named as one.
    const prv = accountKey('xpub', "m/44'/0'/0'", true);
    fail(btc, `${prv.slice(0, -1)}${prv.endsWith('a') ? 'b' : 'a'}`, 'private_key');
  });

  it('WIF keys and seed phrases', () => {
    const wif = (version: number) => base58check.encode(Uint8Array.of(version, ...new Uint8Array(32).fill(7), 1));
    fail(btc, wif(0x80), 'private_key');
    fail(reg, wif(0xef), 'private_key');
    fail(P('litecoin'), wif(0xb0), 'private_key');
    fail(P('dogecoin'), wif(0x9e), 'private_key');
    // Uncompressed form: 32 bytes without the flag.
    fail(btc, base58check.encode(Uint8Array.of(0x80, ...new Uint8Array(32).fill(7))), 'private_key');
    fail(btc, withSum(`wpkh(${wif(0x80)})`), 'private_key', wif(0x80));
    fail(btc, 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about', 'private_key');
  });

  it('keys of another network', () => {
    expect(fail(reg, accountKey('xpub', "m/84'/0'/0'"), 'wrong_network').message).toMatch(/mainnet.*not Bitcoin regtest/);
    fail(reg, accountKey('zpub', "m/84'/0'/0'"), 'wrong_network');
    expect(fail(btc, accountKey('Ltub', "m/44'/2'/0'"), 'wrong_network').message).toMatch(/Ltub key is for Litecoin mainnet, not Bitcoin mainnet/);
    fail(btc, accountKey('tpub', "m/84'/1'/0'"), 'wrong_network');
    fail(P('litecoin', 'regtest'), accountKey('Mtub', "m/49'/2'/0'"), 'wrong_network');
    fail(P('dogecoin'), accountKey('zpub', "m/84'/3'/0'"), 'wrong_network');
    fail(btc, accountKey('dgub', "m/44'/3'/0'"), 'wrong_network');
    fail(btc, withSum(`wpkh(${accountKey('tpub', "m/84'/1'/0'")}/0/*)`), 'wrong_network');
  });

  it('keys that are not account-level', () => {
    expect(fail(btc, accountKey('zpub', "m/84'/0'"), 'wrong_depth').message).toMatch(/account-level key \(depth 3.*depth 2/);
    fail(btc, accountKey('zpub', "m/84'/0'/0'/0"), 'wrong_depth');
    fail(btc, accountKey('xpub', 'm'), 'wrong_depth');
    fail(btc, `wpkh(${accountKey('xpub', "m/84'/0'/0'/0")}/0/*)`, 'wrong_depth');
  });

  it('malformed keys and bad base58 checksums', () => {
    const zpub = accountKey('zpub', "m/84'/0'/0'");
    const flipped = `${zpub.slice(0, 60)}${zpub[60] === 'a' ? 'b' : 'a'}${zpub.slice(61)}`;
    expect(fail(btc, flipped, 'bad_key_checksum').message).toMatch(/checksum/);
    fail(btc, zpub.slice(0, 80), 'malformed_key');
    fail(btc, `${zpub.slice(0, 30)}0${zpub.slice(31)}`, 'malformed_key');
    fail(btc, 'hello', 'malformed_key');
    // Right length and checksum, wrong payload length.
    fail(btc, base58check.encode(new Uint8Array(77).fill(4)), 'malformed_key');
    // A version nobody registered.
    fail(btc, base58check.encode(Uint8Array.of(0x01, 0x02, 0x03, 0x04, 3, ...new Uint8Array(73).fill(2))), 'unsupported_key_type');
    // A key that is not a point on the curve.
    const bytes = base58check.decode(zpub);
    bytes.fill(0xff, 46, 78);
    bytes[45] = 0x02;
    fail(btc, base58check.encode(bytes), 'malformed_key');
    // Multisig SLIP-0132 forms.
    fail(btc, accountKey('Zpub', "m/48'/0'/0'"), 'unsupported_key_type');
    fail(btc, withSum('wpkh(0330d54fd0dd420a6e5f8d3624f5f3482cae350f79d5f0753bf5beef9c2d91af3c)'), 'not_extended_key');
  });

  it('descriptors with an unsupported script, key path or origin', () => {
    const xpub = accountKey('xpub', "m/84'/0'/0'");
    expect(fail(btc, withSum(`tr(${xpub}/0/*)`), 'unsupported_script', xpub).message).toMatch(/tr\(\.\.\.\)/);
    fail(btc, withSum(`wsh(multi(1,${xpub}/0/*))`), 'unsupported_script', xpub);
    fail(btc, `wpkh(${xpub}/0/*,${xpub}/1/*)`, 'unsupported_script', xpub);
    fail(P('dogecoin'), withSum(`wpkh(${accountKey('xpub', "m/84'/3'/0'")}/0/*)`), 'unsupported_script');
    fail(btc, withSum(`pkh(${accountKey('zpub', "m/84'/0'/0'")}/0/*)`), 'unsupported_script');
    expect(fail(btc, withSum(`wpkh(${xpub}/<0;1>/*)`), 'multipath', xpub).message).toMatch(/<0;1>/);
    fail(btc, withSum(`wpkh(${xpub}/1/*)`), 'unsupported_path', xpub);
    fail(btc, withSum(`wpkh(${xpub}/0/*h)`), 'unsupported_path', xpub);
    fail(btc, withSum(`wpkh(${xpub}/0/0)`), 'unsupported_path', xpub);
    fail(btc, withSum(`wpkh([d34db33f/84h/0h]${xpub}/0/*)`), 'origin_mismatch', xpub);
    // The key is m/84'/0'/0': an origin ending in 1h or in an unhardened 0 is another key's.
    fail(btc, withSum(`wpkh([d34db33f/84h/0h/1h]${xpub}/0/*)`), 'origin_mismatch', xpub);
    fail(btc, withSum(`wpkh([d34db33f/84h/0h/0]${xpub}/0/*)`), 'origin_mismatch', xpub);
    // A key expression without its script.
    expect(fail(btc, `[d34db33f/84h/0h/0h]${xpub}/0/*`, 'malformed_descriptor', xpub).message).toMatch(/inside a descriptor/);
    fail(btc, `${xpub}/0/*`, 'malformed_descriptor', xpub);
    fail(btc, withSum(`wpkh([d34db33/84h/0h/0h]${xpub}/0/*)`), 'malformed_descriptor', xpub);
    fail(btc, withSum(`wpkh([d34db33f/84x/0h/0h]${xpub}/0/*)`), 'malformed_descriptor', xpub);
  });

  it('descriptors with a bad checksum', () => {
    const xpub = accountKey('xpub', "m/84'/0'/0'");
    const good = withSum(`wpkh(${xpub}/0/*)`);
    const sum = good.slice(-8);
    const other = `${sum.slice(0, 7)}${sum.endsWith('q') ? 'p' : 'q'}`;
    expect(fail(btc, `${good.slice(0, -8)}${other}`, 'bad_descriptor_checksum', xpub).message).toMatch(/checksum does not match/);
    fail(btc, `${good}x`, 'bad_descriptor_checksum', xpub);
    fail(btc, `${good.slice(0, -1)}`, 'bad_descriptor_checksum', xpub);
    fail(btc, `wpkh(${xpub}/0/*)#`, 'bad_descriptor_checksum', xpub);
    fail(btc, 'wpkh(Ü)', 'malformed_descriptor');
    // The checksum covers the whole body: the same checksum on a changed body fails.
    fail(btc, `wpkh(${accountKey('xpub', "m/84'/0'/1'")}/0/*)#${sum}`, 'bad_descriptor_checksum');
  });

  it('empty and over-long input, with bounded work', () => {
    fail(btc, '', 'empty');
    fail(btc, '   ', 'empty');
    const long = `wpkh(${accountKey('xpub', "m/84'/0'/0'")}/0/*)`.padEnd(100_000, ' ');
    const started = Date.now();
    fail(btc, long, 'too_long');
    expect(Date.now() - started).toBeLessThan(1000);
    fail(btc, 'x'.repeat(401), 'too_long');
  });

  it('derivation indexes are non-hardened integers', () => {
    const m = parseWatchOnly(btc, accountKey('zpub', "m/84'/0'/0'"));
    expect(() => deriveWatchAddress(m, -1)).toThrow(RangeError);
    expect(() => deriveWatchAddress(m, 2 ** 31)).toThrow(RangeError);
    expect(() => deriveWatchAddress(m, 1.5)).toThrow(RangeError);
  });
});
