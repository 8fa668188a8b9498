// The security headers every answer carries, the set Helmet's defaults give with this gateway's
// policy: data answers may load and embed nothing, and framing is left to each HTML surface (the
// widget frames the payment page; the dashboard forbids it itself). Every HTML surface sends
// its own Content-Security-Policy, which replaces the one set here.
//
// The headers are fixed, so they are built once and set on arrival (src/http/app.ts). Helmet's
// middleware rebuilt them on every request, which cost more CPU than the whole invoice-info query.
import type { FastifyReply } from 'fastify';

export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': "default-src 'none';frame-ancestors 'none'",
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
});

/** Sets SECURITY_HEADERS on an answer; the root instance's onRequest hook calls it for every request
 * (one hook for everything set on arrival: a hook run per request costs more than the headers). */
export function setSecurityHeaders(reply: FastifyReply): void {
  reply.headers(SECURITY_HEADERS);
}
