// Watch-only receiving for Monero: the merchant gives their wallet's primary address and its
// private VIEW key, and every invoice gets a fresh subaddress of that wallet, derived here by the
// gateway itself (./subaddress.ts) — deterministic, needing no wallet and no node to hand out an
// address, and the same one the merchant's own wallet shows. The view key lets the gateway see
// payments and never spend them; a spend key or a mnemonic seed is refused and never stored.
//
// The stored material (merchant_custody.material) is JSON:
//   {"address": "<primary standard address>", "viewKey": "<64 lower-case hex>", "startHeight": <n | null>}
// `startHeight` is the daemon's height when the key was set (a scan of this wallet never starts
// before it, never from genesis); null when no daemon answered then (no `daemon_url`, the node
// down): the driver then starts at the daemon's height at its first scan of the material. Setting
// the same address and view key again keeps the stored material as it is (nothing changes).
//
// Deposit `i` of a material (its counter, from 0) is subaddress (0, i + 1): minor indexes counted
// from 1, so no invoice is ever paid to the primary address, with the path `watch:<custody id>/0/<i + 1>`
// (../watch-paths.ts: the major index, then the minor). A standard wallet looks 200 minor indexes
// past the last one that received (its subaddress lookahead): docs/custody.md says how to raise it.
import type { NetworkConfig } from '../../config.ts';
import type { NetworkDef } from '../../registry/index.ts';
import { CustodyInputError } from '../errors.ts';
import type { CustodyInput, ParsedCustody, WatchOnlyCustody } from '../family.ts';
import { watchPath } from '../watch-paths.ts';
import { MoneroAddressError, parseMoneroAddress, type MoneroNetwork } from './address.ts';
import { checkViewKey, MoneroKeyError } from './keys.ts';
import { subaddressKeys, subaddressOf, type SubaddressKeys } from './subaddress.ts';

/** The driver name operators write in `networks.CODE.driver` for a real Monero daemon. */
export const MONERO_DRIVER = 'monero';

/** The network type of a network's registry address format (./address-format.ts). */
export function moneroNetworkOf(network: Pick<NetworkDef, 'address_format'>): MoneroNetwork {
  switch (network.address_format) {
    case 'monero-stagenet':
      return 'stagenet';
    case 'monero-testnet':
      return 'testnet';
    default:
      return 'mainnet';
  }
}

/** What a Monero material holds (see above). */
export interface MoneroMaterial {
  address: string;
  viewKey: string;
  startHeight: number | null;
}

/** The stored material's fields; throws on text that is not one (a row written by another family, say). */
export function parseMoneroMaterial(material: string): MoneroMaterial {
  const m = JSON.parse(material) as Partial<MoneroMaterial>;
  if (typeof m?.address !== 'string' || typeof m.viewKey !== 'string' || !(m.startHeight === null || (Number.isSafeInteger(m.startHeight) && m.startHeight! >= 0))) {
    throw new Error('not a Monero custody material');
  }
  return { address: m.address, viewKey: m.viewKey, startHeight: m.startHeight ?? null };
}

export function moneroMaterialText(m: MoneroMaterial): string {
  return JSON.stringify({ address: m.address, viewKey: m.viewKey, startHeight: m.startHeight });
}

const NETWORK_WORDS: Record<MoneroNetwork, string> = { mainnet: 'mainnet', stagenet: 'stagenet', testnet: 'testnet' };

/**
 * The merchant's primary address and private view key, checked: a standard address of the
 * network's type (not a subaddress, not an integrated address, not another network type's), and
 * the view key of exactly that address (a spend key, a seed, another wallet's key: refused, never
 * repeated). `startHeight` is null here: ./custody.ts's `settle` asks the daemon.
 */
