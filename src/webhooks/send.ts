// One HTTP attempt at a webhook: scheme and SSRF checks, then a POST with a deadline.
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { lookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { performance } from 'node:perf_hooks';
import { isPrivateAddress } from './private-address.ts';

export const USER_AGENT = 'Satchel-Webhooks/1';
export const DELIVERY_HEADER = 'x-satchel-delivery';
export const DEFAULT_TIMEOUT_MS = 10_000;
export const BLOCKED_PRIVATE = 'blocked: private address';
export const BLOCKED_SCHEME = 'blocked: only http and https callbacks';

export interface SendOptions {
  /** Sent as `x-satchel-delivery`, so a merchant can de-duplicate repeated deliveries. */
  deliveryId: string;
  /** Skip the SSRF check (operator setting or a test-mode webhook). */
  allowPrivate: boolean;
  timeoutMs?: number;
  /** Replaces the built-in HTTP client (tests). The SSRF check still runs first, redirects are
   * not followed, but the connection is not pinned to the checked addresses. */
  fetch?: typeof fetch;
  /** Replaces DNS resolution (tests). */
  resolve?: (host: string) => Promise<LookupAddress[]>;
}

export interface SendResult {
  /** The receiver answered 2xx. */
  ok: boolean;
  /** Refused before sending (scheme or SSRF): retrying cannot help. */
  blocked: boolean;
  httpStatus: number | null;
  latencyMs: number;
  /** Null on success; otherwise what went wrong, for the attempt log. */
  error: string | null;
  /** The start of the receiver's answer, whatever its status (shown in the dashboard). */
  answer?: string | null;
}

const SNIPPET = 200;
const MAX_READ = 4096;

/** A callback URL as a request needs it, parsed once: a merchant's few URLs serve many webhooks. */
interface Target {
  url: URL;
  protocol: 'http:' | 'https:';
  /** The host name or IP address, without IPv6 brackets. */
  host: string;
  /** 4 or 6 for an IP address, 0 for a name. */
  family: number;
  port: string;
  path: string;
}

const targets = new Map<string, Target | string>();
const TARGETS_KEPT = 1000;

/** The target of `url`, or why there is none (refused: retrying cannot help). */
function targetOf(url: string): Target | string {
  let t = targets.get(url);
  if (t !== undefined) return t;
  t = parseTarget(url);
  if (targets.size >= TARGETS_KEPT) targets.clear();
  targets.set(url, t);
  return t;
}

function parseTarget(url: string): Target | string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'blocked: not a valid URL';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return BLOCKED_SCHEME;
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  return { url: u, protocol: u.protocol, host, family: isIP(host), port: u.port, path: `${u.pathname}${u.search}` };
}

/** Never throws: every failure is described in the result. */
export async function sendWebhook(url: string, body: string, o: SendOptions): Promise<SendResult> {
  const started = performance.now();
  const r = await attempt(url, body, o);
  return { ...r, latencyMs: Math.max(0, Math.round(performance.now() - started)) };
}

async function attempt(url: string, body: string, o: SendOptions): Promise<Omit<SendResult, 'latencyMs'>> {
  const target = targetOf(url);
  if (typeof target === 'string') return { ok: false, blocked: true, httpStatus: null, error: target };
  let addresses: LookupAddress[];
  try {
    addresses = target.family ? [{ address: target.host, family: target.family }] : await (o.resolve ?? resolveAll)(target.host);
    if (addresses.length === 0) throw Object.assign(new Error(`no address for ${target.host}`), { code: 'ENOTFOUND' });
  } catch (e) {
    return { ok: false, blocked: false, httpStatus: null, error: `dns: ${describe(e)}` };
  }
  if (!o.allowPrivate && addresses.some((a) => isPrivateAddress(a.address))) {
    return { ok: false, blocked: true, httpStatus: null, error: BLOCKED_PRIVATE };
  }
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    [DELIVERY_HEADER]: o.deliveryId,
  };
  const timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  try {
    const res = o.fetch
      ? await viaFetch(o.fetch, target.url, body, headers, timeoutMs)
      : await viaHttp(target, body, headers, addresses, timeoutMs);
    const ok = res.status >= 200 && res.status < 300;
    const answer = res.text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim().slice(0, SNIPPET) || null;
    return { ok, blocked: false, httpStatus: res.status, error: ok ? null : httpError(res.status, res.text), answer };
  } catch (e) {
    return { ok: false, blocked: false, httpStatus: null, error: e instanceof Timeout ? `timeout after ${timeoutMs} ms` : describe(e) };
  }
}

async function resolveAll(host: string): Promise<LookupAddress[]> {
  return lookup(host, { all: true, verbatim: true });
}

class Timeout extends Error {}

interface Answer {
  status: number;
  text: string;
}

/**
 * Keep-alive connections, reused between deliveries. A connection is made only to the addresses
 * that passed the SSRF check of the request that opened it (its DNS lookup answers with those
 * and nothing else), and it is reused only by a request whose own check, made anew every time,
 * gave the same addresses: the pool is keyed by them. A DNS answer that changes between the check
 * and the connection, or between two deliveries, can thus never send a request to an address that
 * was not checked for it.
 */
interface PinnedOptions {
  /** The checked addresses, as the pool key. */
  pinnedTo?: string;
}

const AGENT_OPTIONS: http.AgentOptions = {
  keepAlive: true,
  keepAliveMsecs: 1000,
  /** Per receiver and address set: the deliverer's lanes and then some. */
  maxSockets: 16,
  maxFreeSockets: 16,
  maxTotalSockets: 512,
  scheduling: 'lifo',
};

