// Named mutexes inside one process. PostgreSQL's advisory locks are re-entrant within a session and
// the gateway holds them all on one session, so two local callers would otherwise both "win"; on
// SQLite (one worker process) these are the whole lock.
/** A mutex per name inside this process: the lock session is shared, and PostgreSQL's advisory
 * locks are re-entrant within a session, so two local callers would otherwise both "win". */
export class LocalLocks {
  private readonly tails = new Map<string, Promise<void>>();
  async acquire(name: string): Promise<() => void> {
    const previous = this.tails.get(name) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = previous.then(() => mine);
    this.tails.set(name, tail);
    await previous;
    return () => {
      release();
      if (this.tails.get(name) === tail) this.tails.delete(name);
    };
  }
}

