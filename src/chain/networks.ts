// Which driver runs each network, whether it is simulated, whether it is offered to merchants and
// payers, and how many confirmations make a transfer final: decided here and nowhere else. The
// drivers come from the chain families the composition root passes in, and `family` answers what
// the rest of the gateway asks of a network's family, so nothing in between names one.
import { driverOf, isSimulatedSetting, type Config, type NetworkConfig } from '../config.ts';
import type { Storage } from '../db/dialect.ts';
import type { CurrencyDef, NetworkDef, Registry } from '../registry/index.ts';
import type { ChainDriver, ChainLog, ChainSink, DriverFactories, NodeStatus } from './contract.ts';
import { Families, type ChainFamily } from './family.ts';
import type { NetworkReport, NotOfferedReason } from '../contracts/network-report.ts';
import { stderrLog, type GatewayLog } from '../ops/log.ts';
import { countIncident } from './incidents.ts';
import { FaultyNodeError } from './errors.ts';
import { listNodeFaults, NodeFaults, type NodeFault } from './node-faults.ts';
import { pollSignal } from './poll-signal.ts';
import { custodyMode, type CustodyMode } from './network-settings.ts';

/**
 * How far behind the newest address already read each poll reads the addresses table again. An
 * address is stamped with the time its request started and committed later (after a rate lookup,
 * say), or by another process whose clock lags: it can land behind one that was already read, and
 * reading only from the newest stamp on would never give it to the driver.
 */
const WATCH_LOOKBACK_MS = 5 * 60_000;

/** How long a caller that must see its own change (the simulator) waits for another scanner. */
const INLINE_SCAN_WAIT_MS = 15_000;

/** Longest a node may take to say its status; a start must not hang on a node that never answers. */
const STATUS_TIMEOUT_MS = 5000;

/** What the last status question to a network's node got. */
interface NodeState {
  reachable: boolean;
  /** The last answer, kept while the node is away (the table still shows the head it had). */
  status: NodeStatus | null;
}

/** The driver a network's settings name (`simulated` unless the configuration says otherwise). */
export function driverKind(networks: Record<string, NetworkConfig>, code: string): string {
  return driverOf(networks[code.toUpperCase()]);
}

export interface ChainsOptions {
  config: Config;
  registry: Registry;
  storage: Storage;
  now: () => number;
  seed: () => Uint8Array;
  /** The chain families (the composition root's table): their drivers and what else they answer. */
  families?: Families;
  /** The drivers by name; by default the families'. */
  factories?: DriverFactories;
  /** Where the drivers' lines go; by default JSON lines on stderr at the configured level (the
   * server replaces it with its own logger: `useLog`). */
  log?: GatewayLog;
}

export class Chains {
  /** Test mode: the payment simulator is on (config.ts refuses it beside a real network). */
  readonly simulator: boolean;
  private readonly drivers = new Map<string, ChainDriver>();
  /** Per network: the newest address stamp given to its driver (0: none yet, give them all). */
  private readonly watchedSince = new Map<string, number>();
  /** Per network: the start of the last scan recorded in chain_scans. */
  private readonly lastNoted = new Map<string, number>();
  /** Per network: what its node said when last asked (checkNodes). */
  private readonly nodes = new Map<string, NodeState>();
  /**
   * Real networks whose node did not answer the first time this process asked, and has not
   * answered since. Such a configuration is ambiguous (a node still starting, a wrong URL): the
   * network is neither simulated nor offered until the node answers.
   */
  private readonly silent = new Set<string>();
  private checking: Promise<NetworkReport[]> | null = null;
  private log: GatewayLog;
  private readonly faults: NodeFaults;
  /** Alarm counts being written (close() waits for them). */
  private readonly counting = new Set<Promise<void>>();
  /** The chain families this gateway knows. */
  readonly families: Families;
  private readonly factories: DriverFactories;

