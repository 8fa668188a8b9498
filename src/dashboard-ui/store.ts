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
import { applyTheme as paint, asThemeChoice, resolveChoice, type Theme, type ThemeChoice } from '../ui-kit/theme.ts';

export type { Me, Theme, ThemeChoice };

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
  /** The theme painted now. */
  theme: Signal<Theme>;
  /** What the person chose: light, dark, or the system's (the default until they choose). */
  themeChoice: Signal<ThemeChoice>;
  api: ApiClient;
  /** Remembers the choice (in this browser) and paints with it; 'system' follows the OS as it changes. */
  chooseTheme(t: ThemeChoice): void;
  /** Paints the remembered choice and follows the system's setting while the choice is 'system'; returns the stop. */
  followTheme(): () => void;
  signedIn(m: Me): void;
  signedOut(): void;
  loadMe(): Promise<void>;
  chooseMerchant(id: string): void;
  notify(tone: 'ok' | 'error', text: string): void;
}

const THEME_KEY = 'satchel-dashboard-theme';

const DARK_QUERY = '(prefers-color-scheme: dark)';

/** The remembered choice; 'system' until someone chooses (the theme then follows the OS). */
function savedChoice(): ThemeChoice {
  try {
    return asThemeChoice(localStorage.getItem(THEME_KEY)) ?? 'system';
  } catch {
    return 'system'; // storage may be blocked
  }
}

function systemDark(): boolean {
  return typeof matchMedia === 'function' && matchMedia(DARK_QUERY).matches;
}

export function createStore(): Store {
  const me = signal<Me | null | undefined>(undefined);
  const flash = signal<Flash | null>(null);
  const themeChoice = signal<ThemeChoice>(savedChoice());
  const theme = signal<Theme>(resolveChoice(themeChoice.value, systemDark()));
  const repaint = (): void => {
    theme.value = resolveChoice(themeChoice.value, systemDark());
    paint(theme.value);
  };

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
    themeChoice,
    api,
    chooseTheme(t) {
      themeChoice.value = t;
      repaint();
      try {
        // 'system' is the default: forgetting the choice means following the OS again.
        if (t === 'system') localStorage.removeItem(THEME_KEY);
        else localStorage.setItem(THEME_KEY, t);
      } catch {
        /* not kept: fine */
      }
    },
    followTheme() {
      repaint();
      if (typeof matchMedia !== 'function') return () => {};
      const query = matchMedia(DARK_QUERY);
      // Only a 'system' choice changes with the OS; repaint() resolves the choice either way.
      const changed = (): void => repaint();
      query.addEventListener('change', changed);
      return () => query.removeEventListener('change', changed);
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
