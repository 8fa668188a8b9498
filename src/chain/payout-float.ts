// The payout float of a watch-only network (docs/networks.md, "The payout float"): a separate hot
// key the operator funds and caps, the only key on the gateway that can spend anything. Payouts and
// refunds on a watch-only network come from it; receiving never does. Its settings, per network:
//   "payout_float": { "key_file": "/etc/satchel/eth-float.key",
//                     "max_per_payout": { "ETH": "1", "USDT": "1000" },
//                     "max_per_day": { "ETH": "5", "USDT": "20000" } }
// `SATCHEL_PAYOUT_KEY_FILE` gives key_file to every watch-only network whose family has a float
// form and whose settings name none. This module reads and checks the settings (every message
// names the setting); what a key file holds and which account it is belongs to the family
// (`ChainFamily.payoutFloat`). A family without a float form (the Bitcoin family, for now) has no
// float: its watch-only networks refuse payouts and refunds.
import { readFileSync, statSync } from 'node:fs';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hexToBytes } from '@noble/hashes/utils.js';
import { driverOf, type Config, type NetworkConfig } from '../config.ts';
import { Decimal } from '../money/decimal.ts';
import type { NetworkDef, Registry } from '../registry/index.ts';
import type { Families, PayoutFloatForm } from './family.ts';
import { custodyMode } from './network-settings.ts';

export type { PayoutFloatForm } from './family.ts';

/** A network's float as configured: where its key is and its caps (decimal strings by upper-case code). */
export interface PayoutFloatSettings {
  /** Null for a float that is a wallet the operator runs (PayoutFloatForm.wallet): no key file. */
  keyFile: string | null;
  /** Where key_file came from: the network's settings or SATCHEL_PAYOUT_KEY_FILE. */
  keyFrom: 'settings' | 'environment';
  /** A wallet float's URL as configured, any user:password in it removed (for messages); null for a key file float. */
  wallet?: string | null;
  maxPerPayout: Readonly<Record<string, string>>;
  maxPerDay: Readonly<Record<string, string>>;
  /** The family's own settings (PayoutFloatForm.settings), as configured, checked. */
  extra: Readonly<Record<string, unknown>>;
}

const KEYS = ['key_file', 'max_per_payout', 'max_per_day'];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A cap object: { CODE: "decimal" } for currencies of the network, each above zero. */
function caps(v: unknown, network: NetworkDef, where: string): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (!isObject(v)) throw new Error(`${where}: an object of decimal strings by currency code is required, e.g. {"${network.currencies[0]?.code ?? 'USDT'}": "1000"}`);
  const out: Record<string, string> = {};
  for (const [code, amount] of Object.entries(v)) {
    const currency = network.currencies.find((c) => c.code.toUpperCase() === code.toUpperCase());
    if (!currency) throw new Error(`${where}.${code}: not a currency of ${network.code} (its currencies: ${network.currencies.map((c) => c.code).join(', ')})`);
    const d = typeof amount === 'string' ? Decimal.tryParse(amount.trim()) : null;
    if (!d || !d.gt('0')) throw new Error(`${where}.${code}: a decimal string above 0 is required, e.g. "1000" (a number is not accepted: amounts are written as text)`);
    if (d.places() > currency.decimals) throw new Error(`${where}.${code}: ${currency.code} has ${currency.decimals} decimal places, "${amount}" has more`);
    out[currency.code.toUpperCase()] = d.toString();
  }
  return out;
}

/**
 * The float settings of a network as configured, checked; null when none (no `payout_float` and no
 * key file from the environment). `envKeyFile` (SATCHEL_PAYOUT_KEY_FILE) stands in for a missing
 * key_file. Only shapes are checked here: the key file itself is read by readFloatSecret.
 */
export function payoutFloatSettings(
  network: NetworkDef,
  cfg: NetworkConfig | undefined,
  envKeyFile: string | undefined,
  where: string,
  own: NonNullable<PayoutFloatForm['settings']> = {},
): PayoutFloatSettings | null {
  const raw = cfg?.payout_float;
  if (raw === undefined || raw === null) return envKeyFile ? { keyFile: envKeyFile, keyFrom: 'environment', maxPerPayout: {}, maxPerDay: {}, extra: {} } : null;
  if (!isObject(raw)) throw new Error(`${where}: an object is required ({"key_file": "...", "max_per_payout": {...}, "max_per_day": {...}})`);
  const known = [...KEYS, ...Object.keys(own)];
  const extra: Record<string, unknown> = {};
  for (const k of Object.keys(raw)) {
    if (!known.includes(k)) throw new Error(`${where}.${k} is not a setting (known: ${known.join(', ')})`);
    const check = Object.hasOwn(own, k) ? own[k] : undefined;
    if (check) {
      check(raw[k], `${where}.${k}`);
      extra[k] = raw[k];
    }
  }
  const file = raw.key_file ?? envKeyFile;
  if (typeof file !== 'string' || file.trim() === '') {
    throw new Error(`${where}.key_file: the path of the float's key file is required (or set SATCHEL_PAYOUT_KEY_FILE)`);
  }
  return { keyFile: file, keyFrom: raw.key_file === undefined ? 'environment' : 'settings', ...capsOf(raw, network, where), extra };
}

