// Status polling: every few seconds while the page is visible, slower when it is hidden,
// backing off on errors, and stopping once the payable reaches a final state (or, for a state a
// late payment can still change, looking again only every 30 s while the page is visible).
import type { LoadResult } from './api.ts';

export interface PollerOptions<T> {
  load(etag: string | null, signal: AbortSignal): Promise<LoadResult<T>>;
  onData(data: T): void;
  /** Called after every failed attempt with the number of failures in a row. */
  onError(failures: number, error: unknown): void;
  /** Called after a successful attempt that followed failures. */
  onRecovered(): void;
  /** Errors after which retrying is pointless (e.g. 404): polling stops. */
  isFatal(error: unknown): boolean;
  isFinal(data: T): boolean;
  /** Settled for now but may still change (an expired invoice paid late): poll every
   * `dormantMs` while visible, not at all while hidden. */
  isDormant?(data: T): boolean;
  /** Already known (embedded in the HTML): the first poll waits a normal interval and sends its ETag. */
  initial?: { etag: string | null; data: T };
  visibleMs?: number;
  dormantMs?: number;
  hiddenMs?: number;
  maxBackoffMs?: number;
  doc?: Pick<Document, 'visibilityState' | 'addEventListener' | 'removeEventListener'>;
}

export interface Poller {
  start(): void;
  stop(): void;
  /** Poll now (e.g. after a simulated payment), without waiting for the timer. */
  poll(): void;
  /** Replace the known state (after a POST returned it): in-flight answers are discarded. */
  reset(etag: string | null, final: boolean): void;
}

export const VISIBLE_INTERVAL_MS = 3_000;
export const HIDDEN_INTERVAL_MS = 15_000;
export const MAX_BACKOFF_MS = 30_000;
export const DORMANT_INTERVAL_MS = 30_000;

export function createPoller<T>(options: PollerOptions<T>): Poller {
  const visibleMs = options.visibleMs ?? VISIBLE_INTERVAL_MS;
  const hiddenMs = options.hiddenMs ?? HIDDEN_INTERVAL_MS;
  const maxBackoffMs = options.maxBackoffMs ?? MAX_BACKOFF_MS;
  const dormantMs = options.dormantMs ?? DORMANT_INTERVAL_MS;
  const doc = options.doc ?? document;

  let etag: string | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let controller: AbortController | null = null;
  let failures = 0;
  let running = false;
  let finished = false;
  let generation = 0;
  let again = false;
  let dormant = false;

  const hidden = () => doc.visibilityState === 'hidden';

  function delay(): number {
    const base = dormant ? dormantMs : hidden() ? hiddenMs : visibleMs;
    if (failures === 0) return base;
    return Math.max(base, Math.min(maxBackoffMs, visibleMs * 2 ** failures));
  }

  function schedule(ms: number) {
    clearTimer();
    if (!running || finished) return;
    timer = setTimeout(tick, ms);
  }

  function clearTimer() {
    if (timer !== null) clearTimeout(timer);
    timer = null;
  }

  async function tick() {
    timer = null;
    if (!running || finished) return;
    if (dormant && hidden()) return; // resumes when shown again
    if (controller) {
      again = true;
      return;
    }
    const mine = ++generation;
    controller = new AbortController();
    try {
      const result = await options.load(etag, controller.signal);
      if (mine !== generation || !running) return;
      const hadFailures = failures > 0;
      failures = 0;
      if (hadFailures) options.onRecovered();
      if (result.changed) {
        etag = result.etag;
        if (options.isFinal(result.data)) finished = true;
        dormant = options.isDormant?.(result.data) ?? false;
        options.onData(result.data);
      }
    } catch (error) {
      if (mine !== generation || !running) return;
      if (options.isFatal(error)) {
        finished = true;
        options.onError(++failures, error);
        return;
      }
      failures += 1;
      options.onError(failures, error);
    } finally {
      if (mine === generation) controller = null;
    }
    if (again) {
      again = false;
      schedule(0);
    } else {
      schedule(delay());
    }
  }

  function onVisibility() {
    // Coming back to the tab: check at once instead of waiting out the slow hidden interval.
    if (hidden() || !running || finished) return;
    if (timer === null && controller === null) schedule(0); // dormant, paused while hidden
    else if (timer !== null && failures === 0) schedule(0);
  }

  return {
    start() {
      if (running) return;
      running = true;
      doc.addEventListener('visibilitychange', onVisibility);
      const known = options.initial;
      if (!known) return schedule(0);
      etag = known.etag;
      finished = options.isFinal(known.data);
      dormant = options.isDormant?.(known.data) ?? false;
      schedule(delay());
    },
    stop() {
      running = false;
      clearTimer();
      controller?.abort();
      controller = null;
      generation++;
      doc.removeEventListener('visibilitychange', onVisibility);
    },
    poll() {
      if (controller) again = true;
      else schedule(0);
    },
    reset(newEtag, final) {
      etag = newEtag;
      generation++;
      controller?.abort();
      controller = null;
      again = false;
      dormant = false;
      finished = final;
      if (final) clearTimer();
      else schedule(delay());
    },
  };
}