  constructor(private readonly opts: ChainsOptions) {
    this.simulator = opts.config.simulator;
    this.log = opts.log ?? stderrLog(opts.config.logLevel);
    this.faults = new NodeFaults(opts.storage.db, opts.now, (level, msg, data) => this.log[level](data ?? {}, msg));
    this.families = opts.families ?? new Families([]);
    this.factories = opts.factories ?? this.families.drivers();
    for (const [code, settings] of Object.entries(opts.config.networks)) {
      const kind = driverOf(settings);
      if (!this.factories[kind]) throw new Error(`networks.${code}.driver: unknown driver "${kind}" (known: ${Object.keys(this.factories).join(', ')})`);
      const network = opts.registry.network(code);
      const mode = network ? custodyMode(settings, kind, `networks.${code}`) : null;
      if (network && mode === 'watch-only' && !this.families.of(network)?.watchOnly) {
        throw new Error(`networks.${code}.custody: driver "${kind}" cannot receive watch-only yet; set "custody": "hot" to run it with the gateway's seed`);
      }
      // A family that never receives with the gateway's seed (its payments go to the merchant's own wallet).
      const family = network ? this.families.of(network) : undefined;
      if (mode === 'hot' && !isSimulatedSetting(settings) && family && !family.custody.includes('seed')) {
        throw new Error(`networks.${code}.custody: ${network!.name} receives watch-only only (into each merchant's own wallet); remove "custody": "hot"`);
      }
    }
  }

  private def(code: string): NetworkDef {
    const network = this.opts.registry.network(code);
    if (!network) throw new Error(`Unknown network ${code.toUpperCase()}`);
    return network;
  }

  /** The family of a network of the registry, when one is plugged in (its drivers aside, the simulated driver serves it). */
  family(code: string): ChainFamily | undefined {
    const network = this.opts.registry.network(code);
    return network ? this.families.of(network) : undefined;
  }

  /** The name of the driver that runs the network. */
  kind(code: string): string {
    return driverKind(this.opts.config.networks, code);
  }

  /**
   * How the network's received funds are held (`networks.CODE.custody`): `watch-only`, the
   * default of every real driver, or `hot`. The simulated driver is always `hot`.
   */
  custodyMode(code: string): CustodyMode {
    const c = code.toUpperCase();
    return custodyMode(this.opts.config.networks[c], this.kind(c), `networks.${c}`);
  }

  /** The real networks the operator runs in hot custody (a warning at start and on the dashboard). */
  hotRealNetworks(): string[] {
    return this.opts.registry.networks.filter((n) => !this.isSimulated(n.code) && !this.isDisabled(n.code) && this.custodyMode(n.code) === 'hot').map((n) => n.code);
  }

  isSimulated(code: string): boolean {
    return isSimulatedSetting(this.opts.config.networks[code.toUpperCase()]);
  }

  /**
   * Test mode for one network: the simulator is on and the network is simulated. Only then may
   * callbacks go to private addresses without the operator's setting, and the page show its test
   * controls. With no network (a payer who has not chosen yet): only if every network is simulated.
   */
  isTestNetwork(code: string | null): boolean {
    if (!this.simulator) return false;
    return code ? this.isSimulated(code) : this.opts.registry.networks.every((n) => this.isSimulated(n.code));
  }

  /** The operator switched the network off (`networks.CODE.enabled: false`). */
  isDisabled(code: string): boolean {
    return this.opts.config.networks[code.toUpperCase()]?.enabled === false;
  }

  /**
   * Why a network of the registry is not offered, or null when it is. Not offered: switched off by
   * the operator; simulated while test mode is off (nothing watches a real chain for it, so a payer
   * who paid its address would pay into nothing); a real network whose node has not answered yet.
   */
  whyNotOffered(code: string): NotOfferedReason | null {
    if (this.isDisabled(code)) return 'disabled';
    if (this.isSimulated(code)) return this.simulator ? null : 'simulated in live mode';
    return this.silent.has(code.toUpperCase()) ? 'node not answering' : null;
  }

  /**
   * Whether merchants and payers may use the network for anything new: an invoice, a payer's
   * choice, a static wallet, a payout or refund. Every place that lists or accepts a network asks
   * this; reading what is already recorded on a network (decimals, explorer links) does not.
   */
  offered(code: string | null | undefined): boolean {
    return !!code && !!this.opts.registry.network(code) && this.whyNotOffered(code) === null;
  }

  /** The registry's networks that are offered, in registry order. */
  offeredNetworks(): NetworkDef[] {
    return this.opts.registry.networks.filter((n) => this.offered(n.code));
  }

