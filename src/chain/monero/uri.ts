// Monero payment URIs (the wallets' `monero:` scheme, as monero-wallet-cli's make_uri and the GUI
// write and read them): monero:<address>?tx_amount=<XMR>&tx_description=<text>&recipient_name=<text>.
// The amount is decimal text in whole XMR, at most 12 decimals (one piconero), kept exactly as
// given: never a JS number.

/** XMR's decimals: 1 XMR is 10^12 piconero. */
export const XMR_DECIMALS = 12;

const AMOUNT = new RegExp(`^(0|[1-9][0-9]*)(\\.[0-9]{1,${XMR_DECIMALS}})?$`);

export interface MoneroUriOptions {
  /** Decimal text in whole XMR ("0.5"); left out of the URI when absent. */
  amount?: string;
  /** What the payment is for (the wallet shows it and keeps it as the transaction's note). */
  description?: string;
  /** Who asks to be paid. */
  recipientName?: string;
}

/** The `monero:` URI paying `address` (not checked here: the caller gives one it has checked). */
export function moneroUri(address: string, opts: MoneroUriOptions = {}): string {
  const params: string[] = [];
  if (opts.amount !== undefined) {
    if (!AMOUNT.test(opts.amount)) throw new RangeError(`tx_amount is decimal text in XMR with at most ${XMR_DECIMALS} decimals, not ${JSON.stringify(opts.amount.slice(0, 40))}`);
    params.push(`tx_amount=${opts.amount}`);
  }
  if (opts.description !== undefined && opts.description !== '') params.push(`tx_description=${encodeURIComponent(opts.description)}`);
  if (opts.recipientName !== undefined && opts.recipientName !== '') params.push(`recipient_name=${encodeURIComponent(opts.recipientName)}`);
  return `monero:${address}${params.length ? `?${params.join('&')}` : ''}`;
}
