// Watch-only deposit addresses of the Bitcoin family: the merchant gives an account-level extended
// PUBLIC key (xpub, zpub, Ltub, dgub, ...) or a single-key output descriptor, and deposits go to
// its receiving chain /0/i, so the gateway never holds a key that can spend them. Pure: parsing,
// refusals and derivation only; storing the normalised descriptor is the caller's.
import { HDKey } from '@scure/bip32';
import { p2pkh, p2sh, p2wpkh } from '@scure/btc-signer';
import { bytesToHex } from '@noble/hashes/utils.js';
import { base58check } from '../address/base58.ts';
import { secpChildPoint, type SecpNode } from '../address/hd.ts';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { normalizeZ } from '@noble/curves/abstract/curve.js';
import { chainLabel } from './address.ts';
import { parseDescriptorSyntax, verifyChecksum, withChecksum, WatchOnlyError, type DescriptorScript } from './descriptor.ts';
import { BITCOIN_CHAINS, chainParams, type BitcoinChain, type BitcoinCoin, type ChainParams } from './params.ts';

export { WatchOnlyError, descriptorChecksum, type WatchOnlyReason } from './descriptor.ts';

export type WatchAddressType = 'p2pkh' | 'p2wpkh' | 'p2sh-p2wpkh';

/** What to store for a merchant's watch-only account; `descriptor` alone is enough to parse it
 * back with `parseWatchOnly`. */
export interface WatchOnlyMaterial {
  params: ChainParams;
  /** How the merchant gave it. */
  kind: 'extended-key' | 'descriptor';
  addressType: WatchAddressType;
  /** The account key in the plain BIP-32 serialisation: xpub on main chains, tpub otherwise. */
  key: string;
  /** Key origin when a descriptor gave one: master fingerprint and path, e.g. 84h/0h/0h. */
  origin?: { fingerprint: string; path: string };
  /** Canonical descriptor of the receiving chain, with its BIP-380 checksum. */
  descriptor: string;
}

export interface WatchAddress {
  address: string;
  /** scriptPubKey, hex. */
  script: string;
  /** m/.../0/i when the origin is known, else 0/i below the account key. */
  path: string;
}

/** The longest input looked at: an origin, a key and the script around it fit well inside. */
export const MAX_WATCH_ONLY_LENGTH = 400;
const ACCOUNT_DEPTH = 3;
const HARDENED = 0x80000000;

// Extended key version bytes. SLIP-0132 ("Registered HD version bytes for BIP-0032", the
// satoshilabs/slips table): xpub 0488b21e / xprv 0488ade4, ypub 049d7cb2 / yprv 049d7878,
// zpub 04b24746 / zprv 04b2430c, Ypub 0295b43f / Yprv 0295b005, Zpub 02aa7ed3 / Zprv 02aa7a99,
// tpub 043587cf / tprv 04358394, upub 044a5262 / uprv 044a4e28, Upub 024289ef / Uprv 024285b5,
// vpub 045f1cf6 / vprv 045f18bc, Vpub 02575483 / Vprv 02575048, Ltub 019da462 / Ltpv 019d9cfe,
// Mtub 01b26ef6 / Mtpv 01b26792 (Litecoin P2WPKH in P2SH), ttub 0436f6e1 / ttpv 0436ef7d.
// Dogecoin's dgub 02facafd / dgpv 02fac398 are Dogecoin Core's mainnet EXT_PUBLIC/SECRET_KEY.
// Litecoin Core itself serialises with xpub/tpub, and wallets give Litecoin native SegWit keys as
// zpub/vpub, so those are accepted for Litecoin too.
interface Version {
  prefix: string;
  pub: number;
  prv: number;
  /** null: a multisig form, not supported. */
  type: WatchAddressType | null;
}

