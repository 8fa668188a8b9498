// Settings → Payer emails: whether payers who gave an address when subscribing get the
// subscription emails (subscribed, renewal due, paid, stopped, cancelled; docs/recurring.md).
// Sent only when the operator configured SMTP; the card says so when it is not.
import { useState } from 'preact/hooks';
import { moneyApi } from '../contracts/dashboard/money.ts';
import { useStore } from './store.ts';
import { Card, Loading, Problem, useLoad } from './ui.tsx';
import { t } from './i18n/index.ts';

export function PayerEmails({ manage }: { manage: boolean }) {
  const { api, notify } = useStore();
  const setting = useLoad(() => api.get(moneyApi.payerEmails), []);
  const [error, setError] = useState<unknown>(null);
  const save = async (e: Event) => {
    e.preventDefault();
    const on = (new FormData(e.currentTarget as HTMLFormElement)).get('payer_emails') === 'on';
    setError(null);
    try {
      await api.post(moneyApi.setPayerEmails, { payer_emails: on });
      notify('ok', t('pe_saved'));
      setting.reload();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <Card title={t('pe_title')}>
      <p class="muted small">{t('pe_intro')}</p>
      {!setting.data ? (
        setting.error ? <Problem error={setting.error} /> : <Loading />
      ) : (
        <>
          {!setting.data.email_enabled && (
            <p class="muted small" data-testid="payer-emails-no-smtp">
              {t('pe_no_smtp')}
            </p>
          )}
          {manage ? (
            <form class="stack-form" onSubmit={save}>
              <label>
                <input type="checkbox" name="payer_emails" data-testid="payer-emails" defaultChecked={setting.data.payer_emails} /> {t('pe_label')}
              </label>
              <Problem error={error} />
              <button class="btn primary" type="submit">
                {t('pe_save')}
              </button>
            </form>
          ) : (
            <p>{setting.data.payer_emails ? t('pe_on') : t('pe_off')}</p>
          )}
        </>
      )}
    </Card>
  );
}
