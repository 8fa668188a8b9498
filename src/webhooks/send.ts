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

/** Never throws: every failure is described in the result. */
export async function sendWebhook(url: string, body: string, o: SendOptions): Promise<SendResult> {
  const started = performance.now();
  const done = (r: Omit<SendResult, 'latencyMs'>): SendResult => ({ ...r, latencyMs: Math.max(0, Math.round(performance.now() - started)) });
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return done({ ok: false, blocked: true, httpStatus: null, error: 'blocked: not a valid URL' });
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    return done({ ok: false, blocked: true, httpStatus: null, error: BLOCKED_SCHEME });
  }
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: LookupAddress[];
  try {
    const family = isIP(host);
    addresses = family ? [{ address: host, family }] : await (o.resolve ?? resolveAll)(host);
    if (addresses.length === 0) throw Object.assign(new Error(`no address for ${host}`), { code: 'ENOTFOUND' });
  } catch (e) {
    return done({ ok: false, blocked: false, httpStatus: null, error: `dns: ${describe(e)}` });
  }
  if (!o.allowPrivate && addresses.some((a) => isPrivateAddress(a.address))) {
    return done({ ok: false, blocked: true, httpStatus: null, error: BLOCKED_PRIVATE });
  }
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    [DELIVERY_HEADER]: o.deliveryId,
  };
  const timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  try {
    const res = o.fetch
      ? await viaFetch(o.fetch, target, body, headers, timeoutMs)
      : await viaHttp(target, body, headers, addresses, timeoutMs);
    const ok = res.status >= 200 && res.status < 300;
    const answer = res.text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim().slice(0, SNIPPET) || null;
    return done({ ok, blocked: false, httpStatus: res.status, error: ok ? null : httpError(res.status, res.text), answer });
  } catch (e) {
    return done({ ok: false, blocked: false, httpStatus: null, error: e instanceof Timeout ? `timeout after ${timeoutMs} ms` : describe(e) });
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
 * that passed the SSRF check of the request that opened it, and it is reused only by a request
 * whose own check (made anew every time) gave the same addresses: the pool is keyed by them. A DNS
 * answer that changes between the check and the connection, or between two deliveries, can thus
 * never send a request to an address that was not checked for it.
 */
interface PinnedOptions {
  /** The checked addresses, as the pool key. */
  pinnedTo?: string;
}

const AGENT_OPTIONS = {
  keepAlive: true,
  keepAliveMsecs: 1000,
  /** Per receiver and address set: the deliverer's lanes and then some. */
  maxSockets: 16,
  maxFreeSockets: 16,
  maxTotalSockets: 512,
  /** Idle connections close before a receiver's usual keep-alive limit (often 5 s) ends them. */
  timeout: 4000,
  scheduling: 'lifo' as const,
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

/** Closes the kept-alive webhook connections (on shutdown; idle ones never keep the process up). */
export function closeWebhookConnections(): void {
  agents?.http.destroy();
  agents?.https.destroy();
  agents = null;
}

/** A reused connection the receiver had already closed: the request never reached it. */
function staleConnection(req: http.ClientRequest, err: Error): boolean {
  const code = (err as { code?: unknown }).code;
  return req.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE' || err.message === 'socket hang up');
}

/** POST over node:http(s), connecting only to the addresses that passed the SSRF check (a DNS
 * answer that changes between the check and the connection cannot redirect the request). */
async function viaHttp(target: URL, body: string, headers: Record<string, string>, addresses: LookupAddress[], timeoutMs: number): Promise<Answer> {
  const deadline = performance.now() + timeoutMs;
  try {
    return await postOnce(target, body, headers, addresses, timeoutMs);
  } catch (e) {
    if (!(e instanceof StaleConnection)) throw e;
    // Once more on a new connection: the first attempt was never received.
    return postOnce(target, body, headers, addresses, Math.max(1, Math.round(deadline - performance.now())));
  }
}

class StaleConnection extends Error {}

function postOnce(target: URL, body: string, headers: Record<string, string>, addresses: LookupAddress[], timeoutMs: number): Promise<Answer> {
  const pinned: LookupFunction = (_host, options, cb) => {
    const fam = typeof options === 'object' && options ? options.family : undefined;
    const usable = fam === 4 || fam === 6 ? addresses.filter((a) => a.family === fam) : addresses;
    const list = usable.length ? usable : addresses;
    if (typeof options === 'object' && options?.all) (cb as (e: null, a: LookupAddress[]) => void)(null, list);
    else cb(null, list[0]!.address, list[0]!.family);
  };
  const payload = Buffer.from(body, 'utf8');
  const pinnedTo = addresses.map((a) => a.address).join(',');
  return new Promise<Answer>((resolve, reject) => {
    let status: number | null = null;
    let text = '';
    let settled = false;
    const finish = (err: Error | null, keep = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err && status === null) reject(err);
      else resolve({ status: status!, text });
      // A connection whose answer was read to the end goes back to the pool; any other is closed.
      if (!keep) req.destroy();
    };
    const options: https.RequestOptions & PinnedOptions = {
      method: 'POST',
      headers: { ...headers, 'content-length': String(payload.length) },
      lookup: pinned,
      agent: agentFor(target.protocol),
      pinnedTo,
    };
    const req = (target.protocol === 'https:' ? https : http).request(target, options, (res) => {
      status = res.statusCode ?? 0;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (text.length < MAX_READ) text += chunk.slice(0, MAX_READ - text.length);
      });
      res.on('end', () => finish(null, true));
      res.on('error', (e) => finish(e));
      res.on('aborted', () => finish(null));
    });
    // Once the status line is in, a slow body no longer matters: the answer is known.
    const timer = setTimeout(() => finish(new Timeout()), timeoutMs);
    req.on('error', (e) => finish(status === null && staleConnection(req, e) ? new StaleConnection(e.message) : e));
    req.end(payload);
  });
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
