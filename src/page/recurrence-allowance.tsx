// "Approve automatic renewals" (docs/recurring.md): on a subscription paid with a token on an EVM
// network that offers it, the payer approves the gateway's collector once from a browser wallet (then signs a message proving the address is theirs);
// each period exactly one period's amount is then taken when due. The terms (cap, amount per
// period, period, next date, collector, how to revoke) are shown before the wallet is asked
// anything. Loaded lazily from ./recurrence.tsx, only for a subscription on a chosen network.
// One allowance (payer -> collector) serves all of a payer's subscriptions in a token, so the
// page adds this cap to what is already allowed (said to the payer, with approve(0) first where
// the token is approve-only); where the token has EIP-2612 permit the wallet signs a permit
// instead (no transaction, no gas). A transaction not mined within MINE_TIMEOUT_MS is said, and
// its hash kept so that pressing again waits for it rather than approving twice.
import { useEffect, useState } from 'preact/hooks';
import { useI18n, useT, type MessageKey } from './i18n/index.ts';
import './i18n/recurrence-english.ts';
import type { PayerAllowance, PayerRecurrence } from '../contracts/payer.ts';
import { ApiError, allowance } from './api.ts';
import { useAmount } from './ui.tsx';
import { WalletGlyph } from './icons.tsx';
import { useBrowserWallets, type BrowserWallet } from './wallets.ts';
import { WalletError, approveWithWallet, fromBaseUnits, mined, permitWithWallet, planApproval, signWithWallet, stillKnown, type ApprovalPlan } from './evm-tx.ts';
import { allowanceMessage } from '../contracts/allowance-message.ts';

const EVERY: Record<PayerRecurrence['period'], MessageKey> = {
  weekly: 'rec_every_weekly',
  monthly: 'rec_every_monthly',
  three_month: 'rec_every_three_month',
};

type Step = 'connect' | 'reset' | 'approve' | 'permit' | 'permit_wait' | 'sign';
type State = { kind: 'idle' } | { kind: 'busy'; wallet: string; step: Step } | { kind: 'on' } | { kind: 'error'; message: string; timeout?: boolean };

const STEP: Record<Step, MessageKey> = {
  connect: 'allow_confirm',
  reset: 'allow_step_reset',
  approve: 'allow_confirm',
  permit: 'allow_permit',
  permit_wait: 'allow_permit_wait',
  sign: 'allow_sign',
};

/** The approval (or permit) transaction of a try that timed out, kept per subscription across reloads. */
const pendingKey = (uuid: string) => `satchel.allowance.${uuid}`;
function loadPending(uuid: string): { address: string; hash: string } | null {
  try {
    const v = JSON.parse(localStorage.getItem(pendingKey(uuid)) ?? 'null') as { address?: unknown; hash?: unknown } | null;
    return v && typeof v.address === 'string' && typeof v.hash === 'string' ? { address: v.address, hash: v.hash } : null;
  } catch {
    return null;
  }
}
/**
 * The total an approve-only token is being set to, kept from the moment its approve(0) is sent until
 * the approval of the total is mined: if the payer rejects (or loses) the second step, the retry
 * reads an allowance of 0 and would approve only this subscription's cap, dropping the other
 * subscriptions that shared it; the kept total is approved instead.
 */
const totalKey = (uuid: string) => `satchel.allowance-total.${uuid}`;
function loadTotal(uuid: string, address: string): bigint | null {
  try {
    const v = JSON.parse(localStorage.getItem(totalKey(uuid)) ?? 'null') as { address?: unknown; total?: unknown } | null;
    if (!v || typeof v.address !== 'string' || typeof v.total !== 'string' || !/^\d{1,78}$/.test(v.total)) return null;
    return v.address.toLowerCase() === address.toLowerCase() ? BigInt(v.total) : null;
  } catch {
    return null;
  }
}
function saveTotal(uuid: string, value: { address: string; total: bigint } | null): void {
  try {
    if (value) localStorage.setItem(totalKey(uuid), JSON.stringify({ address: value.address, total: value.total.toString() }));
    else localStorage.removeItem(totalKey(uuid));
  } catch {
    // storage refused (private mode): nothing is kept
  }
}

