// Colour theme: ?theme= wins, then what the embedding page asked for, then the invoice's
// theme, then the merchant's default theme, then the system preference.
export type Theme = 'dark' | 'light';

export interface ThemeInputs {
  query: string | null;
  embed: Theme | null;
  invoice: Theme | null;
  merchant?: Theme | null;
  systemDark: boolean;
}

export function asTheme(value: unknown): Theme | null {
  return value === 'dark' || value === 'light' ? value : null;
}

export function resolveTheme(inputs: ThemeInputs): Theme {
  return asTheme(inputs.query) ?? inputs.embed ?? inputs.invoice ?? inputs.merchant ?? (inputs.systemDark ? 'dark' : 'light');
}

export function applyTheme(theme: Theme, root: HTMLElement = document.documentElement): void {
  root.dataset.theme = theme;
}
