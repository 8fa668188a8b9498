// Limits on connections and on how long a request may take to arrive, so that slow or idle
// clients cannot hold the process's file descriptors. Fastify turns Node's request timeout off by
// default (`requestTimeout: 0`), which let a body trickled one byte every few seconds keep its
// connection open forever.
//
// On Node 20, what cuts a trickle is the HTTP server's `requestTimeout` (headers *and* body must
// have arrived within it), enforced by a sweep every `connectionsCheckingInterval` (30 s by
// default, so shortened here to keep the cut close to the deadline). The server then raises a
// `clientError` (ERR_HTTP_REQUEST_TIMEOUT), which `clientErrorHandler` answers with a 408
// envelope and closes. `connectionTimeout` (socket inactivity) would not: every trickled byte
// resets it.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Config } from '../config.ts';

/** The Fastify options that put a deadline on every request's headers and body. */
export function requestDeadlineOptions(config: Pick<Config, 'bodyDeadlineMs'>): {
  requestTimeout: number;
  http: { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number };
} {
  const deadline = config.bodyDeadlineMs;
  return {
    requestTimeout: deadline,
    http: {
      // Node requires headersTimeout <= requestTimeout; the headers get no longer than the whole.
      headersTimeout: deadline,
      requestTimeout: deadline,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(deadline / 5))),
    },
  };
}

/**
 * Caps the open connections: `maxConnections` in all (Node drops the ones over it), and
 * `maxConnectionsPerAddress` from one socket address, over which a new connection is closed at
 * once. The address is the socket's, not `X-Forwarded-For`'s: behind a reverse proxy every
 * connection comes from the proxy, so size the per-address cap for it (or turn it off with 0).
 */
export function limitConnections(server: Server, config: Pick<Config, 'maxConnections' | 'maxConnectionsPerAddress'>): void {
  if (config.maxConnections > 0) server.maxConnections = config.maxConnections;
  const cap = config.maxConnectionsPerAddress;
  if (cap <= 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const n = open.get(address) ?? 0;
    if (n >= cap) {
      socket.destroy();
      return;
    }
    open.set(address, n + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
