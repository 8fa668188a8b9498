// HTTP digest authentication (RFC 7616, MD5 and MD5-sess, qop "auth"), as monerod and
// monero-wallet-rpc ask for it when started with `--rpc-login user:password`. A client keeps one
// DigestLogin per server: it answers 401 challenges and signs every request after the first.
//
// Monero's servers keep the digest session (nonce and count) per TCP connection: a signed request
// on another connection is answered 401 "stale". So a login sends its requests itself (`post`),
// over one kept-alive connection, not through fetch, whose pool may use a new one for each.
import { createHash, randomBytes } from 'node:crypto';
import { Agent, request, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { readCapped } from '../capped-body.ts';

const md5 = (s: string) => createHash('md5').update(s).digest('hex');

interface Challenge {
  realm: string;
  nonce: string;
  qop: string | null;
  opaque: string | null;
  algorithm: string;
  nc: number;
}

/**
 * The challenge to answer from a WWW-Authenticate header. A server may offer several (monero's
 * offers MD5 and MD5-sess in two headers, which fetch joins with ", "): plain MD5 is preferred.
 */
function parseChallenge(header: string | null): Challenge | null {
  if (!header) return null;
  const all = header.split(/,?\s*(?=\bDigest\s)/i).map(parseOne).filter((c): c is Challenge => c !== null);
  return all.find((c) => /^MD5$/i.test(c.algorithm)) ?? all[0] ?? null;
}

function parseOne(header: string): Challenge | null {
  if (!/^Digest\s/i.test(header)) return null;
  const fields: Record<string, string> = {};
  for (const m of header.slice(7).matchAll(/(\w+)\s*=\s*(?:"([^"]*)"|([^\s,]+))/g)) fields[m[1]!.toLowerCase()] = m[2] ?? m[3] ?? '';
  if (fields.realm === undefined || !fields.nonce) return null;
  const qop = fields.qop ? (fields.qop.split(',').map((q) => q.trim()).includes('auth') ? 'auth' : null) : null;
  return { realm: fields.realm, nonce: fields.nonce, qop, opaque: fields.opaque ?? null, algorithm: fields.algorithm ?? 'MD5', nc: 0 };
}

export interface DigestPost {
  /** The full URL (no credentials in it). */
  url: string;
  headers: Record<string, string>;
  body: string;
  signal?: AbortSignal;
  /** The call's name in errors. */
  method?: string;
}

/** The most a 401 challenge's body may hold (monero's are empty or a line of text). */
const CHALLENGE_BODY_BYTES = 64 * 1024;

/**
 * An answer's body as a web stream, pulled: the socket is paused while the reader is not asking for
 * more. Events that arrive after the reader cancelled it (a chunk already in flight, the end, an
 * error) are ignored, never pushed into the closed stream, whose controller would throw inside the
 * socket's listener (an uncaught exception). Cancelling destroys the socket: the rest of an answer
 * that was refused for its size is not downloaded.
 */
function bodyStream(res: IncomingMessage): ReadableStream<Uint8Array> {
  let finished = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      res.on('data', (c: Buffer) => {
        if (finished) return;
        controller.enqueue(new Uint8Array(c));
        if ((controller.desiredSize ?? 1) <= 0) res.pause();
      });
      res.on('end', () => {
        if (finished) return;
        finished = true;
        controller.close();
      });
      res.on('error', (e) => {
        if (finished) return;
        finished = true;
        controller.error(e);
      });
      res.on('close', () => {
        if (finished) return;
        finished = true;
        controller.error(new Error('the connection closed before the answer was complete'));
      });
    },
    pull() {
      res.resume();
    },
    cancel() {
      finished = true;
      res.destroy();
    },
  });
}

export class DigestLogin {
  private challenge: Challenge | null = null;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  private readonly httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 1 });

  constructor(
    readonly user: string,
    private readonly password: string,
  ) {}

  /** Takes a 401's WWW-Authenticate header; false when it is not a digest challenge the login can answer. */
  take(header: string | null): boolean {
    const c = parseChallenge(header);
    if (c) this.challenge = c;
    return c !== null;
  }

  /** The Authorization header of a POST to `path`, or null before any challenge. */
  header(path: string, method = 'POST'): string | null {
    const c = this.challenge;
    if (!c) return null;
    c.nc++;
    const nc = c.nc.toString(16).padStart(8, '0');
    const cnonce = randomBytes(8).toString('hex');
    let ha1 = md5(`${this.user}:${c.realm}:${this.password}`);
    if (/^MD5-sess$/i.test(c.algorithm)) ha1 = md5(`${ha1}:${c.nonce}:${cnonce}`);
    const ha2 = md5(`${method}:${path}`);
    const response = c.qop ? md5(`${ha1}:${c.nonce}:${nc}:${cnonce}:${c.qop}:${ha2}`) : md5(`${ha1}:${c.nonce}:${ha2}`);
    const parts = [`username="${this.user}"`, `realm="${c.realm}"`, `nonce="${c.nonce}"`, `uri="${path}"`, `algorithm=${c.algorithm}`, `response="${response}"`];
    if (c.qop) parts.push(`qop=${c.qop}`, `nc=${nc}`, `cnonce="${cnonce}"`);
    if (c.opaque !== null) parts.push(`opaque="${c.opaque}"`);
    return `Digest ${parts.join(', ')}`;
  }

  /** POSTs over the login's own connection, answering a challenge (once per call); a fetch-like Response. */
  async post(req: DigestPost): Promise<Response> {
    const u = new URL(req.url);
    const path = `${u.pathname}${u.search}`;
    for (let attempt = 0; ; attempt++) {
      const auth = this.header(path);
      const res = await this.once(u, { ...req.headers, ...(auth ? { authorization: auth } : {}) }, req.body, req.signal);
      if (res.status !== 401 || attempt > 0 || !this.take(res.headers.get('www-authenticate'))) return res;
      // The challenge's body is read to its end (not dropped), so that the signed retry goes over
      // this same kept-alive connection, which holds the digest session; one past the cap drops the
      // connection and is the caller's FaultyNodeError.
      await readCapped(res, CHALLENGE_BODY_BYTES, req.method ?? 'digest login');
    }
  }

  private once(u: URL, headers: Record<string, string>, body: string, signal?: AbortSignal): Promise<Response> {
    const https = u.protocol === 'https:';
    return new Promise<Response>((resolve, reject) => {
      const send = https ? httpsRequest : request;
      const options = { method: 'POST', agent: https ? this.httpsAgent : this.agent, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, signal };
      const req = send(u, options, (res) => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : v);
        resolve(new Response(bodyStream(res), { status: res.statusCode ?? 502, headers: h }));
      });
      // After the answer's headers came, a late error of the request (its socket reset) is the
      // body's to report (bodyStream); the listener stays so that it is never an unhandled 'error'.
      req.on('error', reject);
      req.end(body);
    });
  }
}
