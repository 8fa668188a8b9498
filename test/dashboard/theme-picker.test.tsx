// @vitest-environment jsdom
// The dashboard's theme: it follows the system's light or dark setting (also when that changes)
// until the person chooses in the labelled Theme control; the choice is remembered in this browser
// and painted at once; choosing System again forgets it and follows the OS once more.
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/preact';
import { createStore, StoreContext, type Store } from '../../src/dashboard-ui/store.ts';
import { ThemePicker } from '../../src/dashboard-ui/theme-picker.tsx';

/** A system colour setting the test can flip, as matchMedia reports it. */
function fakeSystem(dark: boolean) {
  const listeners = new Set<() => void>();
  const query = {
    get matches() {
      return dark;
    },
    addEventListener: (_: string, f: () => void) => listeners.add(f),
    removeEventListener: (_: string, f: () => void) => listeners.delete(f),
  };
  vi.stubGlobal('matchMedia', (q: string) => {
    expect(q).toBe('(prefers-color-scheme: dark)');
    return query;
  });
  return {
    set(next: boolean) {
      dark = next;
      for (const f of listeners) f();
    },
    listening: () => listeners.size,
  };
}

const painted = () => document.documentElement.dataset.theme;
const KEY = 'satchel-dashboard-theme';

function mount(store: Store) {
  const stop = store.followTheme();
  render(
    <StoreContext.Provider value={store}>
      <ThemePicker />
    </StoreContext.Provider>,
  );
  return { stop, select: screen.getByLabelText('Theme') as HTMLSelectElement };
}

beforeEach(() => {
  localStorage.clear();
  delete document.documentElement.dataset.theme;
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('dashboard theme', () => {
  test('follows the system until someone chooses; the choice is painted, remembered and kept when the system changes', () => {
    const system = fakeSystem(false);
    const { stop, select } = mount(createStore());
    expect(select.value).toBe('system');
    expect([...select.options].map((o) => o.textContent)).toEqual(['System', 'Light', 'Dark']);
    expect(painted()).toBe('light');
    system.set(true); // the OS switches to dark: so does the dashboard
    expect(painted()).toBe('dark');
    expect(localStorage.getItem(KEY)).toBeNull();

    fireEvent.change(select, { target: { value: 'light' } });
    expect(painted()).toBe('light');
    expect(localStorage.getItem(KEY)).toBe('light');
    system.set(true);
    system.set(false);
    system.set(true); // a chosen theme no longer follows the OS
    expect(painted()).toBe('light');
    stop();
    expect(system.listening()).toBe(0);
  });

  test('a later visit starts with the remembered choice; choosing System forgets it and follows the OS again', () => {
    localStorage.setItem(KEY, 'dark');
    const system = fakeSystem(false);
    const store = createStore();
    const { select } = mount(store);
    expect(select.value).toBe('dark');
    expect(painted()).toBe('dark');
    expect(store.theme.value).toBe('dark');

    fireEvent.change(select, { target: { value: 'system' } });
    expect(localStorage.getItem(KEY)).toBeNull();
    expect(painted()).toBe('light');
    system.set(true);
    expect(painted()).toBe('dark');
    expect(store.theme.value).toBe('dark');
  });

  test('a stored value that is no theme counts as no choice', () => {
    localStorage.setItem(KEY, 'purple');
    fakeSystem(true);
    const { select } = mount(createStore());
    expect(select.value).toBe('system');
    expect(painted()).toBe('dark');
  });
});