  /** The offered networks that carry a cryptocurrency. */
  offeredNetworksOf(currency: string): NetworkDef[] {
    return this.opts.registry.networksOf(currency).filter((n) => this.offered(n.code));
  }

  /** Every offered (network, currency) pair, in registry order. */
  offeredPairs(): Array<{ network: NetworkDef; currency: CurrencyDef }> {
    return this.opts.registry.pairs().filter((p) => this.offered(p.network.code));
  }

  /**
   * Asks every enabled network's driver for its node's status (at start, then on a timer), and
   * returns the report. A real network whose node does not answer the first time is not offered
   * until a later check gets an answer; one that answered once stays offered when its node goes
   * away (payments wait for it, and /readyz and the lag metrics show it). Changes go to `log`.
   */
  checkNodes(log?: ChainLog): Promise<NetworkReport[]> {
    this.checking ??= this.askNodes(log ?? (() => {})).finally(() => (this.checking = null));
    return this.checking;
  }

  private async askNodes(log: ChainLog): Promise<NetworkReport[]> {
    await Promise.all(
      this.opts.registry.networks
        .filter((n) => !this.isDisabled(n.code))
        .map(async ({ code }) => {
          const before = this.nodes.get(code);
          try {
            const status = await withTimeout(this.driver(code).status(), STATUS_TIMEOUT_MS);
            this.nodes.set(code, { reachable: true, status });
            if (this.silent.delete(code)) log('info', `${code}: the node answers now (head ${status.head}); the network is offered`, { network: code });
          } catch (err) {
            this.nodes.set(code, { reachable: false, status: before?.status ?? null });
            if (this.isSimulated(code)) return;
            const why = err instanceof Error ? err.message : String(err);
            if (!before) {
              this.silent.add(code);
              log('warn', `${code}: the node does not answer (${why}); the network is not offered until it does`, { network: code });
            } else if (before.reachable) {
              log('warn', `${code}: the node stopped answering (${why})`, { network: code });
            }
          }
        }),
    );
    return this.report();
  }

  /** One row per network of the registry: driver, mode, custody, node, head, offered and why not. */
  report(): NetworkReport[] {
    return this.opts.registry.networks.map(({ code }) => {
      const simulated = this.isSimulated(code);
      const node = this.nodes.get(code);
      const reason = this.whyNotOffered(code);
      return {
        network: code,
        driver: this.kind(code),
        mode: simulated ? 'test' : 'live',
        custody: simulated ? 'simulated' : this.custodyMode(code),
        node_reachable: simulated ? null : (node?.reachable ?? null),
        confirmations: this.confirmations(code),
        chain: node?.status?.chain ?? null,
        head_height: node?.status?.head ?? null,
        offered: reason === null,
        reason,
      };
    });
  }

  /** Confirmations after which a transfer to, or a payment from, the network is final. */
  confirmations(code: string): number {
    const override = this.opts.config.networks[code.toUpperCase()]?.confirmations;
    return typeof override === 'number' ? override : (this.opts.registry.network(code)?.confirmations ?? 1);
  }

  /** The network's driver, built on first use. */
  driver(code: string): ChainDriver {
    const upper = code.toUpperCase();
    let d = this.drivers.get(upper);
    if (!d) {
      const network = this.def(upper);
      const kind = this.kind(upper);
      const factory = this.factories[kind];
      if (!factory) throw new Error(`Network ${upper}: unknown driver "${kind}"`);
      d = factory({
        network,
        settings: this.opts.config.networks[upper] ?? {},
        confirmations: this.confirmations(upper),
        storage: this.opts.storage,
        now: this.opts.now,
        seed: this.opts.seed,
        log: this.driverLog(upper),
        depositPaths: (addresses) => depositPaths(this.opts.storage.db, upper, addresses),
        txid: (hex) => this.families.txid(network, hex),
        dataDir: this.opts.config.dataDir,
      });
      this.drivers.set(upper, d);
    }
    return d;
  }

  /**
   * Sends the drivers' lines to `log` from now on (the server's logger, once it exists): drivers
   * built earlier follow, since their log function looks it up for every line.
   */
  useLog(log: GatewayLog): void {
    this.log = log;
  }