const V = {
  xpub: { prefix: 'xpub', pub: 0x0488b21e, prv: 0x0488ade4, type: 'p2pkh' },
  ypub: { prefix: 'ypub', pub: 0x049d7cb2, prv: 0x049d7878, type: 'p2sh-p2wpkh' },
  zpub: { prefix: 'zpub', pub: 0x04b24746, prv: 0x04b2430c, type: 'p2wpkh' },
  Ypub: { prefix: 'Ypub', pub: 0x0295b43f, prv: 0x0295b005, type: null },
  Zpub: { prefix: 'Zpub', pub: 0x02aa7ed3, prv: 0x02aa7a99, type: null },
  tpub: { prefix: 'tpub', pub: 0x043587cf, prv: 0x04358394, type: 'p2pkh' },
  upub: { prefix: 'upub', pub: 0x044a5262, prv: 0x044a4e28, type: 'p2sh-p2wpkh' },
  Upub: { prefix: 'Upub', pub: 0x024289ef, prv: 0x024285b5, type: null },
  vpub: { prefix: 'vpub', pub: 0x045f1cf6, prv: 0x045f18bc, type: 'p2wpkh' },
  Vpub: { prefix: 'Vpub', pub: 0x02575483, prv: 0x02575048, type: null },
  Ltub: { prefix: 'Ltub', pub: 0x019da462, prv: 0x019d9cfe, type: 'p2pkh' },
  Mtub: { prefix: 'Mtub', pub: 0x01b26ef6, prv: 0x01b26792, type: 'p2sh-p2wpkh' },
  ttub: { prefix: 'ttub', pub: 0x0436f6e1, prv: 0x0436ef7d, type: 'p2pkh' },
  dgub: { prefix: 'dgub', pub: 0x02facafd, prv: 0x02fac398, type: 'p2pkh' },
} satisfies Record<string, Version>;

const ALL: Version[] = Object.values(V);

/** The public versions each network takes. Testnet and regtest share Bitcoin's testnet bytes. */
const ACCEPTED: Record<BitcoinCoin, Record<'main' | 'test', Version[]>> = {
  bitcoin: { main: [V.xpub, V.ypub, V.zpub, V.Ypub, V.Zpub], test: [V.tpub, V.upub, V.vpub, V.Upub, V.Vpub] },
  litecoin: { main: [V.xpub, V.Ltub, V.Mtub, V.zpub], test: [V.tpub, V.ttub, V.upub, V.vpub] },
  dogecoin: { main: [V.dgub, V.xpub], test: [V.tpub] },
};

const side = (chain: BitcoinChain): 'main' | 'test' => (chain === 'main' ? 'main' : 'test');

function refuse(reason: ConstructorParameters<typeof WatchOnlyError>[0], message: string): never {
  throw new WatchOnlyError(reason, message);
}

/** The networks (by name) that take a public version, for saying where a key belongs. */
function homes(version: Version): string {
  const names: string[] = [];
  for (const coin of ['bitcoin', 'litecoin', 'dogecoin'] as const) {
    for (const s of ['main', 'test'] as const) {
      if (ACCEPTED[coin][s].includes(version)) names.push(`${coin[0]!.toUpperCase()}${coin.slice(1)} ${s === 'main' ? 'mainnet' : 'testnet/regtest'}`);
    }
  }
  return names.join(', ');
}

// A WIF private key: its version is one of the chains' WIF bytes, 32 bytes of key and, when
// compressed, a 0x01 flag. Any chain's WIF counts: a private key is refused whatever its network.
const WIF_VERSIONS = new Set(
  (['bitcoin', 'litecoin', 'dogecoin'] as const).flatMap((coin) => BITCOIN_CHAINS.map((chain) => chainParams(coin, chain).net.wif)),
);

function decodeBase58(text: string): Uint8Array | null {
  if (!/^[1-9A-HJ-NP-Za-km-z]+$/.test(text)) return null;
  try {
    return base58check.decode(text);
  } catch {
    return null;
  }
}

function isWif(payload: Uint8Array): boolean {
  return WIF_VERSIONS.has(payload[0]!) && (payload.length === 33 || (payload.length === 34 && payload[33] === 1));
}

const PRIVATE_MESSAGE =
  'This is a PRIVATE key, which can spend the funds; it was not stored. Give the account\'s extended PUBLIC key (xpub, zpub, tpub, ...) instead';

/** Refuses the input when any base58 run in it is a private key (extended or WIF) or it reads as a
 * seed phrase: said first, whatever else is wrong, since the merchant must learn it is exposed. */
function refusePrivate(text: string): void {
  if (/^\s*([a-z]+\s+){11,}[a-z]+\s*$/.test(text)) {
    refuse('private_key', 'This looks like a seed phrase, which can spend the funds; it was not stored. Give the account\'s extended PUBLIC key instead');
  }
  for (const run of text.match(/[1-9A-HJ-NP-Za-km-z]{50,}/g) ?? []) {
    const payload = decodeBase58(run);
    if (!payload) {
      // A private version prefix is recognisable even with a broken checksum.
      if (run.length >= 100 && /^(xprv|yprv|zprv|Yprv|Zprv|tprv|uprv|vprv|Uprv|Vprv|Ltpv|Mtpv|ttpv|dgpv|tgpv)/.test(run)) refuse('private_key', PRIVATE_MESSAGE);
      continue;
    }
    if (isWif(payload)) refuse('private_key', PRIVATE_MESSAGE);
    if (payload.length === 78) {
      const version = new DataView(payload.buffer, payload.byteOffset).getUint32(0);
      if (payload[45] === 0 || ALL.some((v) => v.prv === version)) refuse('private_key', PRIVATE_MESSAGE);
    }
  }
}

