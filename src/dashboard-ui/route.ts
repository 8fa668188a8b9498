// Client-side routes under /dashboard: the address bar is the state (shareable, back button works).
import { signal } from '@preact/signals';

export const BASE = '/dashboard';

export interface Location {
  path: string;
  query: URLSearchParams;
}

function read(): Location {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) || '/' : '/';
  return { path: path.replace(/\/+$/, '') || '/', query: new URLSearchParams(location.search) };
}

export const current = signal<Location>(read());
/** In-app navigations so far (0 on a fresh load). */
export const navigations = signal(0);

addEventListener('popstate', () => {
  navigations.value++;
  current.value = read();
});

export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  const url = to.startsWith(BASE) ? to : BASE + (to === '/' ? '' : to);
  if (opts.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  navigations.value++;
  current.value = read();
  if (!opts.replace) scrollTo(0, 0);
}

export function href(to: string): string {
  return BASE + (to === '/' ? '' : to);
}

/** For <a href onClick>: follows in-app links without a reload, leaves modified clicks alone. */
export function follow(e: MouseEvent): void {
  const a = e.currentTarget as HTMLAnchorElement;
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey || a.target) return;
  e.preventDefault();
  navigate(a.pathname + a.search);
}
