// Settings: the merchant's default callback and return URLs, what payments are received into
// (settings-receiving.tsx), the public profile (in
// settings-profile.tsx), API keys, the refund key (refund-key.tsx), payer emails (payer-emails.tsx), users (owners invite and remove), this account's sessions, and
// the audit log of changes.
import { useState } from 'preact/hooks';
import { ApiError, formText } from './api.ts';
import { authApi, type User } from '../contracts/dashboard/auth.ts';
import { moneyApi } from '../contracts/dashboard/money.ts';
import { walletApi, type DefaultUrls } from '../contracts/dashboard/wallets.ts';
import { useStore } from './store.ts';
import { time } from './format.ts';
import { Badge, Card, Copy, Field, Loading, Page, Problem, TableScroll, useLoad } from './ui.tsx';
import { Networks } from './settings-networks.tsx';
import { Readiness } from './settings-readiness.tsx';
import { Profile } from './settings-profile.tsx';
import { RefundKey } from './refund-key.tsx';
import { PayerEmails } from './payer-emails.tsx';
import { Receiving } from './settings-receiving.tsx';
import { labelText } from './status-label.tsx';
import { AuditRaw, AuditWhat } from './audit-sentence.tsx';
import { t, tParts, type MessageKey } from './i18n/index.ts';

export function Settings() {
  const { me } = useStore();
  const manage = me.value?.can_manage ?? false;
  return (
    <Page title={t('nav_settings')}>
      <Defaults manage={manage} />
      {manage && <Keys />}
      <Receiving owner={me.value?.user.role === 'owner'} />
      <RefundKey manage={manage} />
      <PayerEmails manage={manage} />
      {manage && <Profile />}
      <Users manage={manage} />
      <Security />
      <Networks />
      {me.value?.user.role === 'admin' && <Readiness />}
      {manage && <Audit />}
    </Page>
  );
}

