// Settings: the merchant's default callback and return URLs, what payments are received into
// (settings-receiving.tsx), the public profile (in
// settings-profile.tsx), API keys, the refund key (refund-key.tsx), users (owners invite and remove), this account's sessions, and
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
import { Receiving } from './settings-receiving.tsx';
import { labelText } from './status-label.tsx';
import { AuditRaw, AuditWhat } from './audit-sentence.tsx';
import { t } from './i18n/index.ts';

// The invitation's words come with the language tables' views words; looked up by name (English
// until those tables are in) so this file does not depend on which of the two changes lands first.
// Once both are in, `tInvite` can be `t`.
const INVITE_EN: Record<string, string> = {
  invite_by_email: 'Invite by email',
  invite_email_sent: 'Invitation sent to {email}.',
  invite_email_failed: 'The email could not be sent ({reason}). Share the invite link below instead.',
  invite_email_off: 'Email is not set up on this server, so invitations are links you share yourself.',
};
function tInvite(key: string, params?: Record<string, string | number>): string {
  const lookup = t as (key: string) => string | undefined;
  if (lookup(key) !== undefined) return t(key as Parameters<typeof t>[0], params);
  return Object.entries(params ?? {}).reduce((s, [k, v]) => s.replace(`{${k}}`, String(v)), INVITE_EN[key] ?? key);
}

export function Settings() {
  const { me } = useStore();
  const manage = me.value?.can_manage ?? false;
  return (
    <Page title={t('nav_settings')}>
      <Defaults manage={manage} />
      {manage && <Keys />}
      <Receiving owner={me.value?.user.role === 'owner'} />
      <RefundKey manage={manage} />
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
      setMailed(m ? { sent: m.sent, text: m.sent ? tInvite('invite_email_sent', { email: r.user.email }) : tInvite('invite_email_failed', { reason: m.reason ?? '' }) } : null);
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
      else notify('ok', `${u.email} was removed.`);
      users.reload();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <Card title="Users">
      {users.error ? <Problem error={users.error} /> : !users.data ? <Loading /> : (
        <TableScroll label="Users">
          <table>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Status</th>
                {manage && <th scope="col"><span class="sr-only">Actions</span></th>}
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
                            New link<span class="sr-only"> for {u.email}</span>
                          </button>
                          <button type="button" class="btn small danger" onClick={() => confirm(`Remove ${u.email}? They are signed out at once.`) && void act(authApi.removeUser, u)}>
                            Remove<span class="sr-only"> {u.email}</span>
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
            One-time link for <strong>{link.email}</strong> (valid 24 hours; shown once):
          </p>
          <p class="mono break">{link.url}</p>
          <Copy text={link.url} label="Copy link" />
        </div>
      )}
      <Problem error={error} />
      {manage && (
        <form class="inline-form" onSubmit={invite} noValidate>
          <Field id="invite-email" label="Email">
            {(id) => <input id={id} name="email" type="email" required />}
          </Field>
          <Field id="invite-role" label="Role">
            {(id) => (
              <select id={id} name="role">
                <option value="viewer">Viewer (read only)</option>
                <option value="owner">Owner (everything)</option>
              </select>
            )}
          </Field>
          {/* With SMTP configured the gateway mails the link; without, the owner passes it on. */}
          <button class="btn primary" type="submit">
            {emailOn ? tInvite('invite_by_email') : 'Create an invite link'}
          </button>
        </form>
      )}
      {manage && !emailOn && <p class="hint">{tInvite('invite_email_off')}</p>}
    </Card>
  );
}

function Security() {
  const { api, me, signedOut } = useStore();
  const [error, setError] = useState<unknown>(null);
  return (
    <Card title="Sessions">
      <p>Signed in as {me.value?.user.email}. Sessions end after 2 hours without activity and 12 hours after signing in.</p>
      <Problem error={error} />
      <button
        type="button"
        class="btn"
        onClick={() => {
          api.post(authApi.logoutAll, {}).then(signedOut, setError);
        }}
      >
        Sign out everywhere
      </button>
    </Card>
  );
}

function Audit() {
  const { api } = useStore();
  const log = useLoad(() => api.get(authApi.audit), []);
  return (
    <Card title="Audit log">
      {log.error ? <Problem error={log.error} /> : !log.data ? <Loading /> : log.data.length === 0 ? <p class="muted">{t('empty_audit')}</p> : (
        <TableScroll label="Audit log">
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                <th scope="col">Details</th>
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
    if (!confirm(`Rotate the ${kind} key? The current one stops working at once; your shop needs the new one.`)) return;
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
    <Card title="API keys">
      <Problem error={keys.error ?? error} />
      {keys.data && (
        <ul class="stack plain">
          {(['payment', 'payout'] as const).map((kind) => (
            <li key={kind} class="key-row">
              <span>
                {kind === 'payment' ? 'Payment key' : 'Payout key'} <span class="mono">{keys.data![kind]}…</span>
              </span>
              <button type="button" class="btn small" onClick={() => void rotate(kind)}>
                Rotate<span class="sr-only"> the {kind} key</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {fresh && (
        <div class="notice tone-ok" role="status">
          <p>New {fresh.kind} key (shown once; store it now):</p>
          <p class="mono break" data-testid="new-key">
            {fresh.key}
          </p>
          <Copy text={fresh.key} label="Copy key" />
        </div>
      )}
    </Card>
  );
}

const URL_FIELDS: Array<[keyof DefaultUrls, string, string]> = [
  ['url_callback', 'Callback URL', 'receives the webhooks of invoices and static wallets created without url_callback'],
  ['url_return', 'Return URL', 'offered on the payment page before paying, when an invoice has no url_return'],
  ['url_success', 'Success URL', 'offered after a successful payment, when an invoice has no url_success'],
];

const RULE_TEXT: Record<string, string> = {
  'validation.url': 'Enter an http:// or https:// address.',
  'validation.min.string': 'At least 6 characters.',
  'validation.max.string': 'At most 255 characters.',
  'validation.string': 'Enter an address as text.',
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
      notify('ok', 'The default URLs were saved.');
      urls.reload();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <Card title="Default URLs">
      <p class="muted small">Used when an invoice or static wallet is created without its own. Existing invoices and wallets keep what they were created with.</p>
      {!urls.data ? (
        urls.error ? <Problem error={urls.error} /> : <Loading />
      ) : manage ? (
        <form class="stack-form" onSubmit={save} noValidate>
          {URL_FIELDS.map(([k, label, hint]) => {
            const problem = fieldErrors[k]?.[0];
            return (
              <Field key={k} id={`def-${k}`} label={label} hint={hint} error={problem ? (RULE_TEXT[problem] ?? 'Not a valid address.') : null}>
                {(id, by) => (
                  <input id={id} name={k} type="url" inputMode="url" maxLength={255} defaultValue={urls.data![k] ?? ''} aria-describedby={by} aria-invalid={problem ? true : undefined} placeholder="https://" autoComplete="off" />
                )}
              </Field>
            );
          })}
          {!(error instanceof ApiError && error.errors) && <Problem error={error} />}
          <button class="btn primary" type="submit">
            Save default URLs
          </button>
        </form>
      ) : (
        <dl class="facts">
          {URL_FIELDS.map(([k, label]) => (
            <div key={k}>
              <dt>{label}</dt>
              <dd class="mono break">{urls.data![k] ?? '—'}</dd>
            </div>
          ))}
        </dl>
      )}
    </Card>
  );
}
