// What the `addresses.path` of a watch-only deposit address says, in place of an HD path of the
// gateway's seed. A driver is given these paths (DepositPaths, WatchedAddress) and must never try to
// derive a key from them: the gateway holds none.
// - `watch:<custody id>/0/<index>`: the receiving-chain address `index` of a merchant's extended
//   public key or descriptor (Bitcoin family), stored as custody row `custody id`.
// - `forwarder:<cold address>:<salt>`: a counterfactual forwarder (EVM, TRON) that can only ever
//   send what it holds to `cold address` (the family's own written form); `salt` is 0x and 64 hex.

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

/** Whether the address behind this path is watch-only (no key of the gateway can spend it). */
export function isWatchOnlyPath(path: string): boolean {
  return path.startsWith('watch:') || path.startsWith('forwarder:');
}
