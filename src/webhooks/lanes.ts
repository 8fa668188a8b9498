// Which claimed webhook starts next. The deliverer's lanes take work as they free up, and no
// callback target (scheme, host and port) holds more than `perTarget` of them: a merchant whose
// receiver hangs keeps only its own deliveries waiting, never the lanes other merchants need.

/** Where a callback goes, as the lanes count it. */
export interface TargetOf {
  /** scheme://host:port, normalised: the unit the per-target cap counts. */
  key: string;
  /** The URL's text up to its path, exactly as stored: what a claim compares to skip the target. */
  prefix: string;
}

export function targetOf(url: string): TargetOf {
  const start = url.indexOf('://');
  const rest = start < 0 ? -1 : url.slice(start + 3).search(/[/?#]/);
  const prefix = rest < 0 ? url : url.slice(0, start + 3 + rest);
  try {
    const u = new URL(url);
    return { key: `${u.protocol}//${u.host}`, prefix };
  } catch {
    return { key: prefix.toLowerCase(), prefix };
  }
}

/** A unit of work for one lane: the webhooks about one thing, sent one after another. */
export interface LaneWork {
  target: TargetOf;
}

export interface LanesOptions<G> {
  lanes: number;
  perTarget: number;
  /**
   * Groups held waiting per target (each holds a lease); more are turned away. A target is left out
   * of claims from half of it until it drains below half again: one claim refills it, rather than a
   * claim for every delivery. Infinity (one claim, then done): everything claimed is kept.
   */
  waitingPerTarget: number;
  work: (g: G) => Promise<void>;
}

export class Lanes<G extends LaneWork> {
  private readonly waiting: G[] = [];
  /** Per target: groups under way, and groups waiting for a slot. */
  private readonly busy = new Map<string, number>();
  private readonly queued = new Map<string, number>();
  /** Per target: the URL prefixes seen while it has work here (what a claim skips once it is full). */
  private readonly prefixes = new Map<string, Set<string>>();
  private readonly running = new Set<Promise<void>>();
  /** The coordinator's pause: what ends it early (any lane freeing, or a target getting room). */
  private wake: { on: 'lane' | 'room'; done: () => void } | null = null;

  constructor(private readonly o: LanesOptions<G>) {}

  /** Lanes at work. */
  get active(): number {
    return this.running.size;
  }

  /** A lane is free and nothing waiting can use it: time to claim more. */
  get hungry(): boolean {
    return this.running.size < this.o.lanes;
  }

  /**
   * Queues groups and starts what the caps allow. Returns the groups turned away because their
   * target already has `waitingPerTarget` groups waiting: hand them back rather than hold their leases.
   */
  add(groups: readonly G[]): G[] {
    const away: G[] = [];
    for (const g of groups) {
      const k = g.target.key;
      if ((this.queued.get(k) ?? 0) >= this.o.waitingPerTarget) {
        away.push(g);
        this.prefixesOf(k).add(g.target.prefix);
        continue;
      }
      this.prefixesOf(k).add(g.target.prefix);
      this.queued.set(k, (this.queued.get(k) ?? 0) + 1);
      this.waiting.push(g);
    }
    this.dispatch();
    return away;
  }

  /** URL prefixes of the targets with enough waiting: a claim leaves their webhooks. */
  skipped(): string[] {
    const out: string[] = [];
    for (const [k, n] of this.queued) if (this.full(n)) out.push(...(this.prefixes.get(k) ?? []));
    return out;
  }

  private full(queued: number): boolean {
    return queued >= this.o.waitingPerTarget / 2;
  }

  /** Takes out the groups not begun (shutting down, or the database failed): hand them back. */
  takeWaiting(): G[] {
    const out = this.waiting.splice(0);
    for (const g of out) this.count(this.queued, g.target.key, -1);
    return out;
  }

  /**
   * Resolves after `ms`, when `signal` aborts, or earlier on `on`: `lane`, when any lane frees;
   * `room`, when a lane frees whose target claims no longer leave out (there may be more for it).
   */
  async pause(ms: number, signal: AbortSignal | undefined, on: 'lane' | 'room'): Promise<void> {
    if (signal?.aborted) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        if (this.wake?.done === done) this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
      this.wake = { on, done };
    });
  }

  /** Waits for every group begun (and those they let start) to end. */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  private dispatch(): void {
    for (let i = 0; i < this.waiting.length && this.running.size < this.o.lanes; ) {
      const g = this.waiting[i]!;
      const k = g.target.key;
      if ((this.busy.get(k) ?? 0) >= this.o.perTarget) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      this.count(this.queued, k, -1);
      this.count(this.busy, k, 1);
      const run: Promise<void> = this.o
        .work(g)
        .catch(() => {})
        .finally(() => {
          this.running.delete(run);
          this.count(this.busy, k, -1);
          this.dispatch();
          if (this.wake && (this.wake.on === 'lane' || !this.full(this.queued.get(k) ?? 0))) this.wake.done();
        });
      this.running.add(run);
    }
  }

  private prefixesOf(k: string): Set<string> {
    let s = this.prefixes.get(k);
    if (!s) this.prefixes.set(k, (s = new Set()));
    return s;
  }

  private count(m: Map<string, number>, k: string, by: number): void {
    const n = (m.get(k) ?? 0) + by;
    if (n > 0) m.set(k, n);
    else m.delete(k);
    if (!this.busy.has(k) && !this.queued.has(k)) this.prefixes.delete(k);
  }
}
