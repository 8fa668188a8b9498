// Addresses for the pool, derived off the main thread. An address costs an elliptic-curve
// multiplication and its QR image some hundreds of microseconds more: on the request thread, a
// refill under load took as much CPU as the requests themselves. One worker thread per process
// does it instead; the main thread only reserves indexes and stores the rows.
//
// When the thread cannot start or dies, derivation falls back to this thread (with a turn of the
// event loop between addresses), so a refill never fails for want of the thread.
import { Worker } from 'node:worker_threads';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AddressFormatRules, NetworkChain } from './types.ts';
import type { WatchOnlyCustody } from '../family.ts';
import type { NetworkDef } from '../../registry/index.ts';
import { cachedDeriver } from './index.ts';
import { qrDataUrl } from '../../qr/png.ts';
import { depositQrContent } from './uri.ts';

/** What is derived: the format's rules, and the seed, coin type and chain to derive with. */
export interface PoolRequest {
  rules: AddressFormatRules;
  seed: Uint8Array;
  coinType: number;
  chain: NetworkChain;
  start: number;
  count: number;
}

/** A request as the thread gets it: the rules by where it loads them from. */
export interface PoolJob extends Omit<PoolRequest, 'rules'> {
  id: number;
  module: AddressFormatRules['module'];
}

export interface PooledAddress {
  idx: number;
  address: string;
  path: string;
  /** data:image/png;base64 QR code of the address (of its payment URI, for a deposit key). */
  qr: string;
}

/** Addresses of a merchant's watch-only material: derived by the family's WatchOnlyCustody, loaded by module. */
export interface WatchRequest {
  watchOnly: WatchOnlyCustody;
  /** The network's address format: a deposit key's QR is its payment URI (./uri.ts, depositQrContent). */
  rules: AddressFormatRules;
  network: NetworkDef;
  material: string;
  custodyId: string;
  start: number;
  count: number;
}

export interface WatchJob extends Omit<WatchRequest, 'watchOnly' | 'rules'> {
  id: number;
  kind: 'watch';
  module: WatchOnlyCustody['module'];
  format: AddressFormatRules['module'];
}

export type PoolResult = { id: number; rows: PooledAddress[] } | { id: number; error: string };

let thread: Worker | null = null;
let broken = false;
let nextId = 0;
let threadJobs = 0;
const waiting = new Map<number, { resolve: (rows: PooledAddress[]) => void; reject: (e: Error) => void }>();

function failAll(e: Error): void {
  for (const w of waiting.values()) w.reject(e);
  waiting.clear();
}

function start(): Worker | null {
  if (thread || broken) return thread;
  try {
    // Not the parent's loader flags (the entry registers tsx itself); a CPU profile, if asked for.
    const execArgv = process.execArgv.filter((a) => a.startsWith('--cpu-prof'));
    const w = new Worker(new URL('./pool-thread-entry.js', import.meta.url), { execArgv });
    w.unref();
    w.on('message', (r: PoolResult) => {
      const p = waiting.get(r.id);
      if (!p) return;
      waiting.delete(r.id);
      if ('error' in r) return p.reject(new Error(r.error));
      threadJobs++;
      p.resolve(r.rows);
    });
    w.on('error', (e) => {
      broken = true;
      thread = null;
      failAll(e);
    });
    w.on('exit', () => {
      thread = null;
      failAll(new Error('address pool thread exited'));
    });
    thread = w;
  } catch {
    broken = true;
  }
  return thread;
}

async function inline(job: PoolRequest): Promise<PooledAddress[]> {
  // One by one, yielding between them: this runs on the thread that serves requests.
  const derive = cachedDeriver(job.rules, job.seed, job.coinType, job.chain);
  const rows: PooledAddress[] = [];
  for (let idx = job.start; idx < job.start + job.count; idx++) {
    const { address, path } = derive(idx);
    rows.push({ idx, address, path, qr: await qrDataUrl(address) });
    await nextTurn();
  }
  return rows;
}

/** Addresses `start` .. `start + count - 1` with their QR codes, from the pool thread when it runs. */
export async function derivePooled(job: PoolRequest): Promise<PooledAddress[]> {
  const w = start();
  if (!w) return inline(job);
  const id = nextId++;
  try {
    return await new Promise<PooledAddress[]>((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      w.ref();
      const { rules, ...rest } = job;
      w.postMessage({ ...rest, id, module: rules.module } satisfies PoolJob);
    }).finally(() => {
      if (waiting.size === 0) w.unref();
    });
  } catch {
    return inline(job);
  }
}

/** Batches the pool thread has derived in this process (for tests and diagnostics). */
export function poolThreadJobs(): number {
  return threadJobs;
}

/** Deposit addresses `start` .. `start + count - 1` of a watch-only material, with their QR codes,
 * from the pool thread when it runs (else here, a turn between each). */
export async function derivePooledWatch(job: WatchRequest): Promise<PooledAddress[]> {
  const here = async () => {
    const rows: PooledAddress[] = [];
    for (let idx = job.start; idx < job.start + job.count; idx++) {
      const { address, path } = job.watchOnly.deposit(job.network, job.material, job.custodyId, idx);
      rows.push({ idx, address, path, qr: await qrDataUrl(depositQrContent(job.rules, job.network, address)) });
      await nextTurn();
    }
    return rows;
  };
  const w = start();
  if (!w) return here();
  const id = nextId++;
  try {
    return await new Promise<PooledAddress[]>((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      w.ref();
      const { watchOnly, rules, ...rest } = job;
      w.postMessage({ ...rest, id, kind: 'watch', module: watchOnly.module, format: rules.module } satisfies WatchJob);
    }).finally(() => {
      if (waiting.size === 0) w.unref();
    });
  } catch {
    return here();
  }
}
