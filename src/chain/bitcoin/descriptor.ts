// Output descriptors as a merchant pastes them for a watch-only account: the BIP-380 checksum and
// the syntax of the few forms accepted, `pkh(KEY)`, `wpkh(KEY)` and `sh(wpkh(KEY))`, KEY being
// `[fingerprint/path]xpub.../0/*`. String work only: what KEY is (its network, depth, whether it is
// private) is decided by ./watch-only.ts. Errors never quote the input, which may hold a secret.

export type WatchOnlyReason =
  | 'empty'
  | 'too_long'
  | 'private_key'
  | 'wrong_network'
  | 'wrong_depth'
  | 'malformed_key'
  | 'bad_key_checksum'
  | 'unsupported_key_type'
  | 'not_extended_key'
  | 'unsupported_script'
  | 'malformed_descriptor'
  | 'bad_descriptor_checksum'
  | 'multipath'
  | 'unsupported_path'
  | 'origin_mismatch';

/** Why watch-only material is refused: `reason` for code, the message for a merchant. The message
 * never contains the material itself. */
export class WatchOnlyError extends Error {
  constructor(
    readonly reason: WatchOnlyReason,
    message: string,
  ) {
    super(message);
    this.name = 'WatchOnlyError';
  }
}

// BIP-380: every character a descriptor may hold, in the order the checksum encodes them (the
// position in groups of 32 tells apart characters that share their low five bits).
const INPUT_CHARSET = '0123456789()[],\'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~ijklmnopqrstuvwxyzABCDEFGH`#"\\ ';
const CHECKSUM_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GENERATOR = [0xf5dee51989n, 0xa9fdca3312n, 0x1bab10e32dn, 0x3706b1677an, 0x644d626ffdn];

function polymod(symbols: number[]): bigint {
  let chk = 1n;
  for (const value of symbols) {
    const top = chk >> 35n;
    chk = ((chk & 0x7ffffffffn) << 5n) ^ BigInt(value);
    for (let i = 0; i < 5; i++) if ((top >> BigInt(i)) & 1n) chk ^= GENERATOR[i]!;
  }
  return chk;
}

/** The 8-character BIP-380 checksum of a descriptor (without its `#...`), or null when it holds a
 * character descriptors cannot contain. */
export function descriptorChecksum(descriptor: string): string | null {
  const symbols: number[] = [];
  const groups: number[] = [];
  for (const c of descriptor) {
    const v = INPUT_CHARSET.indexOf(c);
    if (v < 0) return null;
    symbols.push(v & 31);
    groups.push(v >> 5);
    if (groups.length === 3) symbols.push(groups[0]! * 9 + groups[1]! * 3 + groups[2]!), (groups.length = 0);
  }
  if (groups.length === 1) symbols.push(groups[0]!);
  else if (groups.length === 2) symbols.push(groups[0]! * 3 + groups[1]!);
  const chk = polymod([...symbols, 0, 0, 0, 0, 0, 0, 0, 0]) ^ 1n;
  let out = '';
  for (let i = 0; i < 8; i++) out += CHECKSUM_CHARSET[Number((chk >> BigInt(5 * (7 - i))) & 31n)];
  return out;
}

/** `descriptor#checksum`. */
export function withChecksum(descriptor: string): string {
  const sum = descriptorChecksum(descriptor);
  if (sum === null) throw new WatchOnlyError('malformed_descriptor', 'The descriptor contains a character descriptors cannot hold');
  return `${descriptor}#${sum}`;
}

