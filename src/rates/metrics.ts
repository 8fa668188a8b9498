// Each rate source's health as /metrics shows it: how old its last answer is, how often it fails
// and how far its last quote was from the median. An operator alerts on these before the engine
// starts refusing invoices for want of fresh, agreeing sources.
import type { Sample } from '../ops/metrics.ts';
import type { SourceStat } from './service.ts';

export function rateSourceSamples(stats: readonly SourceStat[], now: number): Sample[] {
  const out: Sample[] = [];
  for (const s of stats) {
    const labels = { source: s.source };
    if (s.received_at !== null) {
      out.push({ name: 'satchel_rate_source_age_seconds', help: 'Seconds since the rate source last answered (any pair)', labels, value: Math.max(0, now - s.received_at) / 1000 });
    }
    out.push({ name: 'satchel_rate_source_errors_total', help: 'Failed calls to the rate source (timeouts, HTTP errors, malformed answers)', labels, value: s.errors, type: 'counter' });
    if (s.deviation_percent !== null) {
      out.push({
        name: 'satchel_rate_source_deviation_percent',
        help: 'Signed distance in percent of the source\'s last quote from the median it was compared with',
        labels,
        value: Number(s.deviation_percent),
      });
    }
  }
  return out;
}
