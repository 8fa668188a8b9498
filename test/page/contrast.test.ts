// Both themes meet WCAG 2.x AA: 4.5:1 for text, 3:1 for focus rings and control borders.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';

const css = readFileSync(new URL('../../src/page/styles.css', import.meta.url), 'utf8');

function block(selector: string, from = 0): Record<string, string> {
  const start = css.indexOf(`${selector} {`, from);
  if (start < 0) throw new Error(`no ${selector} block`);
  const body = css.slice(start, css.indexOf('}', start));
  const vars: Record<string, string> = {};
  for (const [, name, value] of body.matchAll(/--([\w-]+):\s*([^;]+);/g)) vars[name!] = value!.trim();
  return vars;
}

const light = block(':root');
const dark = block("[data-theme='dark']");
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