interface DecodedKey {
  version: Version;
  hd: HDKey;
}

/** Decodes an extended public key of `params`' network, refusing every other kind of key. */
function decodeKey(params: ChainParams, text: string): DecodedKey {
  const label = chainLabel(params);
  if (/^(0[23][0-9a-fA-F]{64}|04[0-9a-fA-F]{128})$/.test(text)) {
    refuse('not_extended_key', 'A single public key gives one address only: give the account\'s extended public key (xpub, zpub, tpub, ...)');
  }
  if (!/^[1-9A-HJ-NP-Za-km-z]{100,120}$/.test(text)) {
    refuse('malformed_key', 'Not an extended public key: it should be about 111 characters of base58, like xpub6…, zpub6… or tpubD…');
  }
  let payload: Uint8Array;
  try {
    payload = base58check.decode(text);
  } catch {
    refuse('bad_key_checksum', 'The extended public key\'s checksum does not match: a character was mistyped or lost in copying');
  }
  if (payload.length !== 78) refuse('malformed_key', 'Not an extended public key: its decoded length is wrong');
  const number = new DataView(payload.buffer, payload.byteOffset).getUint32(0);
  const version = ALL.find((v) => v.pub === number);
  if (!version) refuse('unsupported_key_type', 'The extended key\'s version (its first letters) is not one this gateway knows');
  if (version.type === null) {
    refuse('unsupported_key_type', `${version.prefix} keys are for multisig wallets, which are not supported: give a single-signature account key`);
  }
  if (!ACCEPTED[params.coin][side(params.chain)].includes(version)) {
    refuse('wrong_network', `This ${version.prefix} key is for ${homes(version)}, not ${label}`);
  }
  const depth = payload[4]!;
  if (depth !== ACCOUNT_DEPTH) {
    refuse(
      'wrong_depth',
      `The key must be an account-level key (depth 3: m/purpose'/coin'/account', as wallets export it); this one has depth ${depth}`,
    );
  }
  let hd: HDKey;
  try {
    hd = HDKey.fromExtendedKey(text, { public: version.pub, private: version.prv });
  } catch {
    refuse('malformed_key', 'The extended public key does not hold a valid secp256k1 point');
  }
  return { version, hd };
}

/** The key in the plain BIP-32 serialisation for storage: xpub on main chains, tpub otherwise. */
function standardKey(params: ChainParams, hd: HDKey): string {
  const v = params.chain === 'main' ? V.xpub : V.tpub;
  return new HDKey({
    versions: { public: v.pub, private: v.prv },
    depth: hd.depth,
    index: hd.index,
    parentFingerprint: hd.parentFingerprint,
    chainCode: hd.chainCode!,
    publicKey: hd.publicKey!,
  }).publicExtendedKey;
}

const SCRIPT_TYPE: Record<DescriptorScript, WatchAddressType> = { pkh: 'p2pkh', wpkh: 'p2wpkh', 'sh-wpkh': 'p2sh-p2wpkh' };

function canonicalDescriptor(type: WatchAddressType, key: string, origin?: WatchOnlyMaterial['origin']): string {
  const k = `${origin ? `[${origin.fingerprint}/${origin.path}]` : ''}${key}/0/*`;
  return withChecksum(type === 'p2pkh' ? `pkh(${k})` : type === 'p2wpkh' ? `wpkh(${k})` : `sh(wpkh(${k}))`);
}

/**
 * Parses a merchant's watch-only material for `params`' network: an account-level extended public
 * key (its version implies the address type) or a descriptor `wpkh(KEY)`, `sh(wpkh(KEY))` or
 * `pkh(KEY)`, KEY an extended public key with an optional `[fingerprint/path]` origin and an
 * optional `/0/*`, the whole with an optional `#checksum`. Throws WatchOnlyError otherwise.
 */