/** The caps of a `payout_float` object, checked (a payout cap above the day's cannot work). */
function capsOf(raw: Record<string, unknown>, network: NetworkDef, where: string): { maxPerPayout: Record<string, string>; maxPerDay: Record<string, string> } {
  const maxPerPayout = caps(raw.max_per_payout, network, `${where}.max_per_payout`);
  const maxPerDay = caps(raw.max_per_day, network, `${where}.max_per_day`);
  for (const [code, per] of Object.entries(maxPerPayout)) {
    const day = maxPerDay[code];
    if (day !== undefined && Decimal.parse(per).gt(day)) throw new Error(`${where}.max_per_payout.${code}: ${per} is more than max_per_day.${code} (${day}): no payout that size could ever be sent`);
  }
  return { maxPerPayout, maxPerDay };
}

/**
 * The float of a family whose float is a wallet the operator runs (PayoutFloatForm.wallet): it
 * exists when the network's `setting` names the wallet's URL; `payout_float` then holds only the
 * caps (and the family's own settings): a key_file there is refused, since nothing would read it.
 * SATCHEL_PAYOUT_KEY_FILE does not apply.
 */
function walletFloat(network: NetworkDef, cfg: NetworkConfig | undefined, form: PayoutFloatForm & { wallet: { setting: string } }, where: string): PayoutSource {
  const setting = form.wallet.setting;
  const url = cfg?.[setting];
  const raw = cfg?.payout_float;
  if (url === undefined || url === null) {
    if (raw !== undefined && raw !== null) throw new Error(`${where}.payout_float: the caps of a float that does not exist; ${network.name}'s payout float is a wallet the operator runs: name it in ${where}.${setting}`);
    return { kind: 'none', why: `no payout wallet is configured (${where}.${setting})` };
  }
  let parsed: URL | null = null;
  try {
    parsed = typeof url === 'string' ? new URL(url) : null;
  } catch {
    parsed = null;
  }
  if (!parsed || !/^https?:$/.test(parsed.protocol)) throw new Error(`${where}.${setting}: the http(s) URL of the payout wallet's RPC is required, e.g. "http://127.0.0.1:18083"`);
  parsed.username = '';
  parsed.password = '';
  const own = form.settings ?? {};
  const extra: Record<string, unknown> = {};
  let limits = { maxPerPayout: {} as Record<string, string>, maxPerDay: {} as Record<string, string> };
  if (raw !== undefined && raw !== null) {
    const fw = `${where}.payout_float`;
    if (!isObject(raw)) throw new Error(`${fw}: an object is required ({"max_per_payout": {...}, "max_per_day": {...}})`);
    const known = ['max_per_payout', 'max_per_day', ...Object.keys(own)];
    for (const k of Object.keys(raw)) {
      if (k === 'key_file') throw new Error(`${fw}.key_file is not used: ${network.name}'s payout float is the wallet at ${where}.${setting}, which holds its keys`);
      if (!known.includes(k)) throw new Error(`${fw}.${k} is not a setting (known: ${known.join(', ')})`);
      const check = Object.hasOwn(own, k) ? own[k] : undefined;
      if (check) {
        check(raw[k], `${fw}.${k}`);
        extra[k] = raw[k];
      }
    }
    limits = capsOf(raw, network, fw);
  }
  return { kind: 'float', settings: { keyFile: null, keyFrom: 'settings', wallet: parsed.toString().replace(/\/$/, ''), ...limits, extra }, form };
}

/**
 * The text of a float key file: refused unless only its owner can read or write it (mode 0600 or
 * stricter), as an HD seed's file is expected to be. `where` names the setting in the message.
 */
