// The page's state and everything that changes it: polling, the server clock, choices,
// simulated payments, announcements and messages to an embedding widget.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { batch, computed, effect, signal, type ReadonlySignal, type Signal } from '@preact/signals';
import { ApiError, chooseCurrency, loadPayable, readInitialView, simulatePayment, type Payable } from './api.ts';
import { createServerClock, secondsLeft } from './clock.ts';
import type { Embed } from './embed.ts';
import { createI18n, pickLanguage, translate, type I18n, type MessageKey } from './i18n/index.ts';
import type { PayerInvoice, PayerRecurrence, SimulateMode } from '../contracts/payer.ts';
import { createPoller, type Poller } from './poller.ts';
import { readEmbedConfig, readRoute, type EmbedConfig, type Route } from './route.ts';
import { resolveTheme } from './theme.ts';
import { applyTheme, type Theme } from '../ui-kit/theme.ts';
import { accentPalette, applyAccent } from './accent.ts';

export type Screen =
  | 'choose'
  | 'pay'
  | 'partial'
  | 'time_up'
  | 'unavailable'
  | PayerInvoice['status'];

/** Which screen an invoice shows; `left` is seconds to expiry by the server's clock, if known. */
export function screenOf(invoice: PayerInvoice, left: number | null): Screen {
  if (invoice.unavailable && !invoice.is_final) return 'unavailable';
  if (invoice.status !== 'process') return invoice.status;
  if (invoice.options && !invoice.payer_currency) return 'choose';
  if (left === 0) return 'time_up';
  if (invoice.is_payment_multiple && invoice.remaining !== null && invoice.payment_amount !== null) return 'partial';
  return 'pay';
}

/**
 * Final, but a late payment can still be credited (money is never dropped: docs/lifecycle.md), so
 * the page keeps looking, slowly, while the payer has it open.
 */
export function mayStillChange(invoice: PayerInvoice): boolean {
  return invoice.is_final && (invoice.status === 'cancel' || invoice.status === 'wrong_amount' || invoice.status === 'fail');
}

const SCREEN_TITLES: Record<Screen, MessageKey> = {
  choose: 'choose_title',
  pay: 'pay_title',
  partial: 'partial_title',
  time_up: 'time_up_title',
  unavailable: 'unavailable_title',
  process: 'pay_title',
  check: 'check_title',
  paid: 'paid_title',
  paid_over: 'paid_over_title',
  fail: 'fail_title',
  wrong_amount: 'wrong_amount_title',
  cancel: 'cancel_title',
  system_fail: 'system_fail_title',
  refund_process: 'refund_process_title',
  refund_fail: 'refund_fail_title',
  refund_paid: 'refund_paid_title',
  locked: 'locked_title',
};

export function screenTitle(screen: Screen): MessageKey {
  return SCREEN_TITLES[screen];
}

export interface Store {
  route: Route | null;
  /** Set when shown inside the widget's iframe. */
  embed: EmbedConfig | null;
  i18n: I18n;
  payable: Signal<Payable | null>;
  /** Set when the page cannot show anything: unknown link. */
  fatal: Signal<'not_found' | null>;
  /** Failed polls in a row; non-zero shows "Reconnecting…". */
  failures: Signal<number>;
  /** The server's current time in unix ms, ticking every second. */
  now: Signal<number | null>;
  /** Seconds left to pay, by the server's clock; null for wallets or before the first answer. */
  left: ReadonlySignal<number | null>;
  screen: ReadonlySignal<Screen | 'wallet' | 'recurrence' | null>;
  theme: ReadonlySignal<Theme>;
  /** Text of the polite live region. */
  announcement: Signal<string>;
  announce(text: string): void;
  choose(currency: string, network: string): Promise<void>;
  simulate(mode: SimulateMode | { amount: string }): Promise<string>;
  openWallet(uri: string): boolean;
  /** Asks the server now (after the payer sent a payment from a browser wallet). */
  refresh(): void;
  requestClose(): void;
  /** Starts polling, ticking and messaging; returns the function that stops them. */
  start(): () => void;
}

export interface StoreEnv {
  win: Window;
  /** Monotonic milliseconds; performance.now() by default. */
  monotonic?: () => number;
}

