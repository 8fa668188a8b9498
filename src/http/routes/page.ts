// Serves the built payment page and widget (dist/) with a strict CSP; framing is allowed (the
// widget embeds the page).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync, brotliCompressSync, createGzip } from 'node:zlib';
import { PassThrough } from 'node:stream';
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../../context.ts';
import { NotFoundError } from '../../errors.ts';
import { payerAnswer } from '../../invoices/payer.ts';
import { INITIAL_VIEW_ID } from '../../contracts/payer.ts';
import type { PayerLimit } from './payer.ts';

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

/**
 * JSON for a `<script type="application/json">` block: no `<` can close the element or open a
 * comment, `&` and `>` are escaped too, and U+2028/U+2029 (line terminators to old JS parsers) as
 * well. JSON.parse reads it back unchanged.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The payer's first view of the invoice, in the HTML itself, so the page renders it without a
 * second round trip: `{etag, result}` as the payer API would answer, or `{status: 404}`.
 */
async function initialView(ctx: Ctx, uuid: string): Promise<Record<string, unknown>> {
  try {
    return await payerAnswer(ctx, uuid);
  } catch (e) {
    if (e instanceof NotFoundError) return { status: 404 };
    throw e;
  }
}

/** `limit`: the payer API's per-client rate limit; the page embeds the same view, so it counts there too. */
export async function pageRoutes(app: FastifyInstance, ctx: Ctx, distDir = DIST_DIR, limit?: PayerLimit): Promise<void> {
  const page = load(join(distDir, 'page'));
  const widget = load(join(distDir, 'widget'));
  const index = page.get('/index.html');
  const pageHeaders = { 'content-security-policy': PAGE_CSP, 'referrer-policy': 'no-referrer' };
  const servePage = async (req: FastifyRequest, reply: FastifyReply) => {
    if (!index) return reply.code(503).type('text/plain').send('The payment page is not built: run `npm run build`.');
    return send(req, reply, index, pageHeaders);
  };
  const html = index?.body.toString('utf8') ?? '';
  const mount = '<div id="app"></div>';
  const at = html.indexOf(mount) + mount.length;
  app.get<{ Params: { uuid: string } }>('/pay/:uuid', { onRequest: limit ? [limit] : [] }, async (req, reply) => {
    if (!index || at < mount.length) return servePage(req, reply);
    reply.header('content-type', index.type).header('x-content-type-options', 'nosniff').header('vary', 'accept-encoding');
    // The view is live data: never reused from a cache.
    reply.header('cache-control', 'no-store');
    for (const [k, v] of Object.entries(pageHeaders)) reply.header(k, v);
    // The head (with the script and stylesheet links) goes out at once, so the browser fetches
    // them while the view is read; the view and the rest follow.
    const out = new PassThrough();
    const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? '')) ? createGzip({ level: 6 }) : null;
    if (gzip) {
      reply.header('content-encoding', 'gzip');
      gzip.pipe(out);
    }
    const sink = gzip ?? out;
    sink.write(html.slice(0, at));
    gzip?.flush();
    void reply.send(out);
    let view: Record<string, unknown> | null = null;
    try {
      view = await initialView(ctx, req.params.uuid);
    } catch (err) {
      // The page then asks the payer API itself, which reports the problem properly.
      req.log.error({ err }, 'initial payer view failed');
    }
    const data = view ? `<script type="application/json" id="${INITIAL_VIEW_ID}">${jsonForScript(view)}</script>` : '';
    sink.end(data + html.slice(at));
    return reply;
  });
  app.get('/pay/wallet/:uuid', servePage);
  app.get('/pay/recurrence/:uuid', servePage);
  for (const [path, asset] of page) {
    if (path === '/index.html') continue;
    app.get(path, (req, reply) => send(req, reply, asset));
  }
  for (const [path, asset] of widget) {
    app.get(path, (req, reply) => send(req, reply, asset, { 'access-control-allow-origin': '*', 'cross-origin-resource-policy': 'cross-origin' }));
  }
}
