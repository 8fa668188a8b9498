// Settings → Receiving: what the merchant's payments are received into on each real network. On a
// watch-only network that is the merchant's own material (an extended public key or descriptor, a
// cold address, or a wallet's primary address with its private view key, where the network takes
// one: then a second field asks for the key); a network without it is not offered to payers. An owner sets or replaces it with
// the password given again; a real network in hot custody is named in a warning, since the
// gateway's seed can spend what it receives.
import { useState } from 'preact/hooks';
import { formText } from './api.ts';
import { t } from './i18n/index.ts';
import { CUSTODY_WARNINGS, custodyApi, type ReceivingChange, type ReceivingNetwork } from '../contracts/dashboard/custody.ts';
import { useStore } from './store.ts';
import { time } from './format.ts';
import { Card, Field, Loading, Problem, useLoad } from './ui.tsx';

/** A Bitcoin-family network takes a key or a descriptor: which one the pasted text is. */
function inputFor(n: ReceivingNetwork, text: string, viewKey: string): { xpub?: string; descriptor?: string; address?: string; view_key?: string } {
  if (n.inputs.includes('viewKey')) return { address: text, view_key: viewKey };
  if (n.inputs.includes('address')) return { address: text };
  return /^\s*(wpkh|pkh|sh)\(/i.test(text) && n.inputs.includes('descriptor') ? { descriptor: text } : { xpub: text };
}

/**
 * A change's warnings (a contract as cold address, a network in hot custody) in the user's language
 * from their codes; the server's English when one of them is a code this dashboard does not know.
 */
export function warningText(done: Pick<ReceivingChange, 'warning' | 'warnings'>): string {
  const known = done.warnings.every((w) => (CUSTODY_WARNINGS as readonly string[]).includes(w.code));
  if (!known || done.warnings.length === 0) return done.warning ?? '';
  return done.warnings.map((w) => t(`rc_warn_${w.code as (typeof CUSTODY_WARNINGS)[number]}`, w.params)).join(' ');
}

/**
 * What to give for a network, in the user's language, by what it takes: an extended key or a
 * descriptor, or an address of the merchant's own wallet; the server's English words (`accepts`)
 * inside the language's sentence for anything else.
 */
export function giveHint(n: Pick<ReceivingNetwork, 'network' | 'inputs' | 'accepts'>): string {
  if (n.inputs.includes('xpub') || n.inputs.includes('descriptor')) return t('rc_give_key');
  if (n.inputs.length === 1 && n.inputs[0] === 'address') return t('rc_give_address', { network: n.network });
  return t('rc_give', { accepts: n.accepts ?? '' });
}

export function Receiving({ owner }: { owner: boolean }) {
  const { api } = useStore();
  const data = useLoad(() => api.get(custodyApi.receiving), []);
  return (
    <Card title={t('rc_title')}>
      {data.error ? <Problem error={data.error} /> : !data.data ? <Loading /> : (
        <>
          {data.data.hot_networks.map((code) => (
            <p key={code} class="notice tone-warn" role="status" data-testid="hot-warning">
              {t('rc_hot_warning', { network: code })}
            </p>
          ))}
          {data.data.networks.length === 0 ? (
            <p class="muted">{t('rc_all_simulated')}</p>
          ) : (
            <ul class="stack plain">
              {data.data.networks.map((n) => (
                <li key={n.network}>
                  <NetworkReceiving n={n} owner={owner} onChanged={data.reload} />
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </Card>
  );
}

function NetworkReceiving({ n, owner, onChanged }: { n: ReceivingNetwork; owner: boolean; onChanged: () => void }) {
  const { api } = useStore();
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<ReceivingChange | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const formEl = e.currentTarget as HTMLFormElement;
    const form = new FormData(formEl);
    const text = (formText(form, 'material') ?? '').trim();
    const viewKey = (formText(form, 'view_key') ?? '').trim();
    setError(null);
    setDone(null);
    setBusy(true);
    try {
      const r = await api.post(custodyApi.setReceiving, { network: n.network, ...inputFor(n, text, viewKey), password: formText(form, 'password') });
      setDone(r);
      formEl.reset();
      onChanged();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const id = n.network.toLowerCase();
  // The network takes a wallet's primary address and, beside it, the wallet's private view key.
  const takesViewKey = n.inputs.includes('viewKey');
  return (
    <section aria-labelledby={`recv-${id}`} class="receiving-network">
      <h3 id={`recv-${id}`}>
        {n.network} <span class="muted small">{n.mode}</span>
      </h3>
      {n.mode === 'hot' ? (
        <p class="muted small">{t('rc_hot')}</p>
      ) : n.current ? (
        <>
          <p class="mono break" data-testid={`material-${id}`}>
            {n.current.summary}
          </p>
          <p class="muted small">
            {t('rc_set_by', { time: time(n.current.set_at), who: n.current.set_by, count: n.current.derived })}
          </p>
        </>
      ) : (
        <p class="notice tone-warn">{t('rc_none', { network: n.network })}</p>
      )}
      {done && (
        <div class={`notice ${done.warning ? 'tone-warn' : 'tone-ok'}`} role="status">
          <p>
            {done.outcome === 'unchanged'
              ? t('rc_unchanged', { network: done.network })
              : done.old
                ? t('rc_changed_was', { network: done.network, summary: done.summary, old: done.old })
                : t('rc_changed', { network: done.network, summary: done.summary })}
          </p>
          {done.warning && <p>{t('rc_warning', { warning: warningText(done) })}</p>}
          {done.outcome !== 'unchanged' && (
            <p class="small">{done.webhook_url ? t('rc_webhook_queued', { url: done.webhook_url }) : t('rc_no_webhook')}</p>
          )}
        </div>
      )}
      {owner && n.mode === 'watch-only' && n.accepts && (
        <form class="stack-form" onSubmit={submit} noValidate>
          <Field
            id={`recv-${id}-material`}
            label={takesViewKey ? t('receiving_primary_address') : n.current ? t('rc_replace_with') : t('rc_receive_into')}
            hint={takesViewKey ? t('receiving_primary_address_hint') : giveHint(n)}
          >
            {(fid, by) => <input id={fid} name="material" required autoComplete="off" spellcheck={false} class="mono" aria-describedby={by} />}
          </Field>
          {takesViewKey && (
            <Field id={`recv-${id}-view-key`} label={t('receiving_view_key')} hint={t('receiving_view_key_hint')}>
              {(fid, by) => <input id={fid} name="view_key" type="password" required autoComplete="off" spellcheck={false} class="mono" aria-describedby={by} />}
            </Field>
          )}
          <Field id={`recv-${id}-password`} label={t('rc_password')} hint={n.current ? t('rc_password_hint_replace') : t('rc_password_hint')}>
            {(fid, by) => <input id={fid} name="password" type="password" required autoComplete="current-password" aria-describedby={by} />}
          </Field>
          <Problem error={error} />
          <button class="btn primary" type="submit" disabled={busy}>
            {n.current ? t('rc_replace', { network: n.network }) : t('rc_set', { network: n.network })}
          </button>
        </form>
      )}
    </section>
  );
}
