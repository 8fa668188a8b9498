// A small closed-loop load generator: `connections` loops, each sending its next request when the
// previous one answered, for `durationMs`. Keep-alive connections, latencies in microseconds.
import http from 'node:http';

export interface LoadResult {
  requests: number;
  errors: number;
  rps: number;
  p50ms: number;
  p99ms: number;
}

export interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export async function load(
  base: string,
  next: (i: number) => RequestSpec,
  opts: { connections?: number; durationMs?: number; expect?: (status: number) => boolean } = {},
): Promise<LoadResult> {
  const url = new URL(base);
  const connections = opts.connections ?? 50;
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const ok = opts.expect ?? ((s: number) => s >= 200 && s < 300);
  const latencies: number[] = [];
  let errors = 0;
  let counter = 0;
  const end = Date.now() + (opts.durationMs ?? 5000);
  const one = (spec: RequestSpec) =>
    new Promise<void>((resolve) => {
      const started = process.hrtime.bigint();
      const req = http.request(
        { host: url.hostname, port: url.port, method: spec.method, path: spec.path, agent, headers: { ...spec.headers, ...(spec.body ? { 'content-length': Buffer.byteLength(spec.body) } : {}) } },
        (res) => {
          res.resume();
          res.on('end', () => {
            latencies.push(Number(process.hrtime.bigint() - started) / 1000);
            if (!ok(res.statusCode ?? 0)) errors++;
            resolve();
          });
        },
      );
      req.on('error', () => {
        errors++;
        resolve();
      });
      if (spec.body) req.write(spec.body);
      req.end();
    });
  const startedAt = Date.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < end) await one(next(counter++));
    }),
  );
  const elapsed = (Date.now() - startedAt) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]! / 1000 : 0);
  return { requests: latencies.length, errors, rps: latencies.length / elapsed, p50ms: pct(0.5), p99ms: pct(0.99) };
}