/** Splits off and verifies a `#checksum` when there is one; returns the descriptor without it. */
export function verifyChecksum(text: string): string {
  const hash = text.indexOf('#');
  if (hash < 0) {
    if (descriptorChecksum(text) === null) throw new WatchOnlyError('malformed_descriptor', 'The descriptor contains a character descriptors cannot hold');
    return text;
  }
  const body = text.slice(0, hash);
  const given = text.slice(hash + 1);
  if (!/^[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{8}$/.test(given)) {
    throw new WatchOnlyError('bad_descriptor_checksum', 'The descriptor checksum after # must be 8 characters of the checksum alphabet');
  }
  const expected = descriptorChecksum(body);
  if (expected === null) throw new WatchOnlyError('malformed_descriptor', 'The descriptor contains a character descriptors cannot hold');
  if (expected !== given) {
    throw new WatchOnlyError('bad_descriptor_checksum', 'The descriptor checksum does not match: the descriptor was altered or mistyped');
  }
  return body;
}

export type DescriptorScript = 'pkh' | 'wpkh' | 'sh-wpkh';

export interface DescriptorSyntax {
  script: DescriptorScript;
  /** Key origin: master fingerprint (lower-case hex) and path steps (hardened ones with `h`). */
  origin?: { fingerprint: string; path: string[] };
  /** The extended key's text, not yet decoded. */
  key: string;
}

const HARDENED = 0x80000000;

function originStep(step: string): string {
  const m = /^(\d{1,10})(['hH]?)$/.exec(step);
  if (!m || Number(m[1]) >= HARDENED) throw new WatchOnlyError('malformed_descriptor', 'A key origin step must be a number below 2^31, optionally hardened with h or \'');
  return `${Number(m[1])}${m[2] ? 'h' : ''}`;
}

/** Parses a descriptor body (checksum already removed) of the accepted forms. */
export function parseDescriptorSyntax(body: string): DescriptorSyntax {
  let script: DescriptorScript;
  let inner: string;
  let m: RegExpExecArray | null;
  if ((m = /^sh\(wpkh\((.*)\)\)$/.exec(body))) (script = 'sh-wpkh'), (inner = m[1]!);
  else if ((m = /^wpkh\((.*)\)$/.exec(body))) (script = 'wpkh'), (inner = m[1]!);
  else if ((m = /^pkh\((.*)\)$/.exec(body))) (script = 'pkh'), (inner = m[1]!);
  else {
    const name = /^([a-z_]{1,12})\(/.exec(body)?.[1];
    throw new WatchOnlyError(
      'unsupported_script',
      name
        ? `Descriptors of type ${name}(...) are not supported; use wpkh(KEY), sh(wpkh(KEY)) or pkh(KEY) with one extended public key`
        : 'Not a descriptor of a supported form: use wpkh(KEY), sh(wpkh(KEY)) or pkh(KEY)',
    );
  }
  if (/[(),]/.test(inner)) {
    throw new WatchOnlyError('unsupported_script', 'Only single-key descriptors are supported: wpkh(KEY), sh(wpkh(KEY)) or pkh(KEY)');
  }
  let origin: DescriptorSyntax['origin'];
  if (inner.startsWith('[')) {
    const close = inner.indexOf(']');
    if (close < 0) throw new WatchOnlyError('malformed_descriptor', 'The key origin is missing its closing ]');
    const [fp, ...steps] = inner.slice(1, close).split('/');
    if (!fp || !/^[0-9a-fA-F]{8}$/.test(fp)) throw new WatchOnlyError('malformed_descriptor', 'The key origin must start with an 8-hex-digit fingerprint');
    origin = { fingerprint: fp.toLowerCase(), path: steps.map(originStep) };
    inner = inner.slice(close + 1);
  }
  if (inner.includes('[') || inner.includes(']')) throw new WatchOnlyError('malformed_descriptor', 'The key origin [...] must come first, once');
  const slash = inner.indexOf('/');
  const key = slash < 0 ? inner : inner.slice(0, slash);
  const path = slash < 0 ? '' : inner.slice(slash);
  // Deposit addresses are the external chain /0/i of the account key; a key without a path is
  // taken as that account key (stored normalised with /0/*).
  if (path !== '' && path !== '/0/*') {
    if (path.includes('<')) {
      throw new WatchOnlyError('multipath', 'Multipath keys (/<0;1>/*) are not accepted: give the receiving chain only, KEY/0/*');
    }
    throw new WatchOnlyError('unsupported_path', 'The key must be the account key, optionally followed by /0/* (the receiving chain); other derivation paths are not supported');
  }
  return { script, ...(origin ? { origin } : {}), key };
}
