// When a recurrence's periods start. Counted from an anchor, never from the previous date, so that a
// month end keeps its day: a subscription anchored on Jan 31 renews on Feb 28 (29 in a leap year),
// then Mar 31, Apr 30, May 31. Times of day are kept, in UTC.
import type { RecurrencePeriod } from '../contracts/merchant-api/recurrences.ts';

const DAY_MS = 86_400_000;

/** `anchor` moved `months` calendar months on, its day of the month clamped to the month's last. */
export function addMonths(anchor: number, months: number): number {
  const d = new Date(anchor);
  const target = d.getUTCMonth() + months;
  const year = d.getUTCFullYear() + Math.floor(target / 12);
  const month = ((target % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return Date.UTC(year, month, Math.min(d.getUTCDate(), lastDay), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
}

/** `anchor` moved on by `count` periods. */
export function addPeriods(anchor: number, period: RecurrencePeriod, count: number): number {
  switch (period) {
    case 'weekly':
      return anchor + count * 7 * DAY_MS;
    case 'monthly':
      return addMonths(anchor, count);
    case 'three_month':
      return addMonths(anchor, 3 * count);
  }
}

/** When period `index` starts, for a schedule whose period `anchorPeriod` starts at `anchorAt`. */
export function periodStart(s: { anchor_at: number; anchor_period: number; period: RecurrencePeriod }, index: number): number {
  return addPeriods(s.anchor_at, s.period, index - s.anchor_period);
}

export function days(n: number): number {
  return n * DAY_MS;
}
