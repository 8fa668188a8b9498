// @vitest-environment jsdom
// The accent colour picker of Settings → Public profile: the colour is picked or typed, and a live
// check says how it reads in each theme, with the payment page's own contrast rules: a colour that
// fails gets a warning naming the shade the page paints instead; one that passes reads well; a
// value that is no colour says how to write one; empty means the default and shows no check.
import { afterEach, describe, expect, test } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/preact';
import { AccentPicker, checkAccent } from '../../src/dashboard-ui/accent-picker.tsx';
import { accentPalette, contrastRatio } from '../../src/page/accent.ts';

afterEach(cleanup);

const rows = (container: Element) => [...container.querySelectorAll<HTMLElement>('[data-theme-check]')];

describe('accent colour picker', () => {
  test('a well-contrasted colour reads well in both themes; no warning', () => {
    const { container } = render(<AccentPicker initial="#3a4dd6" />);
    const field = screen.getByLabelText('Accent colour') as HTMLInputElement;
    expect(field.value).toBe('#3a4dd6');
    expect(field.getAttribute('aria-describedby')).toContain('pr-accent-check');
    const light = rows(container).find((r) => r.dataset.themeCheck === 'light')!;
    expect(light.textContent).toContain('Reads well.');
    expect(light.className).not.toContain('tone-warn');
    expect(light.textContent).toContain(`text on it ${(Math.floor(contrastRatio('#ffffff', '#3a4dd6') * 10) / 10).toFixed(1)}:1`);
  });

  test('typing a pale colour warns at once, for the light theme, naming the shade the page uses', () => {
    const { container } = render(<AccentPicker initial={null} />);
    expect(rows(container)).toHaveLength(0); // empty: the default, nothing to check
    fireEvent.input(screen.getByLabelText('Accent colour'), { target: { value: '#ffe14d' } });
    const [light, dark] = ['light', 'dark'].map((t) => rows(container).find((r) => r.dataset.themeCheck === t)!);
    expect(light!.className).toContain('tone-warn');
    const shade = accentPalette('#ffe14d', 'light')!.link;
    expect(shade).not.toBe('#ffe14d');
    expect(light!.textContent).toContain(`Too little contrast: the payment page uses ${shade}`);
    // Yellow on the dark page reads fine.
    expect(dark!.textContent).toContain('Reads well.');
    expect(dark!.className).not.toContain('tone-warn');
  });

  test('the system picker and the typed value are one value; a value that is no colour says how to write one', () => {
    const { container } = render(<AccentPicker initial="#3a4dd6" />);
    const picker = screen.getByLabelText('Pick the accent colour') as HTMLInputElement;
    fireEvent.input(picker, { target: { value: '#101010' } });
    expect((screen.getByLabelText('Accent colour') as HTMLInputElement).value).toBe('#101010');
    // Near-black vanishes on the dark page: the dark theme warns.
    expect(rows(container).find((r) => r.dataset.themeCheck === 'dark')!.className).toContain('tone-warn');
    fireEvent.input(screen.getByLabelText('Accent colour'), { target: { value: 'blue' } });
    expect(rows(container)).toHaveLength(0);
    expect(container.textContent).toContain('Not a colour');
  });

  test('checkAccent agrees with the page: a warning exactly when the page would paint another shade', () => {
    for (const c of ['#3a4dd6', '#ffe14d', '#101010', '#00ff00', '#777777', '#8d9dff']) {
      for (const check of checkAccent(c)!) {
        const p = accentPalette(c, check.theme)!;
        expect(check.shade !== null, `${c} ${check.theme}`).toBe(p.accent !== c || p.link !== c);
      }
    }
    expect(checkAccent('#12345')).toBeNull();
    expect(checkAccent('')).toBeNull();
  });
});
