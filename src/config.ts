// Configuration: environment variables first, then an optional JSON config file, then defaults.
import { existsSync, readFileSync, writeFileSync, mkdirSync, chmodSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { generateMnemonic, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';

export interface NetworkConfig {
  driver?: string;
  rpc_url?: string;
  chain_id?: number;
  confirmations?: number;
  tokens?: Record<string, string>;
  /** EVM: a public JSON-RPC URL offered to payers' wallets that lack the chain (never the gateway's rpc_url). */
  public_rpc_url?: string;
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
  ratesFile?: string;
  enableHttpRates: boolean;
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
  /** Pause between two rounds of the background workers. */
  workerIntervalMs: number;
  /** Longest a graceful shutdown (SIGTERM) may take before the process exits anyway. */
  shutdownTimeoutMs: number;
  /** How long a payout the hot wallet cannot cover stays `process` before it fails and its funds return. */
  payoutStuckTimeoutMs: number;
  /** One webhook attempt's time limit; a claimed batch's lease is derived from it. */
  webhookTimeoutMs: number;
  /** Webhook attempts in flight at once, per worker, to one callback target (scheme, host, port). */
  webhookTargetLimit: number;
  /**
   * A network's poll that runs longer than this is reported (log, metric) and told to stop; its
   * next round waits until it has ended. Other networks and jobs never wait for it.
   */
  chainPollTimeoutMs: number;
  /** How long a claimed payout is left to its worker before another may send it. */
  payoutLeaseMs: number;
  /**
   * Test mode: the payment simulator (/simulator/*, `satchel simulate`) is on. Default: on while
   * every network uses the simulated driver, off as soon as one is real, so that simulated money
   * can never reach a balance that real payouts draw on.
   */
  simulator: boolean;
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
  commission: Record<string, string>;
  allow_private_callbacks: boolean;
  networks: Record<string, NetworkConfig>;
  log_level: string;
  mnemonic_file: string;
  payer_rate_limit: number;
  trust_proxy: boolean | number | string;
  worker_interval_ms: number;
  shutdown_timeout_ms: number;
  payout_stuck_timeout_seconds: number;
  webhook_timeout_ms: number;
  webhook_target_limit: number;
  chain_poll_timeout_ms: number;
  payout_lease_ms: number;
  simulator: boolean;
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
  const real = Object.entries(networks)
    .filter(([, n]) => driverOf(n) !== SIMULATED_DRIVER)
    .map(([code]) => code.toUpperCase());
  if (forced === true && real.length > 0) {
    throw new ConfigError(
      `SATCHEL_SIMULATOR (config file: "simulator") turns on test mode, which cannot run beside real networks (${real.join(', ')}): ` +
        'simulated money would reach balances that real payouts draw on. Unset it, or make every network simulated.',
    );
  }
  return forced ?? real.length === 0;
}

/** The `driver` setting's default: a network nobody configured runs on the simulated chain. */
export const SIMULATED_DRIVER = 'simulated';

/** The driver a network's settings name (src/chain/networks.ts answers every question built on it). */
export function driverOf(settings: NetworkConfig | undefined): string {
  return settings?.driver ?? SIMULATED_DRIVER;
}

function trustProxy(v: boolean | number | string | undefined): boolean | number | string {
  if (v === undefined || v === '' || v === false || v === 'false') return false;
  if (v === true || v === 'true') return true;
  if (typeof v === 'number' || /^\d+$/.test(v)) return Number(v);
  return v;
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
  const role = (env.SATCHEL_ROLE ?? fc.role ?? 'all') as Config['role'];
  if (!['all', 'api', 'worker'].includes(role)) throw new Error(`SATCHEL_ROLE must be all, api or worker`);
  const mnemonicFile = env.SATCHEL_MNEMONIC_FILE ?? fc.mnemonic_file;
  let mnemonic: string | undefined;
  return {
    host: env.HOST ?? fc.host ?? '127.0.0.1',
    port,
    dataDir,
    databaseUrl: env.DATABASE_URL || fc.database_url || undefined,
    publicUrl: (env.SATCHEL_PUBLIC_URL ?? fc.public_url ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    role,
    registryFile: env.SATCHEL_REGISTRY_FILE ?? fc.registry_file,
    ratesFile: env.SATCHEL_RATES_FILE ?? fc.rates_file,
    enableHttpRates: bool(env.SATCHEL_HTTP_RATES) ?? fc.http_rates ?? false,
    commission: { ...(fc.commission ?? {}), ...(env.SATCHEL_COMMISSION ? (JSON.parse(env.SATCHEL_COMMISSION) as Record<string, string>) : {}) },
    allowPrivateCallbacks: bool(env.SATCHEL_ALLOW_PRIVATE_CALLBACKS) ?? fc.allow_private_callbacks ?? false,
    networks,
    logLevel: env.LOG_LEVEL ?? fc.log_level ?? 'info',
    trustProxy: trustProxy(env.SATCHEL_TRUST_PROXY ?? fc.trust_proxy),
    payerRateLimit: Number(env.SATCHEL_PAYER_RATE_LIMIT ?? fc.payer_rate_limit ?? 600),
    bodyLimit: 64 * 1024,
    workerIntervalMs: Number(env.SATCHEL_WORKER_INTERVAL_MS ?? fc.worker_interval_ms ?? 500),
    shutdownTimeoutMs: Number(env.SATCHEL_SHUTDOWN_TIMEOUT_MS ?? fc.shutdown_timeout_ms ?? 25_000),
    payoutStuckTimeoutMs: 1000 * Number(env.SATCHEL_PAYOUT_STUCK_TIMEOUT_SECONDS ?? fc.payout_stuck_timeout_seconds ?? 3600),
    webhookTimeoutMs: Number(env.SATCHEL_WEBHOOK_TIMEOUT_MS ?? fc.webhook_timeout_ms ?? 10_000),
    webhookTargetLimit: Math.max(1, Number(env.SATCHEL_WEBHOOK_TARGET_LIMIT ?? fc.webhook_target_limit ?? 4)),
    chainPollTimeoutMs: Number(env.SATCHEL_CHAIN_POLL_TIMEOUT_MS ?? fc.chain_poll_timeout_ms ?? 30_000),
    payoutLeaseMs: Number(env.SATCHEL_PAYOUT_LEASE_MS ?? fc.payout_lease_ms ?? 60_000),
    simulator: testMode(bool(env.SATCHEL_SIMULATOR) ?? fc.simulator, networks),
    mnemonic: () => (mnemonic ??= readMnemonic(env.SATCHEL_MNEMONIC, mnemonicFile, dataDir)),
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
