// A few Prometheus counters, rendered in the text exposition format at /metrics.

type Labels = Record<string, string>;

function key(name: string, labels: Labels): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${v.replace(/["\\\n]/g, '_')}"`);
  return parts.length ? `${name}{${parts.join(',')}}` : name;
}

export interface Sample {
  name: string;
  help: string;
  labels?: Labels;
  value: number;
  /** Default gauge; a counter read from elsewhere (a total the owner keeps) says so. */
  type?: 'gauge' | 'counter';
}

export class Metrics {
  private readonly counters = new Map<string, { help: string; values: Map<string, number> }>();
  private readonly gauges = new Map<string, { help: string; read: () => Promise<number> | number }>();
  private readonly collectors: Array<() => Promise<Sample[]>> = [];

  /** A counter always labelled with the same names, for hot paths: the series name of each
   * combination of values is built once (at most 10,000 are remembered). */
  counter(name: string, help: string, labelNames: readonly string[]): (...values: string[]) => void {
    const keys = new Map<string, string>();
    return (...values) => {
      const id = values.join('\u0000');
      let k = keys.get(id);
      if (k === undefined) {
        k = key(name, Object.fromEntries(labelNames.map((l, i) => [l, values[i] ?? ''])));
        if (keys.size < 10_000) keys.set(id, k);
      }
      this.add(name, help, k, 1);
    };
  }

  private add(name: string, help: string, k: string, by: number): void {
    let c = this.counters.get(name);
    if (!c) this.counters.set(name, (c = { help, values: new Map() }));
    c.values.set(k, (c.values.get(k) ?? 0) + by);
  }

  gauge(name: string, help: string, read: () => Promise<number> | number): void {
    this.gauges.set(name, { help, read });
  }

  /** Samples read together at each scrape (one database round trip for several of them). */
  collect(read: () => Promise<Sample[]>): void {
    this.collectors.push(read);
  }

  async render(): Promise<string> {
    const lines: string[] = [];
    for (const [name, c] of this.counters) {
      lines.push(`# HELP ${name} ${c.help}`, `# TYPE ${name} counter`);
      for (const [k, v] of c.values) lines.push(`${k} ${v}`);
    }
    for (const [name, g] of this.gauges) {
      let value: number;
      try {
        value = await g.read();
      } catch {
        continue; // the database is out of reach: no sample rather than no metrics at all
      }
      lines.push(`# HELP ${name} ${g.help}`, `# TYPE ${name} gauge`, `${name} ${value}`);
    }
    for (const read of this.collectors) {
      const byName = new Map<string, Sample[]>();
      for (const sample of await read()) byName.set(sample.name, [...(byName.get(sample.name) ?? []), sample]);
      for (const [name, samples] of byName) {
        lines.push(`# HELP ${name} ${samples[0]!.help}`, `# TYPE ${name} ${samples[0]!.type ?? 'gauge'}`);
        for (const smp of samples) lines.push(`${key(name, smp.labels ?? {})} ${smp.value}`);
      }
    }
    return lines.join('\n') + '\n';
  }
}
