// The merchant's accent colour, adjusted per theme so that everything drawn with it keeps WCAG AA:
// text on the main button (4.5:1, also on hover), links on every surface (4.5:1), and the accent
// and focus ring against the surfaces (3:1). Adjusting means mixing toward black in the light
// theme and toward white in the dark one, by the smallest step that passes; at the far end
// (black or white) every pair passes, so there is always an answer.
import type { Theme } from '../ui-kit/theme.ts';

/** The surfaces of each theme (the same values as styles.css; test/page/contrast.test.ts checks). */
export const SURFACES: Record<Theme, { bg: string; surface: string; surface2: string }> = {
  light: { bg: '#eef0f4', surface: '#ffffff', surface2: '#f4f5f8' },
  dark: { bg: '#0d0f13', surface: '#161920', surface2: '#1e222b' },
};

/** The two text colours a button can carry. */
export const ON_ACCENT = { light: '#ffffff', dark: '#0b0e1f' } as const;

export interface AccentPalette {
  accent: string;
  'accent-hover': string;
  'on-accent': string;
  link: string;
  focus: string;
}

type Rgb = [number, number, number];

function parse(hex: string): Rgb {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

function hex(rgb: Rgb): string {
  return `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;
}

function mix(color: string, toward: string, t: number): string {
  const a = parse(color);
  const b = parse(toward);
  return hex([a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t]);
}

function luminance(color: string): number {
  const [r, g, b] = parse(color).map((c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as Rgb;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function contrastRatio(a: string, b: string): number {
  const [x, y] = [luminance(a), luminance(b)];
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
}

// A little above the thresholds, so rounding to whole bytes never lands just under them.
const TEXT = 4.55;
const NON_TEXT = 3.05;

function firstPassing(color: string, toward: string, ok: (c: string) => boolean): string {
  for (let step = 0; step <= 50; step++) {
    const c = mix(color, toward, step / 50);
    if (ok(c)) return c;
  }
  return toward;
}

/** The colours to use for `accent` in `theme`; null input keeps the page's own (returns null). */
export function accentPalette(accent: string | null, theme: Theme): AccentPalette | null {
  if (!accent || !/^#[0-9a-fA-F]{6}$/.test(accent)) return null;
  const base = accent.toLowerCase();
  const s = SURFACES[theme];
  const surfaces = [s.bg, s.surface, s.surface2];
  const away = theme === 'light' ? '#000000' : '#ffffff';
  const onSurfaces = (c: string, ratio: number) => surfaces.every((bg) => contrastRatio(c, bg) >= ratio);

  // The button: keep the merchant's colour when some text colour reads on it; otherwise move it.
  let on: string = ON_ACCENT.light;
  let hover = base;
  const button = firstPassing(base, away, (c) => {
    if (!onSurfaces(c, NON_TEXT)) return false;
    for (const text of [ON_ACCENT.light, ON_ACCENT.dark]) {
      // Hover moves away from the text colour, so it never reads worse than the button itself.
      const h = mix(c, text === ON_ACCENT.light ? '#000000' : '#ffffff', 0.12);
      if (contrastRatio(text, c) >= TEXT && contrastRatio(text, h) >= TEXT) {
        on = text;
        hover = h;
        return true;
      }
    }
    return false;
  });
  const link = firstPassing(base, away, (c) => onSurfaces(c, TEXT));
  return { accent: button, 'accent-hover': hover, 'on-accent': on, link, focus: link };
}

/** Sets (or, for null, removes) the palette as CSS variables on the root element, via the CSSOM. */
export function applyAccent(palette: AccentPalette | null, root: HTMLElement = document.documentElement): void {
  for (const name of ['accent', 'accent-hover', 'on-accent', 'link', 'focus'] as const) {
    if (palette) root.style.setProperty(`--${name}`, palette[name]);
    else root.style.removeProperty(`--${name}`);
  }
}
