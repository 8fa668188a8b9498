// TON account addresses as merchants and operators type them, and as the family writes them.
//
// Two written forms name one account (workchain and 32-byte account hash):
// - raw: `0:` and 64 hex digits (any case on input, lower case on output). It carries no flags.
// - user-friendly (TEP-2): 36 bytes in base64 or base64url: a tag (0x11 bounceable, 0x51
//   non-bounceable, plus 0x80 for an address meant for the test network), the workchain byte, the
//   hash, and a CRC16-XMODEM of the 34 bytes before it.
// Comparisons are made on the raw form. The test-network flag is checked on user-friendly input
// only: a node prints every address with the mainnet flag, and the raw form has none. Only
// workchain 0 is accepted: wallets and jettons live there, and the masterchain (-1) is not where a
// merchant receives.
import { hex } from '@scure/base';
import { BOUNCEABLE, NON_BOUNCEABLE, TESTNET_FLAG, friendlyBytes, friendlyCrcOk, tonFriendly as friendlyText } from '../address/ton.ts';

export interface TonAddress {
  workchain: number;
  /** The 32-byte account hash. */
  hash: Uint8Array;
}

/** An address that cannot be accepted; the message says why and never repeats the input at length. */
export class TonAddressError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TonAddressError';
  }
}

const RAW = /^(-?\d{1,4}):([0-9a-fA-F]{64})$/;

function workchainOnly(workchain: number): void {
  if (workchain === -1) throw new TonAddressError('This is a masterchain address (workchain -1): only workchain 0 addresses are accepted');
  if (workchain !== 0) throw new TonAddressError(`Workchain ${workchain} is not accepted: only workchain 0 addresses are`);
}

/**
 * The account `text` names, raw or user-friendly (bounceable or not). `testnet`: whether the network
 * is the test network; a user-friendly address flagged for the other network is refused.
 */
export function parseTonAddress(text: string, opts: { testnet: boolean }): TonAddress {
  if (typeof text !== 'string') throw new TonAddressError('A TON address is required');
  const a = text.trim();
  if (a === '') throw new TonAddressError('A TON address is required');
  const raw = RAW.exec(a);
  if (raw) {
    const workchain = Number(raw[1]);
    workchainOnly(workchain);
    return { workchain, hash: hex.decode(raw[2]!.toLowerCase()) };
  }
  if (a.includes(':')) throw new TonAddressError('A raw TON address is the workchain, a colon and 64 hex digits (0:...)');
  const body = friendlyBytes(a);
  if (!body) {
    throw new TonAddressError('A TON address is 48 characters of base64 (EQ..., UQ...) or 0: and 64 hex digits');
  }
  if (!friendlyCrcOk(body)) throw new TonAddressError('The TON address has a bad checksum: a character was mistyped');
  const tag = body[0]!;
  const kind = tag & ~TESTNET_FLAG;
  if (kind !== BOUNCEABLE && kind !== NON_BOUNCEABLE) throw new TonAddressError('This is not a TON account address (unknown tag byte)');
  const testnet = (tag & TESTNET_FLAG) !== 0;
  if (testnet && !opts.testnet) throw new TonAddressError('This address is flagged for the TON testnet, and this network is TON mainnet');
  if (!testnet && opts.testnet) throw new TonAddressError('This address is flagged for TON mainnet, and this network is the TON testnet');
  const workchain = body[1] === 0xff ? -1 : body[1]!;
  workchainOnly(workchain);
  return { workchain, hash: body.slice(2, 34) };
}

function checked(a: TonAddress): 0 {
  if (a.workchain !== 0) throw new TonAddressError(`Workchain ${a.workchain} is not accepted: only workchain 0 addresses are`);
  if (!(a.hash instanceof Uint8Array) || a.hash.length !== 32) throw new TonAddressError('A TON account hash is 32 bytes');
  return 0;
}

/** The raw form: `0:` and 64 lower-case hex digits (what addresses are compared on). */
export function tonRaw(a: TonAddress): string {
  return `${checked(a)}:${hex.encode(a.hash)}`;
}

/** The user-friendly form (base64url) with the given flags. */
export function tonFriendly(a: TonAddress, opts: { bounceable: boolean; testnet: boolean }): string {
  return friendlyText(a.hash, checked(a), opts.bounceable, opts.testnet);
}

/** Whether two accounts are the same. */
export function sameTonAddress(a: TonAddress, b: TonAddress): boolean {
  return a.workchain === b.workchain && a.hash.length === b.hash.length && a.hash.every((v, i) => v === b.hash[i]);
}