export function createStore({ win, monotonic }: StoreEnv): Store {
  const route = readRoute(win.location.pathname);
  const params = new URLSearchParams(win.location.search);
  const embedConfig = readEmbedConfig(win.location.search);
  // The messaging module loads in start(); anything posted before that waits here.
  let embed: Embed | null = null;
  const unsent: Array<Parameters<Embed['post']>> = [];
  const post: Embed['post'] = (...message) => (embed ? embed.post(...message) : void unsent.push(message));
  const nav = win.navigator;
  const browserLanguages = nav.languages?.length ? nav.languages : [nav.language];
  // The server put the first view in the HTML: render it at once, before any request. Its
  // merchant's default language is the invoice's language (between ?lang= and the browser's).
  const embedded = route?.kind === 'invoice' ? readInitialView(win.document) : null;
  const initial = embedded && 'result' in embedded && embedded.result.uuid === route?.uuid.toLowerCase() ? embedded : null;
  const i18n = createI18n(pickLanguage(params.get('lang'), browserLanguages, initial?.result.merchant.language ?? null));
  // Without a first view, the invoice's language is known with the first answer.
  let languageKnown = initial !== null || params.get('lang') !== null;
  const clock = createServerClock(monotonic);

  const payable = signal<Payable | null>(null);
  const fatal = signal<'not_found' | null>(route ? null : 'not_found');
  const failures = signal(0);
  const now = signal<number | null>(null);
  const announcement = signal('');
  const embedTheme = signal<Theme | null>(null);
  const systemDark = signal(false);

  const left = computed(() => {
    const p = payable.value;
    const t = now.value;
    return p?.kind === 'invoice' && t !== null ? secondsLeft(p.expired_at, t) : null;
  });
  const screen = computed<Screen | 'wallet' | 'recurrence' | null>(() => {
    const p = payable.value;
    if (!p) return null;
    return p.kind === 'invoice' ? screenOf(p, left.value) : p.kind;
  });
  const theme = computed(() => {
    const p = payable.value;
    return resolveTheme({
      query: params.get('theme'),
      embed: embedTheme.value,
      invoice: p?.kind === 'invoice' ? p.theme : null,
      merchant: p?.merchant.theme ?? null,
      systemDark: systemDark.value,
    });
  });

  function receive(data: Payable) {
    if (!languageKnown) {
      languageKnown = true;
      const language = data.merchant.language;
      if (language && language !== i18n.lang.peek()) void i18n.setLanguage(pickLanguage(null, browserLanguages, language));
    }
    clock.sync(data.server_time);
    now.value = clock.now();
    payable.value = data;
  }

  if (initial) receive(initial.result);
  else if (embedded && 'status' in embedded) fatal.value = 'not_found';

  let poller: Poller | null = null;

  function announce(text: string) {
    // The same text twice in a row would not be read again, so make it differ invisibly.
    announcement.value = announcement.value === text ? `${text}\u00a0` : text;
  }

  async function choose(currency: string, network: string) {
    if (route?.kind !== 'invoice') return;
    const { data, etag } = await chooseCurrency(route.uuid, { currency, network });
    receive(data);
    poller?.reset(etag, data.is_final);
  }

  async function simulate(mode: SimulateMode | { amount: string }) {
    if (!route) throw new Error('no payable');
    const txid = await simulatePayment(
      typeof mode === 'string' ? { invoice: route.uuid, mode } : { wallet: route.uuid, amount: mode.amount },
    );
    poller?.poll();
    return txid;
  }

  function openWallet(uri: string): boolean {
    if (!embedConfig) return false;
    post('open-wallet', { uri });
    return true;
  }

  function refresh() {
    poller?.poll();
  }

  function requestClose() {
    if (embedConfig) post('close-request');
  }

  function start() {
    const stops: Array<() => void> = [];
    const t = () => translate(i18n.messages.peek(), i18n.locale.peek());

    if (route && !fatal.peek()) {
      poller = createPoller<Payable>({
        initial: initial ? { etag: initial.etag, data: initial.result } : undefined,
        load: (etag, abort) => loadPayable(route, etag, abort),
        onData: receive,
        onError(count, error) {
          batch(() => {
            if (error instanceof ApiError && error.status === 404) fatal.value = 'not_found';
            failures.value = count;
          });
        },
        onRecovered() {
          failures.value = 0;
        },
        isFatal: (error) => error instanceof ApiError && error.status === 404,
        isFinal: (data) => (data.kind === 'invoice' && data.is_final && !mayStillChange(data)) || (data.kind === 'recurrence' && isEnded(data.status)),
        isDormant: (data) => data.kind === 'invoice' && mayStillChange(data),
        doc: win.document,
        ...(route.kind !== 'invoice' ? { visibleMs: 10_000, hiddenMs: 60_000 } : {}),
      });
      poller.start();
      stops.push(() => poller?.stop());
    }

    // Tick on the server's second boundaries so the countdown never skips a number.
    let tickTimer: ReturnType<typeof setTimeout> | undefined;
    const tick = () => {
      const serverNow = clock.now();
      if (serverNow !== null) now.value = serverNow;
      tickTimer = setTimeout(tick, serverNow === null ? 1000 : 1000 - (serverNow % 1000) + 5);
    };
    tick();
    stops.push(() => clearTimeout(tickTimer));

    const media = win.matchMedia?.('(prefers-color-scheme: dark)');
    if (media) {
      systemDark.value = media.matches;
      const onChange = (event: MediaQueryListEvent) => (systemDark.value = event.matches);
      media.addEventListener?.('change', onChange);
      stops.push(() => media.removeEventListener?.('change', onChange));
    }
    stops.push(effect(() => applyTheme(theme.value, win.document.documentElement)));
    stops.push(effect(() => applyAccent(accentPalette(payable.value?.merchant.accent ?? null, theme.value), win.document.documentElement)));

    // Announce screen changes (not the first screen: it is what the page opened with).
    let lastScreen: Screen | 'wallet' | 'recurrence' | null = null;
    stops.push(
      effect(() => {
        const current = screen.value;
        if (current && lastScreen && current !== lastScreen && current !== 'wallet' && current !== 'recurrence') {
          announce(translate(i18n.messages.peek(), i18n.locale.peek())(screenTitle(current)));
        }
        if (current) lastScreen = current;
      }),
    );

    // Polite warnings when 5 and 1 minutes are left; only when crossing, not on opening.
    let lastLeft: number | null = null;
    stops.push(
      effect(() => {
        const l = left.value;
        const s = screen.peek();
        if (l !== null && lastLeft !== null && (s === 'pay' || s === 'partial')) {
          if (lastLeft > 300 && l <= 300 && l > 60) announce(t()('minutes_5'));
          else if (lastLeft > 60 && l <= 60 && l > 0) announce(t()('minutes_1'));
        }
        lastLeft = l;
      }),
    );

    // A message in the old language must not stay in the live region after a switch (a screen
    // reader would read it again, in the wrong language): the region empties on every switch.
    let lastLang = i18n.lang.peek();
    stops.push(
      effect(() => {
        const lang = i18n.lang.value;
        if (lang !== lastLang) announcement.value = '';
        lastLang = lang;
      }),
    );

    let wasReconnecting = false;
    stops.push(
      effect(() => {
        const reconnecting = failures.value > 0 && !fatal.value;
        if (reconnecting && !wasReconnecting) announce(t()('reconnecting'));
        wasReconnecting = reconnecting;
      }),
    );

    if (embedConfig) {
      win.document.documentElement.classList.add('is-embed-root');
      let stopped = false;
      let disconnect = () => {};
      stops.push(() => {
        stopped = true;
        disconnect();
      });
      void import('./embed.ts').then(({ createEmbed, connectEmbed }) => {
        if (stopped) return;
        embed = createEmbed(embedConfig, win);
        unsent.splice(0).forEach((message) => embed?.post(...message));
        disconnect = connectEmbed(embed, { win, payable, fatal, failures, messages: i18n.messages, embedTheme });
      });
    }
    return () => stops.forEach((stop) => stop());
  }

  return {
    route,
    embed: embedConfig,
    i18n,
    payable,
    fatal,
    failures,
    now,
    left,
    screen,
    theme,
    announcement,
    announce,
    choose,
    simulate,
    openWallet,
    refresh,
    requestClose,
    start,
  };
}

/** A recurrence that nothing moves any more: polling stops. */
export function isEnded(status: PayerRecurrence['status']): boolean {
  return status === 'cancel_by_merchant' || status === 'cancel_by_user' || status === 'inactive';
}

export const StoreContext = createContext<Store | null>(null);

export function useStore(): Store {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useStore outside StoreContext');
  return store;
}
