// The dashboard's state: who is signed in, the note about what just happened, the colour theme and
// the API client with this session. One store per mounted app, passed down by Preact context
// (as the payment page does), never a module singleton.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { signal, type Signal } from '@preact/signals';
import { createApiClient, type ApiClient } from './api.ts';
import { current } from './route.ts';
import { authApi, type Me } from '../contracts/dashboard/auth.ts';
import { setLanguage } from './i18n/index.ts';
import { applyTheme as paint, asTheme, type Theme } from '../ui-kit/theme.ts';

export type { Me, Theme };

export interface Flash {
  tone: 'ok' | 'error';
  text: string;
  /** The view the note belongs to. */
  path: string;
}

export interface Store {
  /** undefined while the first /me is on its way; null when signed out. */
  me: Signal<Me | null | undefined>;
  /** A note about what just happened, shown on the view (path) it belongs to. */
  flash: Signal<Flash | null>;
  theme: Signal<Theme>;
  api: ApiClient;
  applyTheme(t: Theme): void;
  signedIn(m: Me): void;
  signedOut(): void;
  loadMe(): Promise<void>;
  chooseMerchant(id: string): void;
  notify(tone: 'ok' | 'error', text: string): void;
}

const THEME_KEY = 'satchel-dashboard-theme';

function initialTheme(): Theme {
  try {
    const saved = asTheme(localStorage.getItem(THEME_KEY));
    if (saved) return saved;
  } catch {
    /* storage may be blocked */
  }
  return matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

export function createStore(): Store {
  const me = signal<Me | null | undefined>(undefined);
  const flash = signal<Flash | null>(null);
  const theme = signal<Theme>(initialTheme());

  const signedIn = (m: Me): void => {
    api.session.csrf = m.csrf;
    me.value = m;
    void setLanguage(m.user.language); // the user's saved language, else the browser's
  };
  const signedOut = (): void => {
    api.session.csrf = '';
    me.value = null;
  };
  const api = createApiClient(signedOut);

  const loadMe = async (): Promise<void> => {
    try {
      signedIn(await api.get(authApi.me));
    } catch {
      signedOut();
    }
  };

  return {
    me,
    flash,
    theme,
    api,
    applyTheme(t) {
      theme.value = t;
      paint(t);
      try {
        localStorage.setItem(THEME_KEY, t);
      } catch {
        /* not kept: fine */
      }
    },
    signedIn,
    signedOut,
    loadMe,
    chooseMerchant(id) {
      api.session.merchant = id;
      void loadMe();
    },
    notify(tone, text) {
      flash.value = { tone, text, path: current.value.path };
    },
  };
}

export const StoreContext = createContext<Store | null>(null);

export function useStore(): Store {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useStore outside StoreContext');
  return store;
}
