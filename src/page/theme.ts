// Colour theme: ?theme= wins, then what the embedding page asked for, then the invoice's
// theme, then the merchant's default theme, then the system preference.
import { asTheme, type Theme } from '../ui-kit/theme.ts';

export interface ThemeInputs {
  query: string | null;
  embed: Theme | null;
  invoice: Theme | null;
  merchant?: Theme | null;
  systemDark: boolean;
}

export function resolveTheme(inputs: ThemeInputs): Theme {
  return asTheme(inputs.query) ?? inputs.embed ?? inputs.invoice ?? inputs.merchant ?? (inputs.systemDark ? 'dark' : 'light');
}
