// Settings → Refunds: which key may sign /v1/payment/refund. The payout key is the spec's rule;
// `either` accepts the payment key too (the common SDKs sign refunds with it), at a risk stated
// next to the choice.
import { useState } from 'preact/hooks';
import { formText } from './api.ts';
import { moneyApi } from '../contracts/dashboard/money.ts';
import { useStore } from './store.ts';
import { Card, Loading, Problem, useLoad } from './ui.tsx';
import { t, tParts } from './i18n/index.ts';

type RefundKey = 'payout' | 'either';

export function RefundKey({ manage }: { manage: boolean }) {
  const { api, notify } = useStore();
  const setting = useLoad(() => api.get(moneyApi.refundKey), []);
  const [error, setError] = useState<unknown>(null);
  const save = async (e: Event) => {
    e.preventDefault();
    const choice = formText(new FormData(e.currentTarget as HTMLFormElement), 'refund_key');
    setError(null);
    try {
      await api.post(moneyApi.setRefundKey, { refund_key: choice });
      notify('ok', t('rk_saved'));
      setting.reload();
    } catch (err) {
      setError(err);
    }
  };
  const risk = (
    <p class="muted small" data-testid="refund-key-risk">
      {tParts('rk_risk', { either: <strong>{t('rk_either_key')}</strong> })}
    </p>
  );
  return (
    <Card title={t('refunds')}>
      <p class="muted small">{tParts('rk_intro', { path: <span class="mono">/v1/payment/refund</span> })}</p>
      {!setting.data ? (
        setting.error ? <Problem error={setting.error} /> : <Loading />
      ) : manage ? (
        <form class="stack-form" onSubmit={save}>
          <fieldset class="choices">
            <legend class="sr-only">{t('rk_legend')}</legend>
            <label>
              <input type="radio" name="refund_key" value="payout" defaultChecked={setting.data.refund_key === 'payout'} /> {t('rk_payout_only_recommended')}
            </label>
            <label>
              <input type="radio" name="refund_key" value="either" defaultChecked={setting.data.refund_key === 'either'} /> {t('rk_either_sdk')}
            </label>
          </fieldset>
          {risk}
          <Problem error={error} />
          <button class="btn primary" type="submit">
            {t('rk_save')}
          </button>
        </form>
      ) : (
        <>
          <p>{setting.data.refund_key === 'either' ? t('rk_either') : t('rk_payout_only')}</p>
          {setting.data.refund_key === 'either' && risk}
        </>
      )}
    </Card>
  );
}
