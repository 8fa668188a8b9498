// Merchants' logos, served from the gateway's own origin (the payment page's CSP allows only
// 'self' images). Content-addressed by SHA-256, so a change of logo is a new address and each
// answer can be cached forever. The type is the one detected from the bytes at upload, sent
// exactly, with nosniff and a sandboxing CSP so a browser never treats the bytes as anything else.
import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../../context.ts';
import { findLogo, LOGO_TYPES } from '../../merchants/profile.ts';

export async function logoRoutes(app: FastifyInstance, ctx: Ctx): Promise<void> {
  app.get<{ Params: { file: string } }>('/logos/:file', async (req, reply) => {
    const m = /^([0-9a-f]{64})\.(png|jpg|webp)$/.exec(req.params.file);
    const logo = m ? await findLogo(ctx.storage.db, m[1]!) : undefined;
    if (!m || !logo || LOGO_TYPES[logo.type] !== m[2]) return reply.code(404).send({ state: 1, message: 'Not found' });
    const etag = `"${m[1]}"`;
    reply
      .header('content-type', logo.type)
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'; sandbox")
      .header('content-disposition', `inline; filename="logo.${m[2]}"`)
      .header('cache-control', 'public, max-age=31536000, immutable')
      // The widget may show the logo on the merchant's own page.
      .header('cross-origin-resource-policy', 'cross-origin')
      .header('etag', etag);
    if (req.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.send(logo.body);
  });
}
