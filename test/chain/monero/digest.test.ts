// The digest-login client of monerod and monero-wallet-rpc (src/chain/monero/digest.ts, through
// MoneroRpc) against a local node:http server that speaks HTTP digest like monero does (the
// session, nonce and count, held per TCP connection). Every call resolves or rejects with the chain
// layer's error, whatever the server does: an answer over the size cap is a FaultyNodeError and its
// connection is dropped, a 401 whose body trickles in after its headers is read before the signed
// retry (on the same connection), a connection closed mid-answer is a NodeUnreachableError; and
// nothing throws outside the promise (no uncaught exception).
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { MoneroRpc } from '../../../src/chain/monero/rpc.ts';
import { FaultyNodeError, NodeError, NodeUnreachableError } from '../../../src/chain/errors.ts';

const USER = 'satchel';
const PASSWORD = 'secret-password';
const REALM = 'monero-rpc';
const md5 = (s: string) => createHash('md5').update(s).digest('hex');

type Authed = (req: IncomingMessage, res: ServerResponse, body: { id: string; method: string }) => void;
type Challenge = (res: ServerResponse, header: string) => void;

let server: Server;
let url = '';
/** What the server does with an authenticated request, and how it sends a 401 (set per test). */
let onAuthed: Authed;
let onChallenge: Challenge;
/** Connections the server saw, and those that were closed. */
const sockets = new Set<Socket>();
const closed = new Set<Socket>();
const nonces = new WeakMap<Socket, string>();

