// Browser wallets the payer has: EIP-6963 announcements, with the older `window.ethereum` as a
// fallback. Only discovery lives here (a few lines in the initial script); paying with one is the
// lazily loaded ./evm-pay.tsx.
import { useEffect, useState } from 'preact/hooks';

/** An EIP-1193 provider, as far as the page uses it. */
export interface Eip1193Provider {
  request(args: { method: string; params?: unknown }): Promise<unknown>;
}

export interface BrowserWallet {
  /** EIP-6963 `uuid`, or "injected" for `window.ethereum`. */
  id: string;
  /** The wallet's own name; empty for a bare `window.ethereum`. */
  name: string;
  /** A data: URI image (EIP-6963), or empty. */
  icon: string;
  provider: Eip1193Provider;
}

interface Announcement {
  info?: { uuid?: unknown; name?: unknown; icon?: unknown };
  provider?: { request?: unknown };
}

/** How long to wait for EIP-6963 announcements before trying `window.ethereum`. */
const FALLBACK_MS = 250;

/** Calls `onChange` with the wallets found so far, each time one is announced; returns a stop function. */
export function discoverWallets(win: Window, onChange: (wallets: BrowserWallet[]) => void): () => void {
  const found = new Map<string, BrowserWallet>();
  const onAnnounce = (event: Event) => {
    const detail = (event as CustomEvent<Announcement>).detail;
    const info = detail?.info;
    const provider = detail?.provider;
    if (!info || typeof info.uuid !== 'string' || typeof provider?.request !== 'function') return;
    const icon = typeof info.icon === 'string' && /^data:image\//.test(info.icon) ? info.icon : '';
    found.set(info.uuid, { id: info.uuid, name: typeof info.name === 'string' ? info.name.slice(0, 40) : '', icon, provider: provider as Eip1193Provider });
    onChange([...found.values()]);
  };
  win.addEventListener('eip6963:announceProvider', onAnnounce);
  win.dispatchEvent(new Event('eip6963:requestProvider'));
  const timer = setTimeout(() => {
    const injected = (win as Window & { ethereum?: { request?: unknown } }).ethereum;
    if (found.size === 0 && typeof injected?.request === 'function') {
      onChange([{ id: 'injected', name: '', icon: '', provider: injected as Eip1193Provider }]);
    }
  }, FALLBACK_MS);
  return () => {
    win.removeEventListener('eip6963:announceProvider', onAnnounce);
    clearTimeout(timer);
  };
}

/** The payer's browser wallets, looked for only while `enabled` (an EVM invoice with something due). */
export function useBrowserWallets(enabled: boolean): BrowserWallet[] {
  const [wallets, setWallets] = useState<BrowserWallet[]>([]);
  useEffect(() => (enabled ? discoverWallets(window, setWallets) : undefined), [enabled]);
  return enabled ? wallets : [];
}
