// One repeating piece of background work (a network's scan, expiry, payouts...) on its own
// schedule: a slow round delays only the next round of the same work, never another's. A round may
// have a deadline; past it the round is reported and told to stop (its signal aborts), and the
// next round still waits until it has ended, so the same work never runs twice at once here.

/** The reason a round's signal aborts when it ran past its deadline. */
export class RoundLateError extends Error {
  constructor(readonly work: string, readonly deadlineMs: number) {
    super(`${work}: still running after ${deadlineMs} ms`);
    this.name = 'RoundLateError';
  }
}

export interface LoopOptions {
  /** Aborts when the process shuts down: a round under way is told to stop, none is started. */
  shutdown: AbortSignal;
  /** A round still running after this long is reported (`onLate`) and its signal aborts. */
  deadlineMs?: number;
  onLate?: (err: RoundLateError) => void;
  onError: (err: unknown) => void;
}

export class Loop {
  private current: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private repeating: Promise<void> | null = null;
  /** Ends the pause between two rounds early (stopping). */
  private wake: (() => void) | null = null;
  private stopped = false;

  constructor(
    readonly name: string,
    private readonly run: (signal: AbortSignal) => Promise<unknown>,
    private readonly o: LoopOptions,
  ) {}

  /**
   * Runs one round unless one is under way (then nothing: never two at once). Resolves when the
   * round ends, or at its deadline when it is late (it goes on, told to stop).
   */
  async round(): Promise<void> {
    if (this.current || this.o.shutdown.aborted) return;
    const ac = new AbortController();
    const onShutdown = () => ac.abort(this.o.shutdown.reason);
    this.o.shutdown.addEventListener('abort', onShutdown, { once: true });
    const current = (this.current = this.run(ac.signal)
      .then(
        () => {},
        (err: unknown) => this.o.onError(err),
      )
      .finally(() => {
        this.o.shutdown.removeEventListener('abort', onShutdown);
        this.current = null;
      }));
    const { deadlineMs } = this.o;
    if (deadlineMs === undefined || deadlineMs <= 0) return current;
    let timer: NodeJS.Timeout | undefined;
    const late = await Promise.race([
      current.then(() => false),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), deadlineMs))),
    ]);
    clearTimeout(timer);
    if (late) {
      const err = new RoundLateError(this.name, deadlineMs);
      this.o.onLate?.(err);
      ac.abort(err);
    }
  }

  /** Repeats rounds, each `intervalMs` after the previous one ended (a late one: once it has ended). */
  start(intervalMs: number): void {
    if (this.repeating) return;
    const go = async (): Promise<void> => {
      while (!this.stopped && !this.o.shutdown.aborted) {
        await this.round();
        await this.current;
        if (this.stopped) break;
        await new Promise<void>((resolve) => {
          this.timer = setTimeout(resolve, intervalMs);
          this.wake = resolve;
        });
        this.timer = null;
      }
    };
    this.repeating = go();
  }

  /** Stops repeating and waits for the round under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.wake?.();
    await this.repeating;
    await this.current;
  }
}
