// Test mode only: send a simulated payment through the simulator API.
import { useState } from 'preact/hooks';
import { useT } from './i18n/index.ts';
import type { Payable } from './api.ts';
import { ApiError } from './api.ts';
import { SIMULATE_MODES, type SimulateMode } from '../contracts/payer.ts';
import { useStore } from './store.ts';

const MODE_LABELS = { full: 'sim_full', partial: 'sim_partial', over: 'sim_over' } as const;

export function Simulator({ payable }: { payable: Payable }) {
  const t = useT();
  const store = useStore();
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string; txid?: string } | null>(null);
  const [amount, setAmount] = useState('');

  // Only while a payment is expected: not on outcomes, holds or refunds.
  if (payable.kind === 'invoice' && (!payable.address || (payable.status !== 'process' && payable.status !== 'check'))) return null;
  if (payable.kind === 'wallet' && payable.status !== 'active') return null;

  async function run(mode: SimulateMode | { amount: string }) {
    setBusy(true);
    setResult(null);
    try {
      const txid = await store.simulate(mode);
      const text = t('sim_sent');
      setResult({ ok: true, text, txid });
      store.announce(text);
    } catch (e) {
      const text = t('sim_failed', { message: e instanceof ApiError ? e.message : String(e) });
      setResult({ ok: false, text });
      store.announce(text);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section class="card sim" aria-labelledby="sim-title">
      <h2 id="sim-title" class="sim-title">
        {t('sim_title')}
      </h2>
      {payable.kind === 'invoice' ? (
        <div class="sim-modes">
          {SIMULATE_MODES.map((mode) => (
            <button type="button" class="btn btn-small" key={mode} disabled={busy} onClick={() => run(mode)}>
              {t(MODE_LABELS[mode])}
            </button>
          ))}
        </div>
      ) : (
        <form
          class="sim-wallet"
          onSubmit={(e) => {
            e.preventDefault();
            if (/^\d+(\.\d+)?$/.test(amount.trim())) void run({ amount: amount.trim() });
          }}
        >
          <label for="sim-amount">{t('sim_amount')}</label>
          <input
            id="sim-amount"
            inputMode="decimal"
            autocomplete="off"
            pattern="\d+(\.\d+)?"
            required
            value={amount}
            onInput={(e) => setAmount(e.currentTarget.value)}
          />
          <button type="submit" class="btn btn-small" disabled={busy}>
            {t('sim_send')}
          </button>
        </form>
      )}
      {result && (
        <p class={result.ok ? 'sim-result' : 'sim-result is-error'}>
          {result.text}
          {result.txid && <span class="mono txid">txid {result.txid}</span>}
        </p>
      )}
    </section>
  );
}
