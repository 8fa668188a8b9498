// A browser as the dashboard page is one: a cookie jar, the CSRF token from /me, the Origin header.
import type { TestGateway } from '../helpers/gateway.ts';
import { createUser, issueSetPasswordLink } from '../../src/dashboard/users.ts';

const ORIGIN = 'https://pay.example.test';

export interface Browser {
  cookie: string | null;
  csrf: string | null;
  call(method: 'GET' | 'POST', path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; raw: string; headers: Record<string, unknown>; setCookie: string | undefined }>;
}

/** A cookie jar and CSRF token, as the dashboard page keeps them. */
export function browser(gw: TestGateway, ip = '10.0.0.1'): Browser {
  const b: Browser = {
    cookie: null,
    csrf: null,
    async call(method, path, body, headers = {}) {
      const res = await gw.app.inject({
        method,
        url: '/api/dashboard' + path,
        remoteAddress: ip,
        headers: {
          ...(method === 'POST' ? { origin: ORIGIN, 'content-type': 'application/json', ...(b.csrf ? { 'x-csrf-token': b.csrf } : {}) } : {}),
          ...(b.cookie ? { cookie: b.cookie } : {}),
          ...headers,
        },
        payload: method === 'POST' ? JSON.stringify(body ?? {}) : undefined,
      });
      const setCookie = res.headers['set-cookie'] as string | undefined;
      if (setCookie) b.cookie = /Max-Age=0/.test(setCookie) ? null : setCookie.split(';')[0]!;
      let parsed: any = null;
      try {
        parsed = res.body ? JSON.parse(res.body) : null;
      } catch {
        parsed = null; // CSV and other non-JSON answers: see `raw`
      }
      if (parsed?.result?.csrf) b.csrf = parsed.result.csrf;
      return { status: res.statusCode, body: parsed, raw: res.body, headers: res.headers, setCookie };
    },
  };
  return b;
}

export async function signedInOwner(gw: TestGateway, role: 'owner' | 'viewer' = 'owner', email = `${role}@shop.example`, password = 'correct horse battery'): Promise<Browser> {
  const user = await createUser(gw.ctx.storage, { merchantId: gw.merchant.id, email, role }, gw.clock.now);
  const token = await issueSetPasswordLink(gw.ctx.storage, user.id, gw.clock.now);
  const b = browser(gw);
  const r = await b.call('POST', '/set-password', { token, password });
  if (r.status !== 200) throw new Error(`set-password failed: ${JSON.stringify(r.body)}`);
  return b;
}

