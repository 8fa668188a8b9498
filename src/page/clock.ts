// The server's clock as seen from this device: the device's wall clock may be wrong, so the
// countdown runs on the server's `server_time` plus the monotonic time elapsed since it arrived.
export interface ServerClock {
  /** Record the server's time (unix ms) carried by a fresh response. */
  sync(serverTimeMs: number): void;
  /** The server's current time in unix ms, or null before the first sync. */
  now(): number | null;
}

export function createServerClock(monotonic: () => number = () => performance.now()): ServerClock {
  let offset: number | null = null;
  return {
    sync(serverTimeMs) {
      offset = serverTimeMs - monotonic();
    },
    now() {
      return offset === null ? null : offset + monotonic();
    },
  };
}

/** Whole seconds left until `expiredAtSeconds`, never negative. */
export function secondsLeft(expiredAtSeconds: number, serverNowMs: number): number {
  return Math.max(0, Math.ceil(expiredAtSeconds - serverNowMs / 1000));
}
