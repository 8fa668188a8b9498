// Failure envelopes for the answers the HTTP layer gives on its own (bad URL, too long, too large,
// unsupported type, oversized headers, closing down, unknown path or method): every answer a client
// of the merchant API can get is `{"state":1,"message":...}`, never a framework's own body.
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';

export const FRAMEWORK_MESSAGES: Record<number, string> = {
  400: 'Bad request',
  404: 'Not found',
  405: 'Method not allowed',
  408: 'Request timeout',
  413: 'Request body is too large',
  414: 'URI too long',
  415: 'Content-Type must be application/json',
  429: 'Too many requests',
  431: 'Request headers are too large',
  503: 'Service unavailable',
};

export function failure(status: number): { state: 1; message: string } {
  return { state: 1, message: FRAMEWORK_MESSAGES[status] ?? FRAMEWORK_MESSAGES[400]! };
}

/** The status a framework error stands for (a 4xx of its own, else 400). */
export function frameworkStatus(err: FastifyError): number {
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return 413;
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') return 414;
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return 415;
  return typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 400;
}

/** Fastify's `frameworkErrors`: a URL that is not valid percent-encoding (400) or a path parameter
 * over the length limit (414). */
export function frameworkErrors(err: FastifyError, _req: FastifyRequest, reply: FastifyReply): void {
  const status = frameworkStatus(err);
  void reply.code(status).send(failure(status));
}

/**
 * Node's `clientError`: the request could not even be parsed (headers over the size limit: 431;
 * a timeout: 408; anything else: 400). There is no request object, so the answer is written to the
 * socket directly, as Fastify's default does, but with an envelope.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const body = JSON.stringify(failure(status));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request'}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
