// "Pay with <wallet>": one button per browser wallet on an EVM invoice. Loaded only when the
// invoice can be paid from a wallet and the browser has one (see ./wallets.ts).
import { useState } from 'preact/hooks';
import { useT } from './i18n/index.ts';
import type { PayerInvoice } from '../contracts/payer.ts';
import { useStore } from './store.ts';
import { useAmount } from './ui.tsx';
import { WalletGlyph } from './icons.tsx';
import { payWithWallet, WalletError, type WalletProblem } from './evm-tx.ts';
import type { BrowserWallet } from './wallets.ts';

type State = { kind: 'idle' } | { kind: 'busy'; wallet: string } | { kind: 'sent'; hash: string } | { kind: 'error'; problem: WalletProblem; detail: string };

const PROBLEM_KEYS = {
  rejected: 'wallet_rejected',
  wrong_chain: 'wallet_wrong_chain',
  insufficient: 'wallet_insufficient',
  gone: 'wallet_gone',
  failed: 'wallet_failed',
  // Only the allowance approval waits for a receipt (and can time out); paying does not.
  timeout: 'wallet_failed',
} as const;

export function EvmPay({ invoice, wallets, due }: { invoice: PayerInvoice; wallets: BrowserWallet[]; due: string }) {
  const t = useT();
  const store = useStore();
  const amount = useAmount();
  const [state, setState] = useState<State>({ kind: 'idle' });
  const evm = invoice.evm;
  if (!evm || !invoice.address) return null;
  const currency = invoice.payer_currency ?? invoice.currency;
  const network = invoice.network_name ?? invoice.network ?? '';
  const address = invoice.address;

  async function pay(wallet: BrowserWallet) {
    setState({ kind: 'busy', wallet: wallet.id });
    try {
      const hash = await payWithWallet(wallet.provider, evm!, address, due);
      setState({ kind: 'sent', hash });
      store.refresh();
    } catch (error) {
      const e = error instanceof WalletError ? error : new WalletError('failed', String(error));
      setState({ kind: 'error', problem: e.problem, detail: e.message });
    }
  }

  let message = '';
  if (state.kind === 'busy') message = t('wallet_confirm');
  else if (state.kind === 'sent') message = t('wallet_sent');
  else if (state.kind === 'error') {
    message = t(PROBLEM_KEYS[state.problem], { network, currency, amount: amount(due, currency), message: state.detail });
  }

  return (
    <div class="wallet-pay">
      {state.kind !== 'sent' &&
        wallets.slice(0, 3).map((wallet) => (
          <button
            key={wallet.id}
            type="button"
            class="btn btn-primary"
            disabled={state.kind === 'busy'}
            aria-busy={state.kind === 'busy' && state.wallet === wallet.id}
            onClick={() => void pay(wallet)}
          >
            {wallet.icon ? <img class="wallet-icon" src={wallet.icon} alt="" width={24} height={24} /> : <WalletGlyph />}
            {wallet.name ? t('pay_with_wallet', { wallet: wallet.name }) : t('pay_with_browser_wallet')}
          </button>
        ))}
      <p class={state.kind === 'error' ? 'wallet-msg is-error' : 'wallet-msg'} role="status" aria-live="polite" aria-atomic="true">
        {message}
      </p>
    </div>
  );
}
