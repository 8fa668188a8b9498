// A code the server sent (a status, a kind, an outcome) as a person reads it: its label in the
// user's language, what it means on hover and on keyboard focus, and the raw code alongside (the
// code itself stays what exports and the API carry). A code the dashboard does not know yet shows
// as itself under a neutral explanation, never as an empty badge.
import { t, tLabel, type LabelFamily } from './i18n/index.ts';
import './status-label.css';

/** The label of a code, for places that only take text (a select's options, a sentence). */
export function labelText(family: LabelFamily, code: string): string {
  return tLabel(family, code)?.[0] ?? code;
}

/** What a code means and the code itself, as one tooltip text. */
export function labelHint(family: LabelFamily, code: string): string {
  const meaning = tLabel(family, code)?.[1] ?? t('unknown_code');
  return `${meaning} (${t('code', { code })})`;
}

export function StatusLabel(props: { family: LabelFamily; code: string; class: string }) {
  const hint = labelHint(props.family, props.code);
  return (
    // Focusable so a keyboard user gets the explanation too (shown by status-label.css on focus).
    <span class={`${props.class} status-label`} title={hint} data-hint={hint} data-code={props.code} tabIndex={0}>
      <span class="status-text">{labelText(props.family, props.code)}</span>
      <span class="sr-only">: {hint}</span>
    </span>
  );
}
