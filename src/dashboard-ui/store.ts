// The signed-in state and the colour theme, as signals the whole dashboard reads.
import { signal } from '@preact/signals';
import { configureApi, get } from './api.ts';
import { current } from './route.ts';

import { authApi, type Me } from '../contracts/dashboard/auth.ts';

export type { Me };

/** undefined while the first /me is on its way; null when signed out. */
export const me = signal<Me | null | undefined>(undefined);
/** A note about what just happened, shown on the view (path) it belongs to. */
export const flash = signal<{ tone: 'ok' | 'error'; text: string; path: string } | null>(null);

export type Theme = 'light' | 'dark';
const THEME_KEY = 'satchel-dashboard-theme';

function initialTheme(): Theme {
  try {
    const saved = localStorage.getItem(THEME_KEY);
    if (saved === 'light' || saved === 'dark') return saved;
  } catch {
    /* storage may be blocked */
  }
  return matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

export const theme = signal<Theme>(initialTheme());

export function applyTheme(t: Theme): void {
  theme.value = t;
  document.documentElement.dataset.theme = t;
  try {
    localStorage.setItem(THEME_KEY, t);
  } catch {
    /* not kept: fine */
  }
}

export function signedIn(m: Me): void {
  configureApi({ csrf: m.csrf });
  me.value = m;
}

export function signedOut(): void {
  configureApi({ csrf: '' });
  me.value = null;
}

configureApi({ onSignedOut: signedOut });

export async function loadMe(): Promise<void> {
  try {
    signedIn(await get(authApi.me));
  } catch {
    signedOut();
  }
}

export function chooseMerchant(id: string): void {
  configureApi({ merchant: id });
  void loadMe();
}

export function notify(tone: 'ok' | 'error', text: string): void {
  flash.value = { tone, text, path: current.value.path };
}
