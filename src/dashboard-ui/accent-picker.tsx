// The accent colour of the payment page, picked with the system colour picker or typed as #rrggbb,
// with a live check of how it reads in each theme. The check is the payment page's own
// (accentPalette): where the colour lacks contrast the page paints a darker or lighter shade of it,
// and the owner sees that shade before saving rather than being surprised on the page.
import { useState } from 'preact/hooks';
import { accentPalette, contrastRatio, ON_ACCENT, SURFACES } from '../page/accent.ts';
import type { Theme } from '../ui-kit/theme.ts';
import { t, tParts } from './i18n/index.ts';

/** The accent the payment page uses when the merchant sets none (tokens.css, light theme). */
const DEFAULT_ACCENT = '#3a4dd6';
const HEX = /^#[0-9a-fA-F]{6}$/;

export interface AccentCheck {
  theme: Theme;
  /** Contrast of the better text colour (white or near-black) on the chosen colour: a button's words. */
  text: number;
  /** That text colour. */
  on: string;
  /** The lowest contrast of the chosen colour against the theme's surfaces. */
  surface: number;
  /** The shade the page paints buttons with instead, when the chosen one fails; null when it passes. */
  shade: string | null;
}

/** How `accent` reads in each theme, as the payment page will judge it. */
export function checkAccent(accent: string): AccentCheck[] | null {
  if (!HEX.test(accent)) return null;
  const color = accent.toLowerCase();
  return (['light', 'dark'] as const).map((theme) => {
    const palette = accentPalette(color, theme)!;
    const s = SURFACES[theme];
    const [on, text] = (Object.values(ON_ACCENT) as string[]).map((c) => [c, contrastRatio(c, color)] as const).reduce((a, b) => (b[1] > a[1] ? b : a));
    const surface = Math.min(...[s.bg, s.surface, s.surface2].map((bg) => contrastRatio(color, bg)));
    const changed = palette.accent !== color || palette.link !== color;
    return { theme, text, on, surface, shade: changed ? palette.link : null };
  });
}

const ratio = (r: number) => `${(Math.floor(r * 10) / 10).toFixed(1)}:1`;

export function AccentPicker({ initial }: { initial: string | null }) {
  const [value, setValue] = useState(initial ?? '');
  const typed = value.trim();
  const checks = checkAccent(typed);
  const shown = HEX.test(typed) ? typed.toLowerCase() : DEFAULT_ACCENT;
  return (
    <div class="field accent-field">
      <label for="pr-accent">{t('accent_label')}</label>
      <div class="accent-inputs">
        <input type="color" class="accent-swatch" aria-label={t('accent_pick')} value={shown} onInput={(e) => setValue((e.currentTarget as HTMLInputElement).value)} />
        <input id="pr-accent" name="accent" size={9} value={value} onInput={(e) => setValue((e.currentTarget as HTMLInputElement).value)} aria-describedby="pr-accent-hint pr-accent-check" spellcheck={false} autoComplete="off" />
      </div>
      <p id="pr-accent-hint" class="hint">
        {t('accent_hint')}
      </p>
      <div id="pr-accent-check" class="accent-check" aria-live="polite">
        {typed !== '' && !checks && <p class="field-error">{t('accent_invalid')}</p>}
        {checks?.map((c) => (
          <p key={c.theme} class={`accent-row ${c.shade ? 'tone-warn' : ''}`} data-theme-check={c.theme}>
            <span class="accent-sample" style={{ background: typed, color: c.on }} aria-hidden="true">
              Aa
            </span>
            <span>
              {t('accent_ratios', { theme: c.theme === 'light' ? t('accent_light') : t('accent_dark'), text: ratio(c.text), surface: ratio(c.surface) })}{' '}
              {c.shade ? (
                <>
                  {tParts('accent_low', { shade: <span class="mono">{c.shade}</span>, dot: <span class="accent-dot" style={{ background: c.shade }} aria-hidden="true" /> })}
                </>
              ) : (
                t('accent_ok')
              )}
            </span>
          </p>
        ))}
      </div>
    </div>
  );
}
