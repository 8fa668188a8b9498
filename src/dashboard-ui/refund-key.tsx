// Settings → Refunds: which key may sign /v1/payment/refund. The payout key is the spec's rule;
// `either` accepts the payment key too (the common SDKs sign refunds with it), at a risk stated
// next to the choice.
import { useState } from 'preact/hooks';
import { formText } from './api.ts';
import { moneyApi } from '../contracts/dashboard/money.ts';
import { useStore } from './store.ts';
import { Card, Loading, Problem, useLoad } from './ui.tsx';

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
      notify('ok', 'The refund key setting was saved.');
      setting.reload();
    } catch (err) {
      setError(err);
    }
  };
  const risk = (
    <p class="muted small" data-testid="refund-key-risk">
      With <strong>either key</strong>, whoever holds the payment key (often embedded in a shop's code or server) can refund paid
      invoices to any address. Such refunds stay capped at the amount paid.
    </p>
  );
  return (
    <Card title="Refunds">
      <p class="muted small">Which API key may sign refunds of invoices (<span class="mono">/v1/payment/refund</span>).</p>
      {!setting.data ? (
        setting.error ? <Problem error={setting.error} /> : <Loading />
      ) : manage ? (
        <form class="stack-form" onSubmit={save}>
          <fieldset class="choices">
            <legend class="sr-only">Refund key</legend>
            <label>
              <input type="radio" name="refund_key" value="payout" defaultChecked={setting.data.refund_key === 'payout'} /> Payout key only (recommended)
            </label>
            <label>
              <input type="radio" name="refund_key" value="either" defaultChecked={setting.data.refund_key === 'either'} /> Payout or payment key (for SDKs that
              sign refunds with the payment key)
            </label>
          </fieldset>
          {risk}
          <Problem error={error} />
          <button class="btn primary" type="submit">
            Save refund key
          </button>
        </form>
      ) : (
        <>
          <p>{setting.data.refund_key === 'either' ? 'Payout or payment key' : 'Payout key only'}</p>
          {setting.data.refund_key === 'either' && risk}
        </>
      )}
    </Card>
  );
}
