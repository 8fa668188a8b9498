// Configuration: environment variables first, then an optional JSON config file, then defaults.
import { existsSync, readFileSync, writeFileSync, mkdirSync, chmodSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { generateMnemonic, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { Decimal } from './money/decimal.ts';
import { readSmtpSettings, type SmtpSettings } from './mail/rules.ts';

export interface NetworkConfig {
  driver?: string;
  rpc_url?: string;
  chain_id?: number;
  confirmations?: number;
  tokens?: Record<string, string>;
  /** EVM: a public JSON-RPC URL offered to payers' wallets that lack the chain (never the gateway's rpc_url). */
  public_rpc_url?: string;
  /** false: the network is not offered to merchants or payers (src/chain/networks.ts, `offered`). */
  enabled?: boolean;
  /** The operator's own explorer, a template with {txid} (src/chain/explorer.ts decides when links show). */
  explorer_url?: string;
  [key: string]: unknown;
}

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl?: string;
  publicUrl: string;
  role: 'all' | 'api' | 'worker';
  registryFile?: string;
  /** Where prices come from and when they are too old or too far apart to invoice on. */
  rates: RatesConfig;
  /** Overrides of the registry's commission, keyed "CURRENCY:NETWORK" or "CURRENCY". */
  commission: Record<string, string>;
  /** Allow webhook targets in private, loopback and link-local ranges (tests, intranets). */
  allowPrivateCallbacks: boolean;
  networks: Record<string, NetworkConfig>;
  logLevel: string;
  mnemonic: () => string;
  /**
   * Which reverse proxies' X-Forwarded-For to believe for the client address (Fastify's
   * `trustProxy`): false (default: the socket's address), true (every hop), a hop count, or a
   * comma-separated list of proxy addresses and CIDR ranges.
   */
  trustProxy: boolean | number | string;
  /** Per-IP requests per minute on the public payer API. */
  payerRateLimit: number;
  bodyLimit: number;
  /** A request's headers and body must have arrived within this time (else 408 and closed). */
  bodyDeadlineMs: number;
  /** Open connections in all (Node's `server.maxConnections`); 0: no cap. */
  maxConnections: number;
  /** Open connections from one socket address; 0: no cap. */
  maxConnectionsPerAddress: number;
  /** Pause between two rounds of the background workers. */
  workerIntervalMs: number;
  /** Longest a graceful shutdown (SIGTERM) may take before the process exits anyway. */
  shutdownTimeoutMs: number;
  /** How long a start waits for a database that does not answer yet (ms). */
  dbStartWaitMs: number;
  /** How long a payout the hot wallet cannot cover stays `process` before it fails and its funds return. */
  payoutStuckTimeoutMs: number;
  /** One webhook attempt's time limit; a claimed batch's lease is derived from it. */
  webhookTimeoutMs: number;
  /** How long a recurrence's renewal may stay unpaid after it is due before the recurrence becomes `inactive`. */
  recurrenceGraceMs: number;
  /** Webhook attempts in flight at once, per worker, to one callback target (scheme, host, port). */
  webhookTargetLimit: number;
  /**
   * A network's poll that runs longer than this is reported (log, metric) and told to stop; its
   * next round waits until it has ended. Other networks and jobs never wait for it.
   */
  chainPollTimeoutMs: number;
  /** How long a claimed payout is left to its worker before another may send it. */
  payoutLeaseMs: number;
  /** How often a running gateway asks each real network's node for its status (a network whose
   * node did not answer at start is offered once it does). */
  nodeCheckIntervalMs: number;
  /**
   * Test mode: the payment simulator (/simulator/*, `satchel simulate`) is on. Default: on while
   * every network uses the simulated driver, off as soon as one is real, so that simulated money
   * can never reach a balance that real payouts draw on.
   */
  simulator: boolean;
  /** Where the HD mnemonic is read from, for `satchel doctor` (the phrase itself stays behind `mnemonic`). */
  mnemonicSource: { kind: 'env' } | { kind: 'file'; path: string } | { kind: 'generated'; path: string };
  /** How the operator backs the database up, in their words; `satchel doctor` reminds while unset. */
  backup?: string;
  /**
   * SATCHEL_PAYOUT_KEY_FILE: the payout float's key file of every watch-only network whose family
   * has a float and whose `payout_float` names no key_file (src/chain/payout-float.ts).
   */
  payoutKeyFile?: string;
  /** `satchel doctor`: a node whose newest block is older than this is not synced (Bitcoin family: at least 90). */
  doctorMaxHeadAgeMinutes: number;
  /** The SMTP server the gateway's emails go through (dashboard invites); unset: no email is sent. */
  smtp?: SmtpSettings;
}

type FileConfig = Partial<{
  host: string;
  port: number;
  data_dir: string;
  database_url: string;
  public_url: string;
  role: string;
  registry_file: string;
  rates_file: string;
  http_rates: boolean;
  rates: unknown;
  commission: Record<string, string>;
  allow_private_callbacks: boolean;
  networks: Record<string, NetworkConfig>;
  log_level: string;
  mnemonic_file: string;
  payer_rate_limit: number;
  body_deadline_ms: number;
  max_connections: number;
  max_connections_per_address: number;
  trust_proxy: boolean | number | string;
  worker_interval_ms: number;
  shutdown_timeout_ms: number;
  db_start_wait_ms: number;
  payout_stuck_timeout_seconds: number;
  webhook_timeout_ms: number;
  recurrence_grace_hours: number;
  webhook_target_limit: number;
  chain_poll_timeout_ms: number;
  payout_lease_ms: number;
  node_check_interval_ms: number;
  simulator: boolean;
  backup: string;
  doctor_max_head_age_minutes: number;
  smtp_url: string;
  smtp_from: string;
}>;

/** The configuration cannot be run as given; the message names the setting to change. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/**
 * Test mode asked for explicitly beside a real network would let simulated money reach a balance
 * that real payouts draw on: refused, whatever else is configured.
 */
function testMode(forced: boolean | undefined, networks: Record<string, NetworkConfig>): boolean {
  const real = realNetworkCodes(networks);
  if (forced === true && real.length > 0) {
    throw new ConfigError(
      `SATCHEL_SIMULATOR (config file: "simulator") turns on test mode, which cannot run beside real networks (${real.join(', ')}): ` +
        'simulated money would reach balances that real payouts draw on. Unset it, or make every network simulated.',
    );
  }
  return forced ?? real.length === 0;
}

/** Why an `explorer_url` setting is refused, or null when it is usable (http(s), with `{txid}`). */
export function explorerSettingProblem(value: unknown): string | null {
  if (typeof value !== 'string') return 'must be a text: an http(s) address with {txid} where the transaction id goes';
  if (!value.includes('{txid}')) return 'must contain {txid}, where the transaction id goes';
  let url: URL;
  try {
    url = new URL(value.replace('{txid}', 'txid'));
  } catch {
    return 'is not an address';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must start with http:// or https://';
  return null;
}

function checkNetworks(networks: Record<string, NetworkConfig>): Record<string, NetworkConfig> {
  for (const [code, n] of Object.entries(networks)) {
    if (n?.explorer_url === undefined) continue;
    const problem = explorerSettingProblem(n.explorer_url);
    if (problem) throw new ConfigError(`networks.${code}.explorer_url ${problem}`);
  }
  return networks;
}

/** The `driver` setting's default: a network nobody configured runs on the simulated chain. */
export const SIMULATED_DRIVER = 'simulated';

/** The driver a network's settings name (src/chain/networks.ts answers every question built on it). */
export function driverOf(settings: NetworkConfig | undefined): string {
  return settings?.driver ?? SIMULATED_DRIVER;
}

/**
 * Whether a network runs on the simulated chain rather than a real one: the one rule. Once the
 * chains exist everything asks `ctx.chains.isSimulated` (src/chain/networks.ts), which reads it;
 * test mode and the start checks, which run before, read it here.
 */
export function isSimulatedSetting(settings: NetworkConfig | undefined): boolean {
  return driverOf(settings) === SIMULATED_DRIVER;
}

/** The configured networks that run on a real chain, upper-cased. */
export function realNetworkCodes(networks: Record<string, NetworkConfig>): string[] {
  return Object.entries(networks)
    .filter(([, n]) => !isSimulatedSetting(n))
    .map(([code]) => code.toUpperCase());
}

/** The exchange sources an operator can name under `rates.sources`, as the configuration spells them. */
export const HTTP_RATE_SOURCES = ['binance', 'binance_p2p', 'kucoin', 'exmo'] as const;
export type HttpRateSourceKey = (typeof HTTP_RATE_SOURCES)[number];

export interface RatesConfig {
  /** The exchange sources on, each with its API origin (undefined: the exchange's public one). */
  http: Partial<Record<HttpRateSourceKey, { url?: string }>>;
  /** The shipped (or `file`) price table; a source only when enabled. */
  static: { enabled: boolean; file?: string };
  maxAgeSeconds: number;
  /** Decimal string: a quote further than this from the median of the fresh quotes is dropped. */
  maxDeviationPercent: string;
  /** Fresh quotes left after the outliers are dropped that a price needs. */
  minSources: number;
}

type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

function onlyKeys(o: JsonObject, keys: readonly string[], at: string): void {
  for (const k of Object.keys(o)) if (!keys.includes(k)) throw new ConfigError(`${at}.${k} is not a setting (known: ${keys.join(', ')})`);
}

/**
 * The rate sources and the freshness rule. In live mode the static table is never a source unless
 * named: a price file written months ago would price every sale at that day's price, silently.
 * In test mode it stays the default, so the embedded demo prices invoices with no network.
 */
function ratesConfig(env: NodeJS.ProcessEnv, fc: FileConfig, simulator: boolean): RatesConfig {
  const fromEnv = env.SATCHEL_RATES !== undefined && env.SATCHEL_RATES !== '';
  const at = fromEnv ? 'SATCHEL_RATES' : 'rates';
  let raw: unknown = fc.rates ?? {};
  if (fromEnv) {
    try {
      raw = JSON.parse(env.SATCHEL_RATES!);
    } catch {
      throw new ConfigError('SATCHEL_RATES is not valid JSON');
    }
  }
  if (!isObject(raw)) throw new ConfigError(`${at} must be a JSON object`);
  onlyKeys(raw, ['sources', 'max_age_seconds', 'max_deviation_percent', 'min_sources'], at);
  const file = env.SATCHEL_RATES_FILE ?? fc.rates_file;
  let http: RatesConfig['http'] = {};
  let table: RatesConfig['static'] = { enabled: simulator, file };
  if (raw.sources !== undefined) {
    if (!isObject(raw.sources)) throw new ConfigError(`${at}.sources must be an object keyed by source name`);
    table = { enabled: false, file };
    for (const [name, s] of Object.entries(raw.sources)) {
      const where = `${at}.sources.${name}`;
      if (!isObject(s)) throw new ConfigError(`${where} must be an object`);
      if (s.enabled !== undefined && typeof s.enabled !== 'boolean') throw new ConfigError(`${where}.enabled must be true or false`);
      if (name === 'static') {
        onlyKeys(s, ['enabled', 'file'], where);
        if (s.file !== undefined && (typeof s.file !== 'string' || s.file === '')) throw new ConfigError(`${where}.file must be a file path`);
        table = { enabled: s.enabled === true, file: (s.file as string | undefined) ?? file };
        continue;
      }
      if (!(HTTP_RATE_SOURCES as readonly string[]).includes(name)) {
        throw new ConfigError(`${where}: unknown rate source (known: ${[...HTTP_RATE_SOURCES, 'static'].join(', ')})`);
      }
      onlyKeys(s, ['url', 'enabled'], where);
      if (s.url !== undefined && (typeof s.url !== 'string' || !/^https?:\/\/[^/]/.test(s.url))) throw new ConfigError(`${where}.url must be an http(s) URL`);
      if (s.enabled !== false) http[name as HttpRateSourceKey] = s.url === undefined ? {} : { url: s.url as string };
    }
  } else if (bool(env.SATCHEL_HTTP_RATES) ?? fc.http_rates ?? !simulator) {
    http = Object.fromEntries(HTTP_RATE_SOURCES.map((k) => [k, {}]));
  }
  const enabled = Object.keys(http).length + (table.enabled ? 1 : 0);
  if (enabled === 0) {
    throw new ConfigError(
      `No rate source is enabled (${at}.sources). In live mode the static price table is a source only when named ` +
        '("static": {"enabled": true}); list the exchanges to use, or set SATCHEL_HTTP_RATES=1.',
    );
  }
  if (table.enabled && table.file !== undefined && !existsSync(table.file)) {
    throw new ConfigError(`The static rate table ${table.file} does not exist (${at}.sources.static.file, SATCHEL_RATES_FILE)`);
  }
  const maxAge = raw.max_age_seconds ?? 60;
  if (typeof maxAge !== 'number' || !Number.isFinite(maxAge) || maxAge <= 0) throw new ConfigError(`${at}.max_age_seconds must be a number of seconds above 0`);
  const band = raw.max_deviation_percent ?? 2;
  const bandText = typeof band === 'number' || typeof band === 'string' ? String(band) : '';
  if (!/^\d+(\.\d+)?$/.test(bandText)) throw new ConfigError(`${at}.max_deviation_percent must be a percentage of 0 or more`);
  const min = raw.min_sources ?? 1;
  if (typeof min !== 'number' || !Number.isInteger(min) || min < 1) throw new ConfigError(`${at}.min_sources must be a whole number of 1 or more`);
  if (min > enabled) throw new ConfigError(`${at}.min_sources is ${min}, more than the ${enabled} rate source(s) enabled`);
  return { http, static: table, maxAgeSeconds: maxAge, maxDeviationPercent: Decimal.parse(bandText).toString(), minSources: min };
}

/** The SMTP settings, or undefined without `smtp_url`; an unusable one is refused at start. */
function smtpConfig(env: NodeJS.ProcessEnv, fc: FileConfig): SmtpSettings | undefined {
  const read = readSmtpSettings(env.SATCHEL_SMTP_URL || fc.smtp_url, env.SATCHEL_SMTP_FROM || fc.smtp_from);
  if (read && 'problem' in read) throw new ConfigError(read.problem);
  return read;
}

function trustProxy(v: boolean | number | string | undefined): boolean | number | string {
  if (v === undefined || v === '' || v === false || v === 'false') return false;
  if (v === true || v === 'true') return true;
  if (typeof v === 'number' || /^\d+$/.test(v)) return Number(v);
  return v;
}

/** A whole number at least `min`, or a ConfigError naming the setting. */
function count(name: string, v: string | number | undefined, fallback: number, min: number): number {
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < min) throw new ConfigError(`${name} must be a whole number of at least ${min} (got ${String(v)}).`);
  return n;
}

function bool(v: string | undefined): boolean | undefined {
  if (v === undefined || v === '') return undefined;
  return ['1', 'true', 'yes', 'on'].includes(v.toLowerCase());
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const file = env.SATCHEL_CONFIG ?? (existsSync('satchel.config.json') ? 'satchel.config.json' : undefined);
  const fc: FileConfig = file ? (JSON.parse(readFileSync(file, 'utf8')) as FileConfig) : {};
  const port = Number(env.PORT ?? fc.port ?? 8080);
  const dataDir = resolve(env.SATCHEL_DATA_DIR ?? fc.data_dir ?? './data');
  const networks: Record<string, NetworkConfig> = { ...(fc.networks ?? {}) };
  if (env.SATCHEL_NETWORKS) Object.assign(networks, JSON.parse(env.SATCHEL_NETWORKS) as Record<string, NetworkConfig>);
  for (const [code, n] of Object.entries(networks)) {
    if (n?.enabled !== undefined && typeof n.enabled !== 'boolean') throw new ConfigError(`networks.${code}.enabled must be true or false`);
  }
  const role = (env.SATCHEL_ROLE ?? fc.role ?? 'all') as Config['role'];
  if (!['all', 'api', 'worker'].includes(role)) throw new Error(`SATCHEL_ROLE must be all, api or worker`);
  const mnemonicFile = env.SATCHEL_MNEMONIC_FILE ?? fc.mnemonic_file;
  let mnemonic: string | undefined;
  const simulator = testMode(bool(env.SATCHEL_SIMULATOR) ?? fc.simulator, networks);
  return {
    host: env.HOST ?? fc.host ?? '127.0.0.1',
    port,
    dataDir,
    databaseUrl: env.DATABASE_URL || fc.database_url || undefined,
    publicUrl: (env.SATCHEL_PUBLIC_URL ?? fc.public_url ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    role,
    registryFile: env.SATCHEL_REGISTRY_FILE ?? fc.registry_file,
    rates: ratesConfig(env, fc, simulator),
    commission: { ...(fc.commission ?? {}), ...(env.SATCHEL_COMMISSION ? (JSON.parse(env.SATCHEL_COMMISSION) as Record<string, string>) : {}) },
    allowPrivateCallbacks: bool(env.SATCHEL_ALLOW_PRIVATE_CALLBACKS) ?? fc.allow_private_callbacks ?? false,
    networks: checkNetworks(networks),
    logLevel: env.LOG_LEVEL ?? fc.log_level ?? 'info',
    trustProxy: trustProxy(env.SATCHEL_TRUST_PROXY ?? fc.trust_proxy),
    payerRateLimit: Number(env.SATCHEL_PAYER_RATE_LIMIT ?? fc.payer_rate_limit ?? 600),
    bodyLimit: 64 * 1024,
    bodyDeadlineMs: count('SATCHEL_BODY_DEADLINE_MS', env.SATCHEL_BODY_DEADLINE_MS ?? fc.body_deadline_ms, 10_000, 100),
    maxConnections: count('SATCHEL_MAX_CONNECTIONS', env.SATCHEL_MAX_CONNECTIONS ?? fc.max_connections, 1000, 0),
    maxConnectionsPerAddress: count('SATCHEL_MAX_CONNECTIONS_PER_ADDRESS', env.SATCHEL_MAX_CONNECTIONS_PER_ADDRESS ?? fc.max_connections_per_address, 64, 0),
    workerIntervalMs: Number(env.SATCHEL_WORKER_INTERVAL_MS ?? fc.worker_interval_ms ?? 500),
    shutdownTimeoutMs: Number(env.SATCHEL_SHUTDOWN_TIMEOUT_MS ?? fc.shutdown_timeout_ms ?? 25_000),
    dbStartWaitMs: Number(env.SATCHEL_DB_START_WAIT_MS ?? fc.db_start_wait_ms ?? 60_000),
    payoutStuckTimeoutMs: 1000 * Number(env.SATCHEL_PAYOUT_STUCK_TIMEOUT_SECONDS ?? fc.payout_stuck_timeout_seconds ?? 3600),
    webhookTimeoutMs: Number(env.SATCHEL_WEBHOOK_TIMEOUT_MS ?? fc.webhook_timeout_ms ?? 10_000),
    recurrenceGraceMs: 3_600_000 * count('SATCHEL_RECURRENCE_GRACE_HOURS', env.SATCHEL_RECURRENCE_GRACE_HOURS ?? fc.recurrence_grace_hours, 72, 0),
    webhookTargetLimit: Math.max(1, Number(env.SATCHEL_WEBHOOK_TARGET_LIMIT ?? fc.webhook_target_limit ?? 8)),
    chainPollTimeoutMs: Number(env.SATCHEL_CHAIN_POLL_TIMEOUT_MS ?? fc.chain_poll_timeout_ms ?? 30_000),
    payoutLeaseMs: Number(env.SATCHEL_PAYOUT_LEASE_MS ?? fc.payout_lease_ms ?? 60_000),
    nodeCheckIntervalMs: Number(env.SATCHEL_NODE_CHECK_INTERVAL_MS ?? fc.node_check_interval_ms ?? 15_000),
    simulator,
    mnemonic: () => (mnemonic ??= readMnemonic(env.SATCHEL_MNEMONIC, mnemonicFile, dataDir)),
    mnemonicSource: env.SATCHEL_MNEMONIC ? { kind: 'env' } : mnemonicFile ? { kind: 'file', path: resolve(mnemonicFile) } : { kind: 'generated', path: join(dataDir, 'hd-seed.secret') },
    backup: env.SATCHEL_BACKUP || fc.backup || undefined,
    payoutKeyFile: env.SATCHEL_PAYOUT_KEY_FILE || undefined,
    doctorMaxHeadAgeMinutes: Number(env.SATCHEL_DOCTOR_MAX_HEAD_AGE_MINUTES ?? fc.doctor_max_head_age_minutes ?? 10),
    smtp: smtpConfig(env, fc),
  };
}

/** The HD seed comes from the environment, a secret file, or (for a fresh embedded install) a
 * secret file generated once in the data folder. It is never stored in the database or logged. */
function readMnemonic(fromEnv: string | undefined, file: string | undefined, dataDir: string): string {
  if (fromEnv) return check(fromEnv.trim(), 'SATCHEL_MNEMONIC');
  if (file) return check(readFileSync(file, 'utf8').trim(), file);
  const generated = join(dataDir, 'hd-seed.secret');
  if (existsSync(generated)) return check(readFileSync(generated, 'utf8').trim(), generated);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const m = generateMnemonic(wordlist, 256);
  writeFileSync(generated, m + '\n', { mode: 0o600, flag: 'wx' });
  chmodSync(generated, 0o600);
  return m;
}

function check(m: string, where: string): string {
  if (!validateMnemonic(m, wordlist)) throw new Error(`The HD mnemonic in ${where} is not a valid BIP-39 phrase`);
  return m;
}
