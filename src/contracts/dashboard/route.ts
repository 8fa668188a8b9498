// What one route of the dashboard's JSON API (/api/dashboard) is: its method and path, who may call
// it, the body it takes and the result its success envelope holds. The server registers and checks
// its routes from these objects (src/http/dashboard/) and the dashboard calls them through the same
// objects (src/dashboard-ui/api.ts), so both sides share one shape. Free of DOM and Node APIs, and
// written with zod/mini: the browser bundle parses answers with it.
import * as z from 'zod/mini';

/** `public`: before a session exists (Origin check only); `session`: any signed-in user;
 * `manage`: a user who may change the merchant (viewers are refused). */
export type Access = 'public' | 'session' | 'manage';

export interface DashboardRoute<Body = unknown, Result = unknown, Query extends string = string> {
  readonly method: 'GET' | 'POST';
  /** Under /api/dashboard; `:id` stands for a path parameter. */
  readonly path: string;
  readonly access: Access;
  /** The JSON body of a POST (GET routes take none: an empty object). */
  readonly body: z.ZodMiniType<Body>;
  /** Query-string parameters the route reads (always optional text). */
  readonly query: readonly Query[];
  /** What `result` of the success envelope holds; null for an answer that is not JSON (a download). */
  readonly result: z.ZodMiniType<Result> | null;
}

export type BodyOf<R> = R extends DashboardRoute<infer B, unknown, string> ? B : never;

/** No body at all. */
export const NoBody = z.object({});
export type NoBody = z.infer<typeof NoBody>;

export function get<Result, Query extends string = never>(path: string, result: z.ZodMiniType<Result> | null, opts: { access?: Access; query?: readonly Query[] } = {}): DashboardRoute<NoBody, Result, Query> {
  return { method: 'GET', path, access: opts.access ?? 'session', body: NoBody, query: opts.query ?? [], result };
}

export function post<Body, Result>(path: string, access: Access, body: z.ZodMiniType<Body>, result: z.ZodMiniType<Result>): DashboardRoute<Body, Result, never> {
  return { method: 'POST', path, access, body, query: [], result };
}

/** A route's path with its `:name` parameters filled in. */
export function pathOf(route: { readonly path: string }, params: Record<string, string> = {}): string {
  return route.path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
}

/** A decimal amount as text ("15.00", "-0.5"): money is never a JS number. */
export const decimal = z.string();
/** Text the browser sends from a form field. */
export const text = z.optional(z.string());
/** A keyset page of a list: the items and the cursor of the next page (null on the last). */
export function keysetPage<T>(item: z.ZodMiniType<T>) {
  return z.object({ items: z.array(item), next: z.nullable(z.string()) });
}
