// Lookups by key that arrive together share one query. Each request that reads one row by key
// (invoice info) costs PostgreSQL a round trip, and the driver's and the server's work for it is
// several times the request's own. Keys asked for in the same turn of the event loop (the requests
// read from the sockets in one I/O phase) go out as one `= any($1)` query; while `concurrent`
// such queries are under way, new keys wait for the next. A lone request waits for no one: its
// query starts on the next turn. Every query starts after its keys were asked for, so an answer
// never predates the request (a write committed before the request is seen).

export interface BatchedLookupOptions {
  /** Queries under way at once (each holds a pooled connection). */
  concurrent: number;
  /** Keys per query at most. */
  batch: number;
}

interface Waiting<K, V> {
  key: K;
  resolve: (v: V | undefined) => void;
  reject: (e: unknown) => void;
}

export class BatchedLookup<K, V> {
  private waiting: Array<Waiting<K, V>> = [];
  private running = 0;
  private scheduled = false;

  /** `fetch` answers the rows found for `keys` by `id(key)`; a key with no row is left out. */
  constructor(
    private readonly fetch: (keys: K[]) => Promise<Map<string, V>>,
    private readonly id: (key: K) => string,
    private readonly opts: BatchedLookupOptions = { concurrent: 2, batch: 128 },
  ) {}

  load(key: K): Promise<V | undefined> {
    return new Promise<V | undefined>((resolve, reject) => {
      this.waiting.push({ key, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.running >= this.opts.concurrent || this.waiting.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    while (this.waiting.length > 0 && this.running < this.opts.concurrent) {
      const batch = this.waiting.splice(0, this.opts.batch);
      this.running++;
      let answer: Promise<Map<string, V>>;
      try {
        answer = this.fetch(batch.map((w) => w.key));
      } catch (e) {
        answer = Promise.reject(e);
      }
      answer
        .then(
          (found) => {
            for (const w of batch) w.resolve(found.get(this.id(w.key)));
          },
          (e: unknown) => {
            for (const w of batch) w.reject(e);
          },
        )
        .finally(() => {
          this.running--;
          this.schedule();
        });
    }
  }
}
