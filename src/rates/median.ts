// The median of exact decimals, shared by BinanceP2P (over ads) and the engine (over sources):
// one outlier cannot move it, and it stays exact where an average of numbers would not.
import { Decimal } from '../money/decimal.ts';

/** Exact: the mean of the two middle values needs at most one more place. */
export function median(values: readonly Decimal[]): Decimal {
  const s = [...values].sort((a, b) => a.cmp(b));
  const mid = Math.floor(s.length / 2);
  const hi = s[mid];
  if (!hi) throw new RangeError('median of nothing');
  if (s.length % 2 === 1) return hi;
  const total = hi.add(s[mid - 1] ?? hi);
  return total.div('2', total.scale + 1, 'half-up');
}
