import { Decimal } from '../../money/decimal.ts';
import type { PaymentUriOptions } from './types.ts';

/** Builds a wallet payment URI, or null when the format has no URI for this kind of payment. */
export function paymentUri(opts: PaymentUriOptions): string | null {
  const { format, scheme, address, amount, decimals, native } = opts;
  const contract = native ? undefined : opts.contract;
  if (!native && !contract) return null;
  const units = amount === undefined ? undefined : toBaseUnits(amount, decimals);
  // Canonical decimal text: "1.50" and "1.5" give the same URI.
  const coins = units === undefined ? undefined : Decimal.fromBaseUnits(units, decimals).toString();
  const addr = encodeURIComponent(address);

  switch (format) {
    case 'bitcoin':
    case 'litecoin':
    case 'dogecoin': // BIP-21
      return native ? `${scheme}:${addr}${query({ amount: coins })}` : null;
    case 'evm': { // EIP-681; amounts are integers in base units
      const chain = opts.chainId === undefined ? '' : `@${opts.chainId}`;
      if (native) return `${scheme}:${addr}${chain}${query({ value: units })}`;
      return `${scheme}:${encodeURIComponent(contract!)}${chain}/transfer${query({ address, uint256: units })}`;
    }
    case 'solana': // Solana Pay transfer request
      return `${scheme}:${addr}${query({ amount: coins, 'spl-token': contract })}`;
    case 'ton': // ton://transfer; amounts in nanotons / jetton base units
      return `${scheme}://transfer/${addr}${query({ jetton: contract, amount: units })}`;
    case 'tron':
      return `${scheme}:${addr}${query({ amount: coins, token: contract })}`;
  }
}

/** What the payment page's QR encodes. Wallets handle plain addresses most reliably, except BIP-21 with an amount. */
export function qrContent(opts: PaymentUriOptions): string {
  const bip21 = opts.format === 'bitcoin' || opts.format === 'litecoin' || opts.format === 'dogecoin';
  if (bip21 && opts.native && opts.amount !== undefined) return paymentUri(opts) ?? opts.address;
  return opts.address;
}

function toBaseUnits(amount: string, decimals: number): bigint {
  const d = Decimal.parse(amount);
  if (d.isNegative()) throw new RangeError(`Negative amount: ${amount}`);
  return d.toBaseUnits(decimals); // throws rather than silently drop precision
}

function query(params: Record<string, string | bigint | undefined>): string {
  const parts = Object.entries(params)
    .filter((e): e is [string, string | bigint] => e[1] !== undefined)
    .map(([k, v]) => `${k}=${encodeURIComponent(v.toString())}`);
  return parts.length ? `?${parts.join('&')}` : '';
}