export function parseMoneroCustody(network: NetworkDef, input: CustodyInput): ParsedCustody {
  if (input.xpub !== undefined || input.descriptor !== undefined) {
    throw new CustodyInputError('wrong_form', `${network.code} takes your wallet's primary address and its private view key, not an extended key or a descriptor`);
  }
  const text = typeof input.address === 'string' ? input.address.trim() : '';
  if (text === '') throw new CustodyInputError('missing', `${network.code} takes your wallet's primary address (starting with 4 on mainnet) and its private view key`);
  // A seed or a key pasted as the address: refused without repeating it.
  if (/\s/.test(text) && text.split(/\s+/).length >= 12) {
    throw new CustodyInputError('private_key', 'This looks like a mnemonic seed, not an address: a seed holds your spend key, so it was not stored. Give your wallet\'s primary address and its private view key');
  }
  if (/^[0-9a-fA-F]{64}$/.test(text)) {
    throw new CustodyInputError('private_key', 'This looks like a private key, not an address: it was not stored. Give your wallet\'s primary address as --address and the private view key as the view key');
  }
  let address;
  try {
    address = parseMoneroAddress(text);
  } catch (e) {
    if (!(e instanceof MoneroAddressError)) throw e;
    throw new CustodyInputError('not_address', e.message);
  }
  const want = moneroNetworkOf(network);
  if (address.network !== want) {
    throw new CustodyInputError('wrong_network', `This is a Monero ${NETWORK_WORDS[address.network]} address; ${network.code} runs on ${NETWORK_WORDS[want]}: give an address of a ${NETWORK_WORDS[want]} wallet. Nothing was stored`);
  }
  if (address.kind === 'subaddress') {
    throw new CustodyInputError('subaddress', 'This is a subaddress; give your wallet\'s primary address (account 0, index 0, the one its keys are of): the gateway makes a fresh subaddress of it for every invoice. Nothing was stored');
  }
  if (address.kind === 'integrated') {
    throw new CustodyInputError('integrated', 'This is an integrated address (an address with a payment id); give your wallet\'s primary address itself: every invoice gets its own subaddress instead. Nothing was stored');
  }
  let viewKey: string;
  try {
    viewKey = checkViewKey(address, input.viewKey);
  } catch (e) {
    if (!(e instanceof MoneroKeyError)) throw e;
    throw new CustodyInputError(e.problem === 'spend_key' || e.problem === 'seed' ? 'private_key' : e.problem === 'mismatch' ? 'view_key_mismatch' : 'view_key', e.message);
  }
  return { kind: 'extended-key', material: moneroMaterialText({ address: text, viewKey, startHeight: null }), summary: `${text} (view key)` };
}

/** Keys of the materials derived from lately, so a pool refill does not parse and decompress them per address. */
const keyCache = new Map<string, SubaddressKeys>();
const KEY_CACHE_MAX = 64;

function keysOf(material: string): SubaddressKeys {
  let k = keyCache.get(material);
  if (!k) {
    const m = parseMoneroMaterial(material);
    k = subaddressKeys(m.address, m.viewKey);
    if (keyCache.size >= KEY_CACHE_MAX) keyCache.delete(keyCache.keys().next().value!);
    keyCache.set(material, k);
  }
  return k;
}

/** Deposit `index` (from 0) of custody row `custodyId`: subaddress (0, index + 1) of the material's wallet. */
export function moneroDeposit(_network: NetworkDef, material: string, custodyId: string, index: number): { address: string; path: string } {
  if (!Number.isSafeInteger(index) || index < 0 || index >= 0xffffffff) throw new RangeError(`Invalid index: ${index}`);
  const minor = index + 1;
  return { address: subaddressOf(keysOf(material), 0, minor), path: watchPath(custodyId, minor) };
}

/** The daemon's height (its block count: the height the next block gets), or null when it does not answer in time. */
export async function daemonHeight(daemonUrl: string, timeoutMs = 5000): Promise<number | null> {
  try {
    const res = await fetch(new URL('/json_rpc', daemonUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: '0', method: 'get_block_count' }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok) return null;
    const text = await res.text();
    if (text.length > 4096) return null;
    const count = (JSON.parse(text) as { result?: { count?: unknown } }).result?.count;
    return typeof count === 'number' && Number.isSafeInteger(count) && count >= 0 ? count : null;
  } catch {
    return null;
  }
}

/**
 * The material as stored: the same address and view key as the current material keep it as it is
 * (its start height too); new ones get the daemon's height now, or null when none answers.
 */
export async function settleMoneroCustody(_network: NetworkDef, settings: NetworkConfig | undefined, parsed: ParsedCustody, current: string | null): Promise<ParsedCustody> {
  const m = parseMoneroMaterial(parsed.material);
  if (current !== null) {
    try {
      const c = parseMoneroMaterial(current);
      if (c.address === m.address && c.viewKey === m.viewKey) return { ...parsed, material: current };
    } catch {
      // Not a Monero material: a new one is written.
    }
  }
  const url = typeof settings?.daemon_url === 'string' ? settings.daemon_url : null;
  const startHeight = url ? await daemonHeight(url) : null;
  return { ...parsed, material: moneroMaterialText({ ...m, startHeight }) };
}

export const moneroWatchOnly: WatchOnlyCustody = {
  module: { url: import.meta.url, name: 'moneroWatchOnly' },
  accepts: 'your wallet\'s primary address (a standard address, not a subaddress or an integrated one) and its private view key (64 hex digits; never the spend key or the seed); each invoice gets a fresh subaddress of that wallet',
  inputs: ['address', 'viewKey'],
  parse: parseMoneroCustody,
  deposit: moneroDeposit,
  settle: settleMoneroCustody,
};
