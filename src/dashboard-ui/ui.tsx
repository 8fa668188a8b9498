// Small building blocks shared by the dashboard's views. Text from payers and merchants is only
// ever rendered as text (JSX children), never as HTML.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { follow, href, navigations } from './route.ts';
import { ApiError } from '../ui-kit/api-error.ts';
import { errorText, translatedError } from './error-text.ts';
import { copyText } from '../ui-kit/clipboard.ts';
import { useCardLabels } from './cards.ts';
import { StatusLabel } from './status-label.tsx';
import { t, type LabelFamily } from './i18n/index.ts';

export function Link(props: { to: string; children: ComponentChildren; class?: string; 'aria-current'?: 'page' | undefined }) {
  return (
    <a href={href(props.to)} onClick={follow} class={props.class} aria-current={props['aria-current']}>
      {props.children}
    </a>
  );
}

const STATUS_TONE: Record<string, string> = {
  paid: 'ok',
  paid_over: 'ok',
  delivered: 'ok',
  confirmed: 'ok',
  active: 'ok',
  owner: 'ok',
  wrong_amount: 'warn',
  process: 'info',
  check: 'info',
  confirm_check: 'info',
  pending: 'info',
  seen: 'info',
  refund_process: 'info',
  fail: 'bad',
  failed: 'bad',
  cancel: 'bad',
  system_fail: 'bad',
  blocked: 'bad',
  dropped: 'bad',
  refund_fail: 'bad',
  refund_paid: 'ok',
  locked: 'warn',
  assigned: 'ok',
  open: 'warn',
};

/** A code the server sent, labelled in the user's language (`family` says what the code describes). */
export function Badge({ value, kind }: { value: string; kind: LabelFamily }) {
  return <StatusLabel family={kind} code={value} class={`badge tone-${STATUS_TONE[value] ?? 'neutral'}`} />;
}

export function Page(props: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  const h1 = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${props.title} · Satchel`;
    // After an in-app navigation focus moves to the new view; a fresh load starts at the top.
    if (navigations.value > 0) h1.current?.focus();
  }, [props.title]);
  return (
    <section class="view" aria-labelledby="view-title">
      <div class="view-head">
        <h1 id="view-title" tabIndex={-1} ref={h1}>
          {props.title}
        </h1>
        {props.actions && <div class="view-actions">{props.actions}</div>}
      </div>
      {props.children}
    </section>
  );
}

export function Card(props: { title?: string; children: ComponentChildren; class?: string }) {
  return (
    <section class={`card ${props.class ?? ''}`} aria-label={props.title}>
      {props.title && <h2>{props.title}</h2>}
      {props.children}
    </section>
  );
}

export function Problem({ error }: { error: unknown }) {
  if (!error) return null;
  const text = errorText(error);
  // A translated refusal keeps the server's own words on its tooltip.
  return (
    <p class="notice tone-bad" role="alert" title={error instanceof ApiError && translatedError(error) ? error.message : undefined}>
      {text}
    </p>
  );
}

export function Loading() {
  return (
    <p class="loading" aria-busy="true">
      <span class="spinner" aria-hidden="true" /> {t('loading')}
    </p>
  );
}

/** Loads on mount and whenever `deps` change; `reload` fetches again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { data: T | undefined; error: unknown; reload: () => void } {
  const [state, setState] = useState<{ data: T | undefined; error: unknown }>({ data: undefined, error: null });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (data) => live && setState({ data, error: null }),
      (error: unknown) => live && setState((s) => ({ data: s.data, error })),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}

export function Copy({ text, label }: { text: string; label: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      class="btn small"
      onClick={() => {
        void copyText(text).then((ok) => ok && setDone(true));
      }}
    >
      {done ? t('copied') : label}
    </button>
  );
}

export function Field(props: { label: string; error?: string | null; hint?: string; children: (id: string, describedBy: string | undefined) => ComponentChildren; id: string }) {
  const describedBy = [props.hint ? `${props.id}-hint` : '', props.error ? `${props.id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.children(props.id, describedBy)}
      {props.hint && (
        <p id={`${props.id}-hint`} class="hint">
          {props.hint}
        </p>
      )}
      {props.error && (
        <p id={`${props.id}-error`} class="field-error">
          {props.error}
        </p>
      )}
    </div>
  );
}

/**
 * A table that may scroll sideways on a narrow screen (focusable, so the keyboard can scroll it
 * too); on a phone its rows become cards, each cell labelled with its column (cards.ts).
 */
export function TableScroll({ label, children }: { label: string; children: ComponentChildren }) {
  const box = useRef<HTMLDivElement>(null);
  useCardLabels(box);
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={label} ref={box}>
      {children}
    </div>
  );
}

/** A description list of label/value pairs. */
export function Facts({ rows }: { rows: Array<[string, ComponentChildren]> }) {
  return (
    <dl class="facts">
      {rows.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v ?? '—'}</dd>
        </div>
      ))}
    </dl>
  );
}
