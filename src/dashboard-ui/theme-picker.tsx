// The colour theme control of the header: light, dark, or the system's (the default). A labelled
// select rather than an icon button, so its state and choices are read out and seen as words.
import { asThemeChoice } from '../ui-kit/theme.ts';
import { useStore } from './store.ts';
import { t } from './i18n/index.ts';

const CHOICES = [
  ['system', 'theme_system'],
  ['light', 'theme_light'],
  ['dark', 'theme_dark'],
] as const;

export function ThemePicker() {
  const { chooseTheme, themeChoice } = useStore();
  return (
    <label class="theme-pick">
      <span class="theme-pick-label">{t('theme')}</span>
      <select
        value={themeChoice.value}
        onChange={(e) => {
          const choice = asThemeChoice((e.currentTarget as HTMLSelectElement).value);
          if (choice) chooseTheme(choice);
        }}
      >
        {CHOICES.map(([value, text]) => (
          <option key={value} value={value}>
            {t(text)}
          </option>
        ))}
      </select>
    </label>
  );
}