class PinnedHttpAgent extends http.Agent {
  override getName(options?: http.ClientRequestArgs & PinnedOptions): string {
    return `${super.getName(options)}|${options?.pinnedTo ?? ''}`;
  }
}

class PinnedHttpsAgent extends https.Agent {
  override getName(options?: https.RequestOptions & PinnedOptions): string {
    return `${super.getName(options)}|${options?.pinnedTo ?? ''}`;
  }
}

let agents: { http: http.Agent; https: https.Agent } | null = null;

function agentFor(protocol: string): http.Agent {
  agents ??= { http: new PinnedHttpAgent(AGENT_OPTIONS), https: new PinnedHttpsAgent(AGENT_OPTIONS) };
  return protocol === 'https:' ? agents.https : agents.http;
}

/** Closes the kept-alive webhook connections (idle ones never keep the process up). */
export function closeWebhookConnections(): void {
  agents?.http.destroy();
  agents?.https.destroy();
  agents = null;
}

/** A DNS lookup that answers with the checked addresses only. */
function pinnedLookup(addresses: LookupAddress[]): LookupFunction {
  return (_host, options, cb) => {
    const fam = typeof options === 'object' && options ? options.family : undefined;
    const usable = fam === 4 || fam === 6 ? addresses.filter((a) => a.family === fam) : addresses;
    const list = usable.length ? usable : addresses;
    if (typeof options === 'object' && options?.all) (cb as (e: null, a: LookupAddress[]) => void)(null, list);
    else cb(null, list[0]!.address, list[0]!.family);
  };
}

/** A reused connection that the receiver had already closed: the request never reached it. */
class StaleConnection extends Error {}

/** POST over node:http(s), connecting only to the addresses that passed the SSRF check. */
async function viaHttp(target: Target, body: string, headers: Record<string, string>, addresses: LookupAddress[], timeoutMs: number): Promise<Answer> {
  const deadline = performance.now() + timeoutMs;
  try {
    return await new Post(target, body, headers, addresses, timeoutMs).answer;
  } catch (e) {
    if (!(e instanceof StaleConnection)) throw e;
    // Once more, on a new connection.
    return new Post(target, body, headers, addresses, Math.max(1, Math.round(deadline - performance.now()))).answer;
  }
}

/** One POST and its answer (a class rather than closures: this runs for every webhook). */
class Post {
  readonly answer: Promise<Answer>;
  private status: number | null = null;
  private text = '';
  private settled = false;
  private readonly req: http.ClientRequest;
  private readonly timer: NodeJS.Timeout;
  private resolve!: (a: Answer) => void;
  private reject!: (e: Error) => void;

  constructor(target: Target, body: string, headers: Record<string, string>, addresses: LookupAddress[], timeoutMs: number) {
    this.answer = new Promise<Answer>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    const payload = Buffer.from(body, 'utf8');
    headers['content-length'] = String(payload.length);
    const options: https.RequestOptions & PinnedOptions = {
      protocol: target.protocol,
      hostname: target.host,
      port: target.port,
      path: target.path,
      method: 'POST',
      headers,
      lookup: pinnedLookup(addresses),
      agent: agentFor(target.protocol),
      pinnedTo: addresses.length === 1 ? addresses[0]!.address : addresses.map((a) => a.address).join(','),
    };
    this.req = (target.protocol === 'https:' ? https : http).request(options, (res) => this.onResponse(res));
    // Once the status line is in, a slow body no longer matters: the answer is known.
    this.timer = setTimeout(() => this.finish(new Timeout()), timeoutMs);
    this.req.on('error', (e) => this.finish(this.status === null && this.stale(e) ? new StaleConnection(e.message) : e));
    this.req.end(payload);
  }

  private onResponse(res: http.IncomingMessage): void {
    this.status = res.statusCode ?? 0;
    res.on('data', (chunk: Buffer) => {
      if (this.text.length < MAX_READ) this.text += chunk.toString('utf8', 0, Math.min(chunk.length, MAX_READ - this.text.length));
    });
    res.on('end', () => this.finish(null, true));
    res.on('error', (e) => this.finish(e));
    res.on('aborted', () => this.finish(null));
  }

  private stale(err: Error): boolean {
    const code = (err as { code?: unknown }).code;
    return this.req.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE' || err.message === 'socket hang up');
  }

  /** A connection whose answer was read to the end goes back to the pool (`keep`); any other is closed. */
  private finish(err: Error | null, keep = false): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    if (err && this.status === null) this.reject(err);
    else this.resolve({ status: this.status!, text: this.text });
    if (!keep) this.req.destroy();
  }
}

async function viaFetch(f: typeof fetch, target: URL, body: string, headers: Record<string, string>, timeoutMs: number): Promise<Answer> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(new Timeout()), timeoutMs);
  try {
    const res = await f(target, { method: 'POST', headers, body, redirect: 'manual', signal: ac.signal });
    let text = '';
    try {
      text = (await res.text()).slice(0, MAX_READ);
    } catch {
      /* the status is what counts */
    }
    return { status: res.status, text };
  } catch (e) {
    if (ac.signal.aborted) throw new Timeout();
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

function httpError(status: number, text: string): string {
  const snippet = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim().slice(0, SNIPPET);
  return snippet ? `HTTP ${status}: ${snippet}` : `HTTP ${status}`;
}

function describe(e: unknown): string {
  if (e instanceof Error) {
    const cause = (e as { cause?: unknown }).cause;
    if (e.message === 'fetch failed' && cause instanceof Error) return describe(cause);
    const code = (e as { code?: unknown }).code;
    if (e.message) return e.message;
    if (typeof code === 'string') return code;
  }
  return String(e);
}
