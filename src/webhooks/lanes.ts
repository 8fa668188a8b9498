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
  private wake: (() => void) | null = null;

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
   * target already has `perTarget` groups waiting: hand them back rather than hold their leases.
   */
  add(groups: readonly G[]): G[] {
    const away: G[] = [];
    for (const g of groups) {
      const k = g.target.key;
      if ((this.queued.get(k) ?? 0) >= this.o.perTarget) {
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

  /** URL prefixes of the targets that can take nothing more now: a claim leaves their webhooks. */
  skipped(): string[] {
    const out: string[] = [];
    for (const [k, n] of this.queued) if (n >= this.o.perTarget) out.push(...(this.prefixes.get(k) ?? []));
    return out;
  }

  /** Takes out the groups not begun (shutting down, or the database failed): hand them back. */
  takeWaiting(): G[] {
    const out = this.waiting.splice(0);
    for (const g of out) this.count(this.queued, g.target.key, -1);
    return out;
  }

  /** Resolves when a lane frees, after `ms`, or when `signal` aborts, whichever comes first. */
  async pause(ms: number, signal?: AbortSignal, onFree = true): Promise<void> {
    if (signal?.aborted) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        if (this.wake === done) this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
      if (onFree) this.wake = done;
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
          this.wake?.();
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
