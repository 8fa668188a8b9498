// Links from outside the app (merchant and payer URLs, wallet deep links) are only followed when
// their scheme is harmless: a javascript: or data: URL must never become a clickable link.
const BLOCKED = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:']);

/** http(s) only: for the merchant's return and success URLs. */
export function webHref(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
  } catch {
    return null;
  }
}

/** Wallet deep links (bitcoin:, ethereum:, tron:, ...), never script-bearing schemes. */
export function walletHref(uri: string | null): string | null {
  if (!uri) return null;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(uri.trim());
  if (!scheme?.[1]) return null;
  return BLOCKED.has(`${scheme[1].toLowerCase()}:`) ? null : uri.trim();
}
