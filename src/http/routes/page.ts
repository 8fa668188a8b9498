// Serves the built payment page and widget (dist/) with a strict CSP; framing is allowed (D9).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync, brotliCompressSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../../context.ts';

export const DIST_DIR = fileURLToPath(new URL('../../../dist/', import.meta.url));

export const PAGE_CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors *; base-uri 'none'; form-action 'self'";

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.map': 'application/json',
  '.ts': 'text/plain; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

export interface Asset {
  type: string;
  body: Buffer;
  gzip: Buffer;
  br: Buffer;
  etag: string;
  immutable: boolean;
}

export function load(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  if (!existsSync(dir)) return assets;
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      let body: Buffer;
      try {
        if (statSync(full).isDirectory()) {
          walk(full);
          continue;
        }
        body = readFileSync(full);
      } catch {
        continue; // a build replaced the folder while we read it
      }
      {
        const rel = '/' + relative(dir, full).split('\\').join('/');
        assets.set(rel, {
          type: TYPES[extname(name)] ?? 'application/octet-stream',
          body,
          gzip: gzipSync(body, { level: 9 }),
          br: brotliCompressSync(body),
          etag: `"${createHash('sha1').update(body).digest('base64url')}"`,
          immutable: rel.startsWith('/assets/'),
        });
      }
    }
  };
  walk(dir);
  return assets;
}

export function send(req: FastifyRequest, reply: FastifyReply, a: Asset, extra: Record<string, string> = {}) {
  reply.header('content-type', a.type).header('etag', a.etag).header('vary', 'accept-encoding');
  reply.header('x-content-type-options', 'nosniff');
  reply.header('cache-control', a.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
  for (const [k, v] of Object.entries(extra)) reply.header(k, v);
  if (req.headers['if-none-match'] === a.etag) return reply.code(304).send();
  const accept = String(req.headers['accept-encoding'] ?? '');
  if (/\bbr\b/.test(accept)) return reply.header('content-encoding', 'br').send(a.br);
  if (/\bgzip\b/.test(accept)) return reply.header('content-encoding', 'gzip').send(a.gzip);
  return reply.send(a.body);
}

export async function pageRoutes(app: FastifyInstance, _ctx: Ctx, distDir = DIST_DIR): Promise<void> {
  const page = load(join(distDir, 'page'));
  const widget = load(join(distDir, 'widget'));
  const index = page.get('/index.html');
  const pageHeaders = { 'content-security-policy': PAGE_CSP, 'referrer-policy': 'no-referrer' };
  const servePage = async (req: FastifyRequest, reply: FastifyReply) => {
    if (!index) return reply.code(503).type('text/plain').send('The payment page is not built: run `npm run build`.');
    return send(req, reply, index, pageHeaders);
  };
  app.get('/pay/:uuid', servePage);
  app.get('/pay/wallet/:uuid', servePage);
  for (const [path, asset] of page) {
    if (path === '/index.html') continue;
    app.get(path, (req, reply) => send(req, reply, asset));
  }
  for (const [path, asset] of widget) {
    app.get(path, (req, reply) => send(req, reply, asset, { 'access-control-allow-origin': '*', 'cross-origin-resource-policy': 'cross-origin' }));
  }
}
