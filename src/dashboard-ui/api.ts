// Calls to the dashboard's own API (/api/dashboard). The browser never holds an API key: the
// session cookie authenticates, and every change carries the session's CSRF token.
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors: Record<string, string[]> | null = null,
  ) {
    super(message);
  }
}

interface Session {
  csrf: string;
  /** An instance admin picks the merchant in view. */
  merchant: string | null;
  onSignedOut: () => void;
}

const session: Session = { csrf: '', merchant: null, onSignedOut: () => {} };

export function configureApi(s: Partial<Session>): void {
  Object.assign(session, s);
}

export function apiUrl(path: string, params: Record<string, string | null | undefined> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined && v !== '') q.set(k, v);
  if (session.merchant) q.set('merchant', session.merchant);
  const qs = q.toString();
  return `/api/dashboard${path}${qs ? `?${qs}` : ''}`;
}

async function answer<T>(res: Response, path: string): Promise<T> {
  type Envelope = { state?: number; result?: T; message?: string; errors?: Record<string, string[]> };
  let body: Envelope | null = null;
  try {
    body = (await res.json()) as Envelope;
  } catch {
    body = null;
  }
  if (res.ok && body?.state === 0) return body.result as T;
  if (res.status === 401 && !path.startsWith('/login') && !path.startsWith('/set-password')) session.onSignedOut();
  throw new ApiError(res.status, body?.message ?? `The server answered ${res.status}.`, body?.errors ?? null);
}

export async function get<T>(path: string, params: Record<string, string | null | undefined> = {}): Promise<T> {
  const res = await fetch(apiUrl(path, params), { headers: { accept: 'application/json' }, credentials: 'same-origin', cache: 'no-store' });
  return answer<T>(res, path);
}

export async function post<T>(path: string, body: unknown = {}): Promise<T> {
  const res = await fetch(apiUrl(path), {
    method: 'POST',
    credentials: 'same-origin',
    headers: { accept: 'application/json', 'content-type': 'application/json', 'x-csrf-token': session.csrf },
    body: JSON.stringify(body),
  });
  return answer<T>(res, path);
}