function authorized(req: IncomingMessage): boolean {
  const header = req.headers.authorization;
  const nonce = nonces.get(req.socket);
  if (!header || !nonce) return false;
  const f: Record<string, string> = {};
  for (const m of header.slice(7).matchAll(/(\w+)\s*=\s*(?:"([^"]*)"|([^\s,]+))/g)) f[m[1]!] = m[2] ?? m[3] ?? '';
  if (f.nonce !== nonce || f.username !== USER) return false;
  const ha1 = md5(`${USER}:${REALM}:${PASSWORD}`);
  const ha2 = md5(`${req.method}:${f.uri}`);
  return f.response === md5(`${ha1}:${nonce}:${f.nc}:${f.cnonce}:${f.qop}:${ha2}`);
}

const uncaught = vi.fn();
beforeAll(async () => {
  process.on('uncaughtException', uncaught);
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (!authorized(req)) {
        const nonce = randomBytes(16).toString('hex');
        nonces.set(req.socket, nonce);
        onChallenge(res, `Digest qop="auth",algorithm=MD5,realm="${REALM}",nonce="${nonce}",stale=false`);
        return;
      }
      onAuthed(req, res, JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; method: string });
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => closed.add(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  process.removeListener('uncaughtException', uncaught);
});
afterEach(() => {
  expect(uncaught).not.toHaveBeenCalled();
});

const plainChallenge: Challenge = (res, header) => {
  res.writeHead(401, { 'www-authenticate': header, 'content-length': '0' });
  res.end();
};
const answer = (res: ServerResponse, id: string, result: Record<string, unknown>) => {
  const text = JSON.stringify({ jsonrpc: '2.0', id, result });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
  res.end(text);
};
const client = (maxResponseBytes = 64 * 1024) => new MoneroRpc(url, { login: { user: USER, password: PASSWORD }, maxResponseBytes, timeoutMs: 20_000 });
/** The connections seen so far (to tell those of one test). */
const seen = () => new Set(sockets);
/** Resolves once every connection the server saw since `before` is closed (the client dropped it). */
const allClosed = (before: Set<Socket>) =>
  vi.waitFor(() => expect([...sockets].filter((s) => !before.has(s)).every((s) => closed.has(s))).toBe(true), { timeout: 10_000, interval: 20 });
const tick = () => new Promise((r) => setImmediate(r));

describe('the digest login client', () => {
  it('answers the challenge and gets the answer, over one kept-alive connection', async () => {
    onChallenge = plainChallenge;
    onAuthed = (_req, res, body) => answer(res, body.id, { version: 7, method: body.method });
    const before = sockets.size;
    const rpc = client();
    expect(await rpc.call('get_version')).toEqual({ version: 7, method: 'get_version' });
    expect(await rpc.call('get_height')).toEqual({ version: 7, method: 'get_height' });
    expect(sockets.size - before).toBe(1);
  });

  it('an answer over the cap, streamed, is a FaultyNodeError and its connection is dropped', async () => {
    onChallenge = plainChallenge;
    let written = 0;
    onAuthed = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(16 * 1024, 0x20);
      const more = () => {
        // Writes until the client drops the connection (or 64 MiB, far past any cap).
        while (!res.destroyed && written < 64 << 20) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        if (!res.destroyed) res.end();
      };
      more();
    };
    const before = seen();
    const rpc = client(256 * 1024);
    await expect(rpc.call('get_transfers')).rejects.toThrow(FaultyNodeError);
    await expect(rpc.call('get_transfers')).rejects.toThrow(/larger than max_response_bytes/);
    await allClosed(before);
    expect(written).toBeLessThan(64 << 20);
    await tick();
  });

  it('an answer that declares a length over the cap is a FaultyNodeError before its body is read', async () => {
    onChallenge = plainChallenge;
    onAuthed = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(8 << 20) });
      res.write(Buffer.alloc(64 * 1024, 0x20));
    };
    const before = seen();
    await expect(client(1024 * 1024).call('get_transfers')).rejects.toThrow(FaultyNodeError);
    await allClosed(before);
    await tick();
  });

  it('a 401 whose body trickles in after its headers is read to its end, then the signed retry goes over the same connection', async () => {
    onChallenge = (res, header) => {
      res.writeHead(401, { 'www-authenticate': header, 'content-type': 'text/plain' });
      res.flushHeaders();
      let n = 0;
      const timer = setInterval(() => {
        if (res.destroyed) return clearInterval(timer);
        if (++n > 5) {
          clearInterval(timer);
          return void res.end('.');
        }
        res.write('not authorized ');
      }, 20);
    };
    onAuthed = (_req, res, body) => answer(res, body.id, { ok: true });
    const before = sockets.size;
    expect(await client().call('get_version')).toEqual({ ok: true });
    expect(sockets.size - before).toBe(1);
    await tick();
  });

  it('a 401 whose trickling body passes the challenge cap is a FaultyNodeError, not a crash', async () => {
    onChallenge = (res, header) => {
      res.writeHead(401, { 'www-authenticate': header, 'content-type': 'text/plain' });
      res.flushHeaders();
      const timer = setInterval(() => {
        if (res.destroyed) return clearInterval(timer);
        res.write(Buffer.alloc(32 * 1024, 0x2e));
      }, 5);
    };
    const before = seen();
    await expect(client().call('get_version')).rejects.toThrow(FaultyNodeError);
    await allClosed(before);
    await tick();
  });

  it('a login the server refuses is a NodeError with status 401, even when the refusal trickles in', async () => {
    onChallenge = (res, header) => {
      res.writeHead(401, { 'www-authenticate': header, 'content-type': 'text/plain' });
      res.flushHeaders();
      setTimeout(() => res.end('no'), 30);
    };
    onAuthed = (_req, res, body) => answer(res, body.id, { ok: true });
    const wrong = new MoneroRpc(url, { login: { user: USER, password: 'guessed' }, timeoutMs: 20_000 });
    const err = await wrong.call('get_version').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NodeError);
    expect(err).not.toBeInstanceOf(NodeUnreachableError);
    expect(err).not.toBeInstanceOf(FaultyNodeError);
    expect(err).toMatchObject({ code: 401 });
    await tick();
  });

  it('a connection closed in the middle of the answer is a NodeUnreachableError', async () => {
    onChallenge = plainChallenge;
    onAuthed = (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"jsonrpc":"2.0","id":"1","result":{');
      setTimeout(() => req.socket.destroy(), 20);
    };
    await expect(client().call('get_balance')).rejects.toThrow(NodeUnreachableError);
    await tick();
  });
});
