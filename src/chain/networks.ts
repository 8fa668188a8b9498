// Which driver runs each network, whether it is simulated, and how many confirmations make a
// transfer final: decided here and nowhere else. The drivers themselves come from a table of
// factories the composition root passes in, so adding a chain family touches the registry, its
// own folder under src/chain/ and that table, and nothing in between.
import { driverOf, SIMULATED_DRIVER, type Config, type NetworkConfig } from '../config.ts';
import type { Storage } from '../db/dialect.ts';
import type { NetworkDef, Registry } from '../registry/index.ts';
import type { ChainDriver, ChainLog, ChainSink, DriverFactories } from './contract.ts';
import { FaultyNodeError } from './errors.ts';
import { listNodeFaults, NodeFaults, type NodeFault } from './node-faults.ts';

/**
 * How far behind the newest address already read each poll reads the addresses table again. An
 * address is stamped with the time its request started and committed later (after a rate lookup,
 * say), or by another process whose clock lags: it can land behind one that was already read, and
 * reading only from the newest stamp on would never give it to the driver.
 */
const WATCH_LOOKBACK_MS = 5 * 60_000;

/** How long a caller that must see its own change (the simulator) waits for another scanner. */
const INLINE_SCAN_WAIT_MS = 15_000;

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
  factories: DriverFactories;
  log?: ChainLog;
}

export class Chains {
  /** Test mode (D3/D6): the payment simulator is on (config.ts refuses it beside a real network). */
  readonly simulator: boolean;
  private readonly drivers = new Map<string, ChainDriver>();
  /** Per network: the newest address stamp given to its driver (0: none yet, give them all). */
  private readonly watchedSince = new Map<string, number>();
  /** Per network: the start of the last scan recorded in chain_scans. */
  private readonly lastNoted = new Map<string, number>();
  private readonly faults: NodeFaults;

  constructor(private readonly opts: ChainsOptions) {
    this.simulator = opts.config.simulator;
    this.faults = new NodeFaults(opts.storage.db, opts.now, opts.log ?? (() => {}));
    for (const [code, settings] of Object.entries(opts.config.networks)) {
      const kind = driverOf(settings);
      if (!opts.factories[kind]) throw new Error(`networks.${code}.driver: unknown driver "${kind}" (known: ${Object.keys(opts.factories).join(', ')})`);
    }
  }

  private def(code: string): NetworkDef {
    const network = this.opts.registry.network(code);
    if (!network) throw new Error(`Unknown network ${code.toUpperCase()}`);
    return network;
  }

  /** The name of the driver that runs the network. */
  kind(code: string): string {
    return driverKind(this.opts.config.networks, code);
  }

  isSimulated(code: string): boolean {
    return this.kind(code) === SIMULATED_DRIVER;
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
      const factory = this.opts.factories[kind];
      if (!factory) throw new Error(`Network ${upper}: unknown driver "${kind}"`);
      d = factory({
        network,
        settings: this.opts.config.networks[upper] ?? {},
        confirmations: this.confirmations(upper),
        storage: this.opts.storage,
        now: this.opts.now,
        seed: this.opts.seed,
        log: this.opts.log ?? (() => {}),
      });
      this.drivers.set(upper, d);
    }
    return d;
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
  async poll(code: string, sink: ChainSink, opts: { wait: boolean }): Promise<boolean> {
    const d = this.driver(code);
    const done = await this.opts.storage.withLock(`scan:${d.network.code}`, opts.wait ? INLINE_SCAN_WAIT_MS : 0, async () => {
      const started = this.opts.now();
      if (d.watchesAddresses) await this.feedWatch(d);
      try {
        await d.poll(sink);
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
  }
}
