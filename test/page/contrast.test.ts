// Both themes meet WCAG 2.x AA: 4.5:1 for text, 3:1 for focus rings and control borders.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';

const css = readFileSync(new URL('../../src/page/styles.css', import.meta.url), 'utf8');
/** The palette the page shares with the dashboard, which the page's stylesheet imports. */
const tokens = readFileSync(new URL('../../src/ui-kit/tokens.css', import.meta.url), 'utf8');

function block(selector: string, from = 0, sheet = css): Record<string, string> {
  const start = sheet.indexOf(`${selector} {`, from);
  if (start < 0) throw new Error(`no ${selector} block`);
  const body = sheet.slice(start, sheet.indexOf('}', start));
  const vars: Record<string, string> = {};
  for (const [, name, value] of body.matchAll(/--([\w-]+):\s*([^;]+);/g)) vars[name!] = value!.trim();
  return vars;
}

/** A theme's variables: the shared palette, then the page's own (which win, as in the cascade). */
const theme = (selector: string) => ({ ...block(selector, 0, tokens), ...block(selector) });

const light = theme(':root');
const dark = theme("[data-theme='dark']");
const darkFromSystem = block(":root:not([data-theme='light'])", css.indexOf('@media (prefers-color-scheme: dark)'));

function luminance(hex: string): number {
  const m = /^#([0-9a-f]{6})$/i.exec(hex);
  if (!m) throw new Error(`not a #rrggbb colour: ${hex}`);
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(m[1]!.slice(i, i + 2), 16) / 255).map((c) =>
    c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4,
  );
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

const TEXT: Array<[string, string]> = [
  ['text', 'bg'],
  ['text', 'surface'],
  ['text', 'surface-2'],
  ['muted', 'bg'],
  ['muted', 'surface'],
  ['muted', 'surface-2'],
  ['link', 'surface'],
  ['link', 'surface-2'],
  ['link', 'bg'],
  ['on-accent', 'accent'],
  ['on-accent', 'accent-hover'],
  ['success-text', 'success-bg'],
  ['success-text', 'surface'],
  ['warn-text', 'warn-bg'],
  ['danger-text', 'danger-bg'],
  ['danger-text', 'surface'],
  ['test-text', 'test-bg'],
];

const NON_TEXT: Array<[string, string]> = [
  ['focus', 'bg'],
  ['focus', 'surface'],
  ['focus', 'surface-2'],
  ['border-strong', 'surface'],
  ['accent', 'surface'],
];

describe.each([
  ['light', light],
  ['dark', dark],
])('%s theme', (_, vars) => {
  test.each(TEXT)('text %s on %s >= 4.5:1', (fg, bg) => {
    expect(contrast(vars[fg]!, vars[bg]!)).toBeGreaterThanOrEqual(4.5);
  });
  test.each(NON_TEXT)('%s against %s >= 3:1', (fg, bg) => {
    expect(contrast(vars[fg]!, vars[bg]!)).toBeGreaterThanOrEqual(3);
  });
});

test('the system-preference dark block is the same as the chosen dark theme', () => {
  expect(darkFromSystem).toEqual(dark);
  expect(Object.keys(dark).sort()).toEqual(Object.keys(light).sort());
});

test('the contrast formula matches known values', () => {
  expect(contrast('#000000', '#ffffff')).toBeCloseTo(21, 5);
  expect(contrast('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
});

test('the QR is dark on white in both themes (not themed)', () => {
  expect(css).toMatch(/\.qr \{[^}]*background: #fff;/);
});

describe("a merchant's accent colour", async () => {
  const { accentPalette, contrastRatio, SURFACES } = await import('../../src/page/accent.ts');

  test('the accent module knows the same surfaces as the stylesheet', () => {
    expect(SURFACES.light).toEqual({ bg: light.bg, surface: light.surface, surface2: light['surface-2'] });
    expect(SURFACES.dark).toEqual({ bg: dark.bg, surface: dark.surface, surface2: dark['surface-2'] });
    expect(contrastRatio('#777777', '#ffffff')).toBeCloseTo(contrast('#777777', '#ffffff'), 10);
  });

  // Hard cases (pale yellow, white, black, mid grey, pure hues) and a grid over the whole cube.
  const samples = ['#ffff00', '#ffd84d', '#ffffff', '#000000', '#777777', '#ff0000', '#00ff00', '#0000ff', '#3a4dd6', '#0a7f5a', '#ff8800', '#00ffff'];
  for (let r = 0; r < 256; r += 51) for (let g = 0; g < 256; g += 51) for (let b = 0; b < 256; b += 51) {
    samples.push(`#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`);
  }

  test.each(['light', 'dark'] as const)('keeps AA on every surface of the %s theme, whatever the colour', (theme) => {
    const vars = theme === 'light' ? light : dark;
    for (const accent of samples) {
      const p = accentPalette(accent, theme)!;
      const all: Record<string, string> = { ...vars, ...p };
      for (const [fg, bg] of TEXT) expect(contrast(all[fg]!, all[bg]!), `${accent}: ${fg} on ${bg}`).toBeGreaterThanOrEqual(4.5);
      for (const [fg, bg] of NON_TEXT) expect(contrast(all[fg]!, all[bg]!), `${accent}: ${fg} on ${bg}`).toBeGreaterThanOrEqual(3);
    }
  });

  test('leaves a colour that already passes as the merchant chose it', () => {
    expect(accentPalette('#0a5c40', 'light')).toMatchObject({ accent: '#0a5c40', 'on-accent': '#ffffff', link: '#0a5c40' });
    expect(accentPalette('#ffd84d', 'dark')).toMatchObject({ accent: '#ffd84d', 'on-accent': '#0b0e1f', link: '#ffd84d' });
    // Pale yellow in the light theme must move (darker), and stays a yellow-brown, not black.
    const moved = accentPalette('#ffd84d', 'light')!;
    expect(moved.accent).not.toBe('#ffd84d');
    expect(moved.accent).not.toBe('#000000');
    expect(accentPalette(null, 'light')).toBeNull();
  });
});