export function parseWatchOnly(params: ChainParams, input: string): WatchOnlyMaterial {
  if (typeof input !== 'string' || input.trim() === '') refuse('empty', 'No extended public key or descriptor was given');
  if (input.length > MAX_WATCH_ONLY_LENGTH) {
    refuse('too_long', `The input is longer than ${MAX_WATCH_ONLY_LENGTH} characters: give one extended public key or one single-key descriptor`);
  }
  const text = input.trim();
  refusePrivate(text);
  const label = chainLabel(params);

  if (!text.includes('(')) {
    if (/[[\]/#]/.test(text)) {
      refuse('malformed_descriptor', 'A key with an origin [...] or a path /0/* must be inside a descriptor: wpkh(KEY), sh(wpkh(KEY)) or pkh(KEY)');
    }
    const { version, hd } = decodeKey(params, text);
    const type = version.type!;
    if (type !== 'p2pkh' && !params.segwit) refuse('wrong_network', `This ${version.prefix} key is for SegWit addresses, which ${label} does not have`);
    const key = standardKey(params, hd);
    return { params, kind: 'extended-key', addressType: type, key, descriptor: canonicalDescriptor(type, key) };
  }

  const syntax = parseDescriptorSyntax(verifyChecksum(text));
  const type = SCRIPT_TYPE[syntax.script];
  if (type !== 'p2pkh' && !params.segwit) refuse('unsupported_script', `${label} has no SegWit: only pkh(KEY) descriptors are accepted`);
  const { version, hd } = decodeKey(params, syntax.key);
  // A SLIP-0132 segwit version inside a descriptor must agree with the descriptor's script.
  if (version.type !== 'p2pkh' && version.type !== type) {
    refuse('unsupported_script', `A ${version.prefix} key stands for ${version.type} addresses, but the descriptor asks for ${type}; use the plain xpub/tpub form in descriptors`);
  }
  let origin: WatchOnlyMaterial['origin'];
  if (syntax.origin) {
    if (syntax.origin.path.length !== hd.depth) {
      refuse('origin_mismatch', `The key origin has ${syntax.origin.path.length} path steps but the key has depth ${hd.depth}; an account key's origin is like [fingerprint/84h/0h/0h]`);
    }
    // The origin's last step is the step that made this key: they must agree.
    const last = syntax.origin.path[syntax.origin.path.length - 1]!;
    if (parseInt(last, 10) + (last.endsWith('h') ? HARDENED : 0) !== hd.index) {
      refuse('origin_mismatch', 'The key origin\'s last step is not the step this key was derived with: the origin belongs to another key');
    }
    origin = { fingerprint: syntax.origin.fingerprint, path: syntax.origin.path.join('/') };
  }
  const key = standardKey(params, hd);
  return { params, kind: 'descriptor', addressType: type, key, ...(origin ? { origin } : {}), descriptor: canonicalDescriptor(type, key, origin) };
}

// The receiving-chain node (/0) of each parsed material, so deriving many addresses decodes and
// derives the account key once.
const receiving = new WeakMap<WatchOnlyMaterial, SecpNode>();

function receivingNode(material: WatchOnlyMaterial): SecpNode {
  let node = receiving.get(material);
  if (!node) {
    const v = material.params.chain === 'main' ? V.xpub : V.tpub;
    const chain = HDKey.fromExtendedKey(material.key, { public: v.pub, private: v.prv }).deriveChild(0);
    node = { chainCode: chain.chainCode!, publicKey: chain.publicKey!, point: secp256k1.Point.fromBytes(chain.publicKey!) };
    receiving.set(material, node);
  }
  return node;
}

function encode(material: WatchOnlyMaterial, publicKey: Uint8Array, index: number): WatchAddress {
  const net = material.params.net;
  const p =
    material.addressType === 'p2pkh' ? p2pkh(publicKey, net) : material.addressType === 'p2wpkh' ? p2wpkh(publicKey, net) : p2sh(p2wpkh(publicKey, net), net);
  const path = material.origin ? `m/${material.origin.path.replaceAll('h', "'")}/0/${index}` : `0/${index}`;
  return { address: p.address!, script: bytesToHex(p.script), path };
}

/** The deposit address at receiving-chain index `index` (account/0/index) of the material, in its
 * network's encoding. */
export function deriveWatchAddress(material: WatchOnlyMaterial, index: number): WatchAddress {
  return encode(material, secpChildPoint(receivingNode(material), index).toBytes(true), index);
}

/** Deposit addresses `start` .. `start + count - 1`, their points made affine together (one field
 * inversion for the batch instead of one each). */
export function deriveWatchAddresses(material: WatchOnlyMaterial, start: number, count: number): WatchAddress[] {
  if (!Number.isSafeInteger(count) || count < 0 || count > 10_000) throw new RangeError(`Address count must be an integer in [0, 10000]: ${count}`);
  const node = receivingNode(material);
  const points = normalizeZ(secp256k1.Point, Array.from({ length: count }, (_, i) => secpChildPoint(node, start + i)));
  return points.map((p, i) => encode(material, p.toBytes(true), start + i));
}
