// What the `addresses.path` of a watch-only deposit address says, in place of an HD path of the
// gateway's seed. A driver is given these paths (DepositPaths, WatchedAddress) and must never try to
// derive a key from them: the gateway holds none.
// - `watch:<custody id>/0/<index>`: the receiving-chain address `index` of a merchant's extended
//   public key or descriptor (Bitcoin family), stored as custody row `custody id`.
// - `forwarder:<cold address>:<salt>`: a counterfactual forwarder (EVM, TRON) that can only ever
//   send what it holds to `cold address` (the family's own written form); `salt` is 0x and 64 hex.
// - `reference:<custody id>/<index>`: payment reference `index` of a merchant's own account, stored as
//   custody row `custody id`, on a chain whose payments are told apart by a comment rather than by
//   address. The deposit's address is then a deposit key (depositKey): the account and the reference.

/** How every path above begins. Any other `addresses.path` is an HD path of the gateway's seed. */
export const WATCH_ONLY_PATH_PREFIXES = ['watch:', 'forwarder:', 'reference:'] as const;

/** Whether a deposit's path is an HD path of the gateway's seed (hot custody), whose key it holds. */
export function isSeedPath(path: string): boolean {
  return !WATCH_ONLY_PATH_PREFIXES.some((p) => path.startsWith(p));
}

export interface ForwarderPath {
  cold: string;
  salt: `0x${string}`;
}

export function watchPath(custodyId: string, index: number): string {
  return `watch:${custodyId}/0/${index}`;
}

export function forwarderPath(cold: string, salt: string): string {
  if (!/^0x[0-9a-f]{64}$/i.test(salt)) throw new Error(`salt must be 0x and 64 hex digits: ${salt}`);
  if (!/^[0-9A-Za-z]{20,64}$/.test(cold.replace(/^0x/, ''))) throw new Error(`not an address: ${cold}`);
  return `forwarder:${cold}:${salt.toLowerCase()}`;
}

/** The cold address and salt of a forwarder path; null for any other path. */
export function parseForwarderPath(path: string): ForwarderPath | null {
  const m = /^forwarder:((?:0x)?[0-9A-Za-z]{20,64}):(0x[0-9a-f]{64})$/.exec(path);
  return m ? { cold: m[1]!, salt: m[2] as `0x${string}` } : null;
}

/** The custody row and index of a `watch:` path; null for any other path. */
export function parseWatchPath(path: string): { custodyId: string; index: number } | null {
  const m = /^watch:([0-9a-f-]{1,64})\/0\/(\d{1,10})$/.exec(path);
  return m ? { custodyId: m[1]!, index: Number(m[2]) } : null;
}

export function referencePath(custodyId: string, index: number): string {
  if (!/^[0-9a-f-]{1,64}$/.test(custodyId)) throw new Error(`not a custody id: ${custodyId}`);
  if (!Number.isSafeInteger(index) || index < 0) throw new Error(`not an index: ${index}`);
  return `reference:${custodyId}/${index}`;
}

/** The custody row and index of a `reference:` path; null for any other path. */
export function parseReferencePath(path: string): { custodyId: string; index: number } | null {
  const m = /^reference:([0-9a-f-]{1,64})\/(\d{1,10})$/.exec(path);
  return m ? { custodyId: m[1]!, index: Number(m[2]) } : null;
}

// No address format of any family contains '#', so a key that has one is never an address and the
// split is unambiguous: the account is everything before the first '#'.
const KEY_SEPARATOR = '#';
const REFERENCE = /^[0-9A-Za-z]{1,64}$/;

/**
 * The `addresses.address` of a deposit that is paid to `account` with the payment reference
 * `reference` (a comment the payer must send): the (network, address) key stays unique per deposit.
 */
export function depositKey(account: string, reference: string): string {
  if (account === '' || account.includes(KEY_SEPARATOR)) throw new Error(`not an account: ${account}`);
  if (!REFERENCE.test(reference)) throw new Error(`a payment reference is 1 to 64 letters and digits: ${reference}`);
  return `${account}${KEY_SEPARATOR}${reference}`;
}

/** The account and payment reference of a deposit key; null for a plain address. */
export function parseDepositKey(key: string): { account: string; reference: string } | null {
  const at = key.indexOf(KEY_SEPARATOR);
  if (at <= 0) return null;
  const account = key.slice(0, at);
  const reference = key.slice(at + 1);
  return REFERENCE.test(reference) ? { account, reference } : null;
}

/**
 * What an invoice or static wallet records of an allocated deposit: the address the payer sends to
 * (the account, for a deposit key) and the payment reference the payer must send with it (null for
 * a plain address).
 */
export function depositParts(address: string): { address: string; reference: string | null } {
  const key = parseDepositKey(address);
  return key ? { address: key.account, reference: key.reference } : { address, reference: null };
}

/** Whether the address behind this path is watch-only (no key of the gateway can spend it). */
export function isWatchOnlyPath(path: string): boolean {
  return path.startsWith('watch:') || path.startsWith('forwarder:') || path.startsWith('reference:');
}
