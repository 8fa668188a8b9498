// Cancelling a subscription from its page: a button, then a confirmation in a modal dialog (the
// browser's own <dialog>: focus stays in it, Esc closes it, screen readers read it as one) that says
// what follows, then `cancel_by_user`.
import { useRef, useState } from 'preact/hooks';
import { useT, type MessageKey, type Translate } from './i18n/index.ts';
import './i18n/recurrence-english.ts';
import { CANCEL_REFUSALS, type CancelRefusal, type PayerRecurrence } from '../contracts/payer.ts';
import { ApiError, cancelRecurrence } from './api.ts';
import { useStore } from './store.ts';

const REFUSALS: Record<CancelRefusal, MessageKey> = {
  already_cancelled: 'rec_refused_already_cancelled',
  not_running: 'rec_refused_not_running',
};

function refusal(t: Translate, e: unknown): string {
  if (!(e instanceof ApiError)) return t('load_error_body');
  return e.code !== null && (CANCEL_REFUSALS as readonly string[]).includes(e.code) ? t(REFUSALS[e.code as CancelRefusal]) : e.message;
}

export function CancelSubscription({ rec }: { rec: PayerRecurrence }) {
  const t = useT();
  const store = useStore();
  const dialog = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  function open() {
    setError(null);
    const d = dialog.current;
    if (!d) return;
    if (typeof d.showModal === 'function') d.showModal();
    else d.setAttribute('open', '');
  }
  function close() {
    const d = dialog.current;
    if (!d) return;
    if (typeof d.close === 'function') d.close();
    else d.removeAttribute('open');
  }
  async function confirm() {
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      const view = await cancelRecurrence(rec.uuid);
      close();
      store.payable.value = view;
      store.announce(t('rec_cancelled_title'));
      store.refresh();
      // The button pressed is gone: focus goes to the new screen's heading.
      setTimeout(() => document.getElementById('screen-title')?.focus(), 0);
    } catch (e) {
      setError(t('rec_cancel_failed', { message: refusal(t, e) }));
      setBusy(false);
    }
  }

  return (
    <div class="actions">
      <button type="button" class="btn btn-danger" onClick={open} aria-haspopup="dialog">
        {t('rec_cancel')}
      </button>
      <dialog ref={dialog} class="dialog" aria-labelledby="rec-confirm-title" aria-describedby="rec-confirm-body">
        <h2 id="rec-confirm-title" class="title">
          {t('rec_confirm_title')}
        </h2>
        <p id="rec-confirm-body">{t('rec_confirm_body')}</p>
        {error && (
          <p class="form-error" role="alert">
            {error}
          </p>
        )}
        <div class="actions">
          <button type="button" class="btn btn-danger" onClick={confirm} disabled={busy} aria-busy={busy}>
            {t('rec_confirm_yes')}
          </button>
          <button type="button" class="btn btn-small" onClick={close} autoFocus>
            {t('rec_confirm_no')}
          </button>
        </div>
      </dialog>
    </div>
  );
}