  /**
   * A driver's log: every line names the network. A line with an `alarm` is logged at error level
   * whatever the driver said, and counted in chain_incidents (read by /metrics in any process).
   */
  private driverLog(network: string): ChainLog {
    return (level, msg, data) => {
      const fields = { ...data, network };
      if (!data?.alarm) return this.log[level](fields, msg);
      this.log.error(fields, msg);
      const write: Promise<void> = countIncident(this.opts.storage.db, network, data.alarm, this.opts.now())
        .catch((err: unknown) => this.log.error({ err, network, alarm: data.alarm }, 'chain alarm could not be counted'))
        .finally(() => this.counting.delete(write));
      this.counting.add(write);
    };
  }

  /** Every network's driver. */
  all(): ChainDriver[] {
    return this.opts.registry.networks.map((n) => this.driver(n.code));
  }

  /**
   * One round of a network: gives its driver the deposit addresses handed out since the last
   * round (by any process: an API process allocates, a worker scans), then lets it report.
   *
   * One scanner per network, for every driver and every process: a round runs only while holding
   * the lock `scan:<NETWORK>` (PostgreSQL advisory lock; see Storage.withLock). A worker's round
   * skips a network another process is scanning (`wait` false); the simulator, which needs the
   * change it just made to be recorded before it answers, waits its turn and then scans itself
   * (what the other scanner read before that change committed cannot include it). Returns false
   * when skipped.
   */
  async poll(code: string, sink: ChainSink, opts: { wait: boolean; signal?: AbortSignal }): Promise<boolean> {
    const d = this.driver(code);
    const done = await this.opts.storage.withLock(`scan:${d.network.code}`, opts.wait ? INLINE_SCAN_WAIT_MS : 0, async () => {
      if (opts.signal?.aborted) return;
      const started = this.opts.now();
      if (d.watchesAddresses) await this.feedWatch(d);
      try {
        // The driver's node requests obey the deadline through the async context (poll-signal.ts).
        const signal = opts.signal;
        await (signal ? pollSignal.run(signal, () => d.poll(sink, signal)) : d.poll(sink));
      } catch (err) {
        if (err instanceof FaultyNodeError) await this.faults.faulty(d.network.code, err);
        throw err;
      }
      await this.faults.sane(d.network.code);
      await this.noteScanned(d.network.code, started);
    });
    return done !== null;
  }

  /** The networks whose node is judged faulty now (any process's scan), for /readyz and /metrics. */
  nodeFaults(): Promise<NodeFault[]> {
    return listNodeFaults(this.opts.storage.db);
  }

  /** Records the start of the last completed scan (the scan lag in /metrics), at most once a second
   * per network and process: a worker scans several times a second. */
  private async noteScanned(network: string, startedAt: number): Promise<void> {
    if (startedAt - (this.lastNoted.get(network) ?? 0) < 1000) return;
    this.lastNoted.set(network, startedAt);
    await this.opts.storage.db
      .insertInto('chain_scans')
      .values({ network, scanned_at: startedAt })
      .onConflict((oc) => oc.column('network').doUpdateSet({ scanned_at: startedAt }))
      .execute();
  }

  private async feedWatch(d: ChainDriver): Promise<void> {
    const code = d.network.code;
    const since = this.watchedSince.get(code) ?? 0;
    const rows = await this.opts.storage.db
      .selectFrom('addresses')
      .select(['address', 'path', 'created_at'])
      .where('network', '=', code)
      .where('created_at', '>=', since === 0 ? 0 : since - WATCH_LOOKBACK_MS)
      .execute();
    if (rows.length === 0) return;
    d.watch(rows);
    let newest = since;
    for (const r of rows) if (Number(r.created_at) > newest) newest = Number(r.created_at);
    this.watchedSince.set(code, newest);
  }

  async close(): Promise<void> {
    const all = [...this.drivers.values()];
    this.drivers.clear();
    for (const d of all) await d.close();
    await Promise.all([...this.counting]);
  }
}

/** The deposit addresses among `addresses` that the gateway handed out on `network`, with their HD paths. */
export async function depositPaths(db: Storage['db'], network: string, addresses: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const unique = [...new Set(addresses)];
  for (let i = 0; i < unique.length; i += 500) {
    const rows = await db.selectFrom('addresses').select(['address', 'path']).where('network', '=', network).where('address', 'in', unique.slice(i, i + 500)).execute();
    for (const r of rows) out.set(r.address, r.path);
  }
  return out;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
