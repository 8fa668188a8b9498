// Small helpers the scanners use to ask a node for many blocks at once, a few at a time.

/** Runs `fn` over `items` with at most `limit` calls in flight; the results in the items' order. */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** Most heights one range may hold: a scan asks for a batch at a time, never more. */
const MAX_RANGE = 100_000;

/** from, from + 1, ..., to. Bounds past 2^53 (where i++ stops advancing) or a range larger than a
 * batch would loop forever or take all memory: refused. */
export function range(from: number, to: number): number[] {
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || to - from >= MAX_RANGE) {
    throw new RangeError(`range ${from}..${to}: not a bounded range of safe integers`);
  }
  const out: number[] = [];
  for (let i = from; i <= to; i++) out.push(i);
  return out;
}