export function readFloatSecret(path: string, where: string): string {
  let mode: number;
  try {
    mode = statSync(path).mode & 0o777;
  } catch {
    throw new Error(`${where}: the key file ${path} cannot be read`);
  }
  if ((mode & 0o077) !== 0) {
    throw new Error(`${where}: the key file ${path} has mode 0${mode.toString(8).padStart(3, '0')}; other accounts on this host could read the float's key. Run: chmod 600 ${path}`);
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch {
    throw new Error(`${where}: the key file ${path} cannot be read`);
  }
  if (text === '') throw new Error(`${where}: the key file ${path} is empty`);
  return text;
}

/**
 * How a network's payouts are paid, as the start check and every payout see it:
 * - `seed`: hot custody (or the simulated chain): the gateway's seed, as before the float existed.
 * - `none`: watch-only with no float (none configured, or a family without a float form): payouts
 *   and refunds are refused; `why` says which.
 * - `float`: watch-only with a float.
 */
export type PayoutSource =
  | { kind: 'seed' }
  | { kind: 'none'; why: string }
  | { kind: 'float'; settings: PayoutFloatSettings; form: PayoutFloatForm };

/**
 * How network `network` pays, from its settings `cfg` and its family's float form (undefined: the
 * family has none); `envKeyFile` is SATCHEL_PAYOUT_KEY_FILE (the composition root has already
 * written it into the settings it hands on, so later callers leave it out). Throws (naming the
 * setting) on float settings that cannot work; reads no file.
 */
export function payoutSource(network: NetworkDef, cfg: NetworkConfig | undefined, form: PayoutFloatForm | undefined, envKeyFile?: string): PayoutSource {
  const where = `networks.${network.code}`;
  if (custodyMode(cfg, driverOf(cfg), where) === 'hot') {
    if (cfg?.payout_float !== undefined) {
      throw new Error(`${where}.payout_float: a payout float is only used on a watch-only network; ${network.code} runs in hot custody (payouts come from the gateway's seed). Remove payout_float, or remove "custody": "hot"`);
    }
    return { kind: 'seed' };
  }
  if (!form) {
    if (cfg?.payout_float !== undefined) throw new Error(`${where}.payout_float: ${network.name} has no payout float yet; payouts and refunds on a watch-only ${network.code} network are refused`);
    return { kind: 'none', why: `${network.name} has no payout float yet` };
  }
  if (form.wallet) return walletFloat(network, cfg, { ...form, wallet: form.wallet }, where);
  const settings = payoutFloatSettings(network, cfg, envKeyFile, `${where}.payout_float`, form.settings);
  if (!settings) return { kind: 'none', why: `no payout float is configured (${where}.payout_float, or SATCHEL_PAYOUT_KEY_FILE)` };
  return { kind: 'float', settings, form };
}

/** The float key's text of a network, and the address it controls (the family's reading of it). */
export function floatAccount(network: NetworkDef, source: Extract<PayoutSource, { kind: 'float' }>): { secret: string; address: string } {
  const where = `networks.${network.code}.payout_float.key_file`;
  if (source.settings.keyFile === null) {
    throw new Error(`networks.${network.code}: the payout float is the wallet at ${source.settings.wallet ?? 'its RPC'}: fund that wallet's primary address (ask the wallet for it; \`satchel doctor\` shows it once the gateway reaches the wallet)`);
  }
  const secret = readFloatSecret(source.settings.keyFile, where);
  try {
    return { secret, address: source.form.address(network, secret, source.settings.extra) };
  } catch (err) {
    throw new Error(`${where}: ${source.settings.keyFile}: ${err instanceof Error ? err.message : String(err)} (${source.form.accepts} is required)`);
  }
}

/**
 * The start check and SATCHEL_PAYOUT_KEY_FILE: every real network's float settings are usable
 * (caps, key file, its key) before anything runs, and the networks' settings with the environment's
 * key file written into each watch-only network that takes a float and names none, so that the
 * drivers and the payout checks read one place. Throws the first problem, naming the setting.
 */
export function withPayoutFloats<C extends Pick<Config, 'networks' | 'payoutKeyFile'>>(config: C, registry: Registry, families: Families): C {
  const networks: Record<string, NetworkConfig> = { ...config.networks };
  for (const [code, cfg] of Object.entries(config.networks)) {
    const network = registry.network(code);
    if (!network) continue;
    const source = payoutSource(network, cfg, families.of(network)?.payoutFloat, config.payoutKeyFile);
    if (source.kind !== 'float' || source.settings.keyFile === null) continue;
    floatAccount(network, source);
    if (source.settings.keyFrom === 'environment') {
      const own = typeof cfg.payout_float === 'object' && cfg.payout_float !== null ? cfg.payout_float : {};
      networks[code] = { ...cfg, payout_float: { ...own, key_file: source.settings.keyFile } };
    }
  }
  return { ...config, networks };
}

/**
 * A secp256k1 secret key from a float key file's text: 64 hex digits (`0x` optional), or a BIP-39
 * mnemonic (English word list, no passphrase) whose account `path` is used: the chain's standard
 * first account, so the operator can fund and watch the float in any wallet restored from the
 * same phrase. Errors say what is wrong without repeating the text.
 */
export function secp256k1FloatKey(secret: string, path: string): Uint8Array {
  const text = secret.trim();
  const hexKey = /^(0x)?([0-9a-fA-F]{64})$/.exec(text);
  if (hexKey) {
    const key = hexToBytes(hexKey[2]!);
    if (!secp256k1.utils.isValidSecretKey(key)) throw new Error('the hex private key is not a valid secp256k1 key (zero, or not below the curve order)');
    return key;
  }
  const words = text.split(/\s+/);
  if (words.length < 12) throw new Error('neither 64 hex digits nor a BIP-39 mnemonic');
  if (!validateMnemonic(words.join(' '), wordlist)) throw new Error('not a valid BIP-39 mnemonic (a word outside the English list, or a bad checksum)');
  const root = HDKey.fromMasterSeed(mnemonicToSeedSync(words.join(' ')));
  const node = root.derive(path);
  const key = node.privateKey;
  if (!key) throw new Error('BIP-32 derivation produced no private key');
  const out = Uint8Array.from(key);
  node.wipePrivateData();
  root.wipePrivateData();
  return out;
}
