// The colour theme both apps paint with: `data-theme` on the root element picks the dark or light
// block of the CSS variables.
export type Theme = 'dark' | 'light';

export function asTheme(value: unknown): Theme | null {
  return value === 'dark' || value === 'light' ? value : null;
}

export function applyTheme(theme: Theme, root: HTMLElement = document.documentElement): void {
  root.dataset.theme = theme;
}