function Users({ manage }: { manage: boolean }) {
  const { api, me, notify } = useStore();
  const users = useLoad(() => api.get(authApi.users), []);
  const [link, setLink] = useState<{ email: string; url: string } | null>(null);
  const [mailed, setMailed] = useState<{ sent: boolean; text: string } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const emailOn = me.value?.email_enabled === true;
  const invite = async (e: Event) => {
    e.preventDefault();
    const formEl = e.currentTarget as HTMLFormElement;
    const form = new FormData(formEl);
    setError(null);
    try {
      const r = await api.post(authApi.invite, { email: formText(form, 'email'), role: formText(form, 'role') });
      setLink({ email: r.user.email, url: r.link });
      const m = r.email;
      setMailed(m ? { sent: m.sent, text: m.sent ? t('invite_email_sent', { email: r.user.email }) : t('invite_email_failed', { reason: m.reason ?? '' }) } : null);
      formEl.reset();
      users.reload();
    } catch (err) {
      setError(err);
    }
  };
  const act = async (route: typeof authApi.removeUser | typeof authApi.resetLink, u: User) => {
    setError(null);
    try {
      const r: { link?: string } = await api.post<{ id?: string }, object>(route, { id: u.id });
      setMailed(null);
      if (r.link) setLink({ email: u.email, url: r.link });
      else notify('ok', t('us_removed', { email: u.email }));
      users.reload();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <Card title={t('us_title')}>
      {users.error ? <Problem error={users.error} /> : !users.data ? <Loading /> : (
        <TableScroll label={t('us_title')}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t('email')}</th>
                <th scope="col">{t('us_role')}</th>
                <th scope="col">{t('col_status')}</th>
                {manage && <th scope="col"><span class="sr-only">{t('us_actions')}</span></th>}
              </tr>
            </thead>
            <tbody>
              {users.data.map((u) => (
                <tr key={u.id}>
                  <td>{u.email}</td>
                  <td>{labelText('role', u.role)}</td>
                  <td>{u.disabled ? <Badge value="blocked" kind="user" /> : u.has_password ? <Badge value="active" kind="user" /> : <Badge value="pending" kind="user" />}</td>
                  {manage && (
                    <td class="row-actions">
                      {!u.disabled && u.id !== me.value?.user.id && (
                        <div class="row-buttons">
                          <button type="button" class="btn small" onClick={() => void act(authApi.resetLink, u)}>
                            {t('us_new_link')}<span class="sr-only"> {t('us_for', { email: u.email })}</span>
                          </button>
                          <button type="button" class="btn small danger" onClick={() => confirm(t('us_remove_confirm', { email: u.email })) && void act(authApi.removeUser, u)}>
                            {t('us_remove')}<span class="sr-only"> {u.email}</span>
                          </button>
                        </div>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {link && (
        <div class={`notice ${mailed && !mailed.sent ? 'tone-warn' : 'tone-ok'}`} role="status">
          {mailed && <p>{mailed.text}</p>}
          <p>
            {tParts('us_link_for', { email: <strong>{link.email}</strong> })}
          </p>
          <p class="mono break">{link.url}</p>
          <Copy text={link.url} label={t('us_copy_link')} />
        </div>
      )}
      <Problem error={error} />
      {manage && (
        <form class="inline-form" onSubmit={invite} noValidate>
          <Field id="invite-email" label={t('email')}>
            {(id) => <input id={id} name="email" type="email" required />}
          </Field>
          <Field id="invite-role" label={t('us_role')}>
            {(id) => (
              <select id={id} name="role">
                <option value="viewer">{t('us_viewer')}</option>
                <option value="owner">{t('us_owner')}</option>
              </select>
            )}
          </Field>
          {/* With SMTP configured the gateway mails the link; without, the owner passes it on. */}
          <button class="btn primary" type="submit">
            {emailOn ? t('invite_by_email') : t('invite_link')}
          </button>
        </form>
      )}
      {manage && !emailOn && <p class="hint">{t('invite_email_off')}</p>}
    </Card>
  );
}

function Security() {
  const { api, me, signedOut } = useStore();
  const [error, setError] = useState<unknown>(null);
  return (
    <Card title={t('se_title')}>
      <p>{t('se_intro', { email: me.value?.user.email ?? '' })}</p>
      <Problem error={error} />
      <button
        type="button"
        class="btn"
        onClick={() => {
          api.post(authApi.logoutAll, {}).then(signedOut, setError);
        }}
      >
        {t('se_sign_out_all')}
      </button>
    </Card>
  );
}

function Audit() {
  const { api } = useStore();
  const log = useLoad(() => api.get(authApi.audit), []);
  return (
    <Card title={t('au_title')}>
      {log.error ? <Problem error={log.error} /> : !log.data ? <Loading /> : log.data.length === 0 ? <p class="muted">{t('empty_audit')}</p> : (
        <TableScroll label={t('au_title')}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t('au_when')}</th>
                <th scope="col">{t('au_who')}</th>
                <th scope="col">{t('au_what')}</th>
                <th scope="col">{t('audit_details')}</th>
              </tr>
            </thead>
            <tbody>
              {log.data.map((e) => (
                <tr key={e.id}>
                  <td class="nowrap">{time(e.at)}</td>
                  <td>{e.email}</td>
                  <td class="audit-what">
                    <AuditWhat entry={e} />
                  </td>
                  <td class="small break audit-detail">
                    <AuditRaw entry={e} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </Card>
  );
}

function Keys() {
  const { api } = useStore();
  const keys = useLoad(() => api.get(moneyApi.keys), []);
  const [fresh, setFresh] = useState<{ kind: string; key: string } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const rotate = async (kind: 'payment' | 'payout') => {
    if (!confirm(t(kind === 'payment' ? 'key_rotate_payment_confirm' : 'key_rotate_payout_confirm'))) return;
    setError(null);
    try {
      // `from`: the key as this page shows it; a rotation made meanwhile elsewhere wins and this one is refused.
      setFresh(await api.post(moneyApi.rotate, { kind, confirm: true, from: keys.data?.[kind] }));
      keys.reload();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <Card title={t('key_title')}>
      <Problem error={keys.error ?? error} />
      {keys.data && (
        <ul class="stack plain">
          {(['payment', 'payout'] as const).map((kind) => (
            <li key={kind} class="key-row">
              <span>
                {kind === 'payment' ? t('key_payment') : t('key_payout')} <bdi dir="ltr" class="mono">{keys.data![kind]}…</bdi>
              </span>
              <button type="button" class="btn small" onClick={() => void rotate(kind)}>
                {t('key_rotate')}<span class="sr-only"> {t(kind === 'payment' ? 'key_rotate_payment_which' : 'key_rotate_payout_which')}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {fresh && (
        <div class="notice tone-ok" role="status">
          <p>{fresh.kind === 'payment' ? t('key_new_payment') : t('key_new_payout')}</p>
          <p class="mono break" data-testid="new-key">
            {fresh.key}
          </p>
          <Copy text={fresh.key} label={t('key_copy')} />
        </div>
      )}
    </Card>
  );
}

const URL_FIELDS: Array<[keyof DefaultUrls, MessageKey, MessageKey]> = [
  ['url_callback', 'callback_url', 'du_callback_hint'],
  ['url_return', 'du_return', 'du_return_hint'],
  ['url_success', 'du_success', 'du_success_hint'],
];

const RULE_TEXT: Record<string, MessageKey> = {
  'validation.url': 'du_rule_url',
  'validation.min.string': 'du_rule_min',
  'validation.max.string': 'du_rule_max',
  'validation.string': 'du_rule_string',
};

function Defaults({ manage }: { manage: boolean }) {
  const { api, notify } = useStore();
  const urls = useLoad(() => api.get(walletApi.settings), []);
  const [error, setError] = useState<unknown>(null);
  const fieldErrors = error instanceof ApiError ? (error.errors ?? {}) : {};
  const save = async (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    setError(null);
    try {
      await api.post(walletApi.saveSettings, Object.fromEntries(URL_FIELDS.map(([k]) => [k, String(f.get(k) ?? '').trim()])));
      notify('ok', t('du_saved'));
      urls.reload();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <Card title={t('du_title')}>
      <p class="muted small">{t('du_intro')}</p>
      {!urls.data ? (
        urls.error ? <Problem error={urls.error} /> : <Loading />
      ) : manage ? (
        <form class="stack-form" onSubmit={save} noValidate>
          {URL_FIELDS.map(([k, label, hint]) => {
            const problem = fieldErrors[k]?.[0];
            return (
              <Field key={k} id={`def-${k}`} label={t(label)} hint={t(hint)} error={problem ? t(RULE_TEXT[problem] ?? 'du_rule_other') : null}>
                {(id, by) => (
                  <input id={id} name={k} type="url" inputMode="url" maxLength={255} defaultValue={urls.data![k] ?? ''} aria-describedby={by} aria-invalid={problem ? true : undefined} placeholder="https://" autoComplete="off" />
                )}
              </Field>
            );
          })}
          {!(error instanceof ApiError && error.errors) && <Problem error={error} />}
          <button class="btn primary" type="submit">
            {t('du_save')}
          </button>
        </form>
      ) : (
        <dl class="facts">
          {URL_FIELDS.map(([k, label]) => (
            <div key={k}>
              <dt>{t(label)}</dt>
              <dd class="mono break">{urls.data![k] ?? '—'}</dd>
            </div>
          ))}
        </dl>
      )}
    </Card>
  );
}