function forgetPending(uuid: string): void {
  try {
    localStorage.removeItem(pendingKey(uuid));
  } catch {
    // storage refused: nothing was kept
  }
}
function savePending(uuid: string, value: { address: string; hash: string } | null): void {
  if (!value) saveTotal(uuid, null);
  try {
    if (value) localStorage.setItem(pendingKey(uuid), JSON.stringify(value));
    else localStorage.removeItem(pendingKey(uuid));
  } catch {
    // storage refused (private mode): a retry then simply asks again
  }
}

export function AutoRenew({ rec }: { rec: PayerRecurrence }) {
  const [terms, setTerms] = useState<PayerAllowance | null>(null);
  useEffect(() => {
    let live = true;
    // Not offered here (another network, a coin, no collector): the section is simply not shown.
    allowance(rec.uuid).then(
      (t) => live && setTerms(t),
      () => live && setTerms(null),
    );
    return () => {
      live = false;
    };
  }, [rec.uuid, rec.network, rec.payer_currency]);
  if (!terms || !terms.chain || !terms.chain.contract) return null;
  return <Terms uuid={rec.uuid} terms={terms} />;
}

function Terms({ uuid, terms }: { uuid: string; terms: PayerAllowance }) {
  const t = useT();
  const amount = useAmount();
  const locale = useI18n().locale.value;
  const wallets = useBrowserWallets(true);
  const on = terms.recorded?.status === 'active';
  const [state, setState] = useState<State>(on ? { kind: 'on' } : { kind: 'idle' });
  const chain = terms.chain!;

  const [plan, setPlan] = useState<ApprovalPlan | null>(null);

  // A permit that cannot work for this payer (a contract wallet cannot sign one, the collector
  // cannot pay its gas now, the day's permits are used up): the payer may approve with a transaction.
  const [viaApprove, setViaApprove] = useState(false);

  async function approve(wallet: BrowserWallet, forceApprove = viaApprove) {
    const step = (s: Step) => setState({ kind: 'busy', wallet: wallet.id, step: s });
    const permit = forceApprove ? null : (terms.permit ?? null);
    const message = allowanceMessage({ uuid, network: terms.network, currency: terms.currency, token: terms.token, collector: terms.collector, cap: terms.cap });
    step('connect');
    try {
      let p = await planApproval(wallet.provider, chain, terms.collector, terms.cap, !!permit);
      // An earlier try reset the allowance to 0 and stopped before approving the total: approve that total.
      const kept = p.current === 0n ? loadTotal(uuid, p.address) : null;
      if (kept !== null && kept > p.total) p = { ...p, total: kept };
      setPlan(p);
      const keep = (hash: string) => savePending(uuid, { address: p.address, hash });
      let txHash: string;
      const pending = loadPending(uuid);
      if (pending && pending.address.toLowerCase() === p.address.toLowerCase() && (await stillKnown(wallet.provider, pending.hash))) {
        // An earlier try's transaction: wait for it rather than approving (and adding the cap) again.
        step(permit ? 'permit_wait' : 'approve');
        await mined(wallet.provider, pending.hash);
        txHash = pending.hash;
      } else if (permit) {
        step('permit');
        const signed = await permitWithWallet(wallet.provider, chain, permit, terms.collector, p);
        step('sign');
        const signature = await signWithWallet(wallet.provider, p.address, message);
        const answer = await allowance(uuid, { address: p.address, signature, permit: signed });
        if (answer.recorded?.status === 'active' && !answer.permit_tx) {
          savePending(uuid, null);
          setState({ kind: 'on' });
          return;
        }
        // The gateway submitted the permit: once it is mined the allowance is recorded as after approve.
        txHash = answer.permit_tx!;
        keep(txHash);
        step('permit_wait');
        await mined(wallet.provider, txHash);
        await allowance(uuid, { address: p.address, tx_hash: txHash, signature });
        savePending(uuid, null);
        setState({ kind: 'on' });
        return;
      } else {
        txHash = (await approveWithWallet(wallet.provider, chain, terms.collector, p, { onStep: step, onSent: (hash, s) => (s === 'approve' ? keep(hash) : saveTotal(uuid, { address: p.address, total: p.total })) })).tx_hash;
      }
      // The approval is public: the signature proves the approving address is this payer's.
      step('sign');
      const signature = await signWithWallet(wallet.provider, p.address, message);
      await allowance(uuid, { address: p.address, tx_hash: txHash, signature });
      savePending(uuid, null);
      setState({ kind: 'on' });
    } catch (e) {
      if (e instanceof WalletError && e.problem === 'timeout') return setState({ kind: 'error', message: t('allow_timeout'), timeout: true });
      // A kept transaction that failed on chain, or one the gateway refused, is not waited for again.
      // (The kept total of a two-step approval stays: the retry still approves all of it.)
      if ((e instanceof WalletError && e.problem === 'failed') || e instanceof ApiError) forgetPending(uuid);
      const message = e instanceof WalletError || e instanceof ApiError ? e.message : String(e);
      setState({ kind: 'error', message });
    }
  }

  const next = terms.next_pull_at === null ? t('allow_next_first') : new Intl.DateTimeFormat(locale, { dateStyle: 'long' }).format(Date.parse(terms.next_pull_at));
  let message = '';
  const fmt = (units: bigint) => amount(fromBaseUnits(units, chain.decimals), terms.currency, true);
  if (state.kind === 'busy') message = t(state.step === 'approve' && plan?.reset ? 'allow_step_total' : STEP[state.step], { total: plan ? fmt(plan.total) : '' });
  else if (state.kind === 'on') message = t('allow_on');
  else if (state.kind === 'error') message = state.timeout ? state.message : t('allow_failed', { message: state.message });
  // What is approved in total, once the wallet is connected: the payer's other subscriptions share the allowance.
  const shared = plan && plan.current > 0n && state.kind !== 'on' ? t('allow_total', { current: fmt(plan.current), cap: amount(terms.cap, terms.currency, true), total: fmt(plan.total) }) : null;

  return (
    <section class="auto-renew" aria-labelledby="allow-title">
      <h2 id="allow-title" class="subtitle-strong">
        {t('allow_title')}
      </h2>
      <p class="lead">{t('allow_body')}</p>
      <dl class="summary">
        <div>
          <dt>{t('allow_cap')}</dt>
          <dd class="num strong">{t('allow_cap_value', { amount: amount(terms.cap, terms.currency, true), periods: terms.periods })}</dd>
        </div>
        <div>
          <dt>{t('allow_per_period')}</dt>
          <dd class="num">{t(EVERY[terms.period], { amount: amount(terms.amount_per_period, terms.currency, true) })}</dd>
        </div>
        <div>
          <dt>{t('allow_next')}</dt>
          <dd>{next}</dd>
        </div>
        <div>
          <dt>{t('allow_collector')}</dt>
          <dd class="mono txid" translate={false}>
            {terms.collector}
          </dd>
        </div>
      </dl>
      <p id="allow-revoke" class="lead">
        {t('allow_revoke', { collector: terms.collector, currency: terms.currency, token: terms.token })}
      </p>
      <div class="wallet-pay">
        {state.kind !== 'on' &&
          wallets.slice(0, 3).map((wallet) => (
            <button
              key={wallet.id}
              type="button"
              class="btn btn-primary"
              disabled={state.kind === 'busy'}
              aria-busy={state.kind === 'busy' && state.wallet === wallet.id}
              aria-describedby="allow-revoke"
              onClick={() => void approve(wallet)}
            >
              {wallet.icon ? <img class="wallet-icon" src={wallet.icon} alt="" width={24} height={24} /> : <WalletGlyph />}
              {wallet.name ? t('allow_button', { wallet: wallet.name }) : t('allow_button_browser')}
            </button>
          ))}
        {state.kind === 'error' && terms.permit && !viaApprove && wallets.length > 0 && (
          <button
            type="button"
            class="btn"
            onClick={() => {
              setViaApprove(true);
              void approve(wallets[0]!, true);
            }}
          >
            {t('allow_use_approve')}
          </button>
        )}
        {state.kind !== 'on' && wallets.length === 0 && <p class="lead">{t('allow_no_wallet')}</p>}
        {shared && (
          <p class="lead" id="allow-total">
            {shared}
            {plan!.reset ? ' ' + t('allow_two_steps', { currency: terms.currency }) : ''}
          </p>
        )}
        <p class={state.kind === 'error' ? 'wallet-msg is-error' : 'wallet-msg'} role="status" aria-live="polite" aria-atomic="true">
          {message}
        </p>
      </div>
    </section>
  );
}
