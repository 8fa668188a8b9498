// The message a payer's wallet signs (EIP-191 personal_sign) to record an automatic-renewal
// allowance (docs/recurring.md): it proves the approving address belongs to whoever records it for
// this subscription, since every approval of the shared collector is public on chain. Built here
// once, by the page (what the wallet shows) and by the server (what the signature must recover to).

export interface AllowanceMessageTerms {
  /** The recurrence's uuid. */
  uuid: string;
  network: string;
  currency: string;
  /** The token contract approved. */
  token: string;
  /** The spender approved. */
  collector: string;
  /** What approve() was given, a decimal string. */
  cap: string;
}

/** The human-readable text signed; addresses and the uuid lower-cased so both sides build the same bytes. */
export function allowanceMessage(t: AllowanceMessageTerms): string {
  return [
    'Satchel automatic renewals',
    `Subscription: ${t.uuid.toLowerCase()}`,
    `Network: ${t.network}`,
    `Token: ${t.currency} ${t.token.toLowerCase()}`,
    `Collector: ${t.collector.toLowerCase()}`,
    `Cap: ${t.cap} ${t.currency}`,
    'I approved this collector from this address to pull one period of this subscription when each is due. Signing sends no transaction and costs nothing.',
  ].join('\n');
}
