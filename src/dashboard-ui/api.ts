// Calls to the dashboard's own API (/api/dashboard). The browser never holds an API key: the
// session cookie authenticates, and every change carries the session's CSRF token. Each call names
// its route's contract (src/contracts/dashboard/), which types the body and checks the answer.
// A client belongs to the dashboard's store (store.ts), which keeps its session.
import * as z from 'zod/mini';
import { ApiError } from '../ui-kit/api-error.ts';
import { pathOf, type DashboardRoute, type NoBody } from '../contracts/dashboard/route.ts';

export { ApiError };

const Envelope = z.object({
  state: z.optional(z.number()),
  result: z.optional(z.unknown()),
  message: z.optional(z.string()),
  code: z.optional(z.string()),
  params: z.optional(z.record(z.string(), z.union([z.string(), z.number()]))),
  errors: z.optional(z.nullable(z.record(z.string(), z.array(z.string())))),
});

export interface Session {
  csrf: string;
  /** An instance admin picks the merchant in view. */
  merchant: string | null;
}

type Query<Q extends string> = Partial<Record<Q, string | null | undefined>>;

export interface ApiClient {
  readonly session: Session;
  /** The address of a route with its path parameters and query (and the merchant in view). */
  url<Q extends string>(route: { readonly path: string; readonly query: readonly Q[] }, query?: Query<Q>, params?: Record<string, string>): string;
  /** Reads a GET route. */
  get<R, Q extends string>(route: DashboardRoute<NoBody, R, Q>, query?: Query<Q>, params?: Record<string, string>): Promise<R>;
  /** Calls a POST route with its body. */
  post<B, R>(route: DashboardRoute<B, R, never>, body: NoInfer<B>, params?: Record<string, string>): Promise<R>;
}

/** A client whose 401 answers (outside sign-in) call `onSignedOut`. */
export function createApiClient(onSignedOut: () => void): ApiClient {
  const session: Session = { csrf: '', merchant: null };

  const url: ApiClient['url'] = (route, query = {}, params = {}) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries<string | null | undefined>(query)) if (v !== null && v !== undefined && v !== '') q.set(k, v);
    if (session.merchant) q.set('merchant', session.merchant);
    const qs = q.toString();
    return `/api/dashboard${pathOf(route, params)}${qs ? `?${qs}` : ''}`;
  };

  /** The result of a success envelope, once it has the shape the route's contract gives it. */
  async function answer<R>(res: Response, route: Pick<DashboardRoute<unknown, R>, 'access' | 'result'>): Promise<R> {
    let body: unknown = null;
    try {
      body = await res.json();
    } catch {
      body = null;
    }
    const envelope = Envelope.safeParse(body);
    const e = envelope.success ? envelope.data : null;
    if (res.ok && e?.state === 0 && route.result) {
      // The answer as sent (its fields in the server's order), once the contract accepts it.
      if (route.result.safeParse(e.result).success) return e.result as R;
      throw new ApiError(res.status, 'The server answered something this page does not understand.', null, 'bad_answer');
    }
    if (res.status === 401 && route.access !== 'public') onSignedOut();
    // The code words the failure in the user's language (./error-text.ts); a failure without an
    // envelope (a proxy's error page) is named by its status.
    throw new ApiError(res.status, e?.message ?? `The server answered ${res.status}.`, e?.errors ?? null, e?.message === undefined ? 'http_status' : (e.code ?? null), e?.params ?? {});
  }

  return {
    session,
    url,
    async get(route, query = {}, params = {}) {
      const res = await fetch(url(route, query, params), { headers: { accept: 'application/json' }, credentials: 'same-origin', cache: 'no-store' });
      return answer(res, route);
    },
    async post(route, body, params = {}) {
      const res = await fetch(url(route, {}, params), {
        method: 'POST',
        credentials: 'same-origin',
        headers: { accept: 'application/json', 'content-type': 'application/json', 'x-csrf-token': session.csrf },
        body: JSON.stringify(body),
      });
      return answer(res, route);
    },
  };
}

/** A form field's text as a body sends it (absent when the form has no such text field). */
export function formText(form: FormData, name: string): string | undefined {
  const v = form.get(name);
  return typeof v === 'string' ? v : undefined;
}
