// The colour theme both apps paint with: `data-theme` on the root element picks the dark or light
// block of the CSS variables.
export type Theme = 'dark' | 'light';

export function asTheme(value: unknown): Theme | null {
  return value === 'dark' || value === 'light' ? value : null;
}

export function applyTheme(theme: Theme, root: HTMLElement = document.documentElement): void {
  root.dataset.theme = theme;
}

/** What a person chose: a theme, or to follow the system's (the OS's light or dark setting). */
export type ThemeChoice = Theme | 'system';

export function asThemeChoice(value: unknown): ThemeChoice | null {
  return value === 'system' ? 'system' : asTheme(value);
}

/** The theme a choice paints with: 'system' follows the system's setting of the moment. */
export function resolveChoice(choice: ThemeChoice, systemDark: boolean): Theme {
  return choice === 'system' ? (systemDark ? 'dark' : 'light') : choice;
}
