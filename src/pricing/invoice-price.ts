// What the payer pays and the merchant gets, exactly (docs/money.md has the formulas).
import { Decimal } from '../money/decimal.ts';

export interface PriceInput {
  /** Invoice amount in the invoice currency. */
  amount: string;
  /** Price of one invoice-currency unit in the payer currency. */
  rate: string;
  /** Decimal places of the payer currency on its network. */
  decimals: number;
  discountPercent: number | null;
  commissionPercent: string;
  /** Share of the commission (0..100 %) charged to the payer on top. */
  subtract: number;
}

export interface Price {
  /** The invoice amount in the payer currency, before discount and commission. */
  base: string;
  payerAmount: string;
  discount: string;
  commission: string;
  merchantAmount: string;
}

export function price(p: PriceInput): Price {
  const d = p.decimals;
  const base = Decimal.parse(p.amount).mul(p.rate).round(d, 'up');
  const afterDiscount = p.discountPercent
    ? base.mul(Decimal.of(BigInt(100 - p.discountPercent))).div('100', d, 'up')
    : base;
  const commission = afterDiscount.percent(p.commissionPercent).round(d, 'up');
  const payerShare = commission.mul(Decimal.of(BigInt(p.subtract))).div('100', d, 'up');
  const payerAmount = afterDiscount.add(payerShare);
  return {
    base: base.toString(),
    payerAmount: payerAmount.toString(),
    discount: payerAmount.sub(base).toString(),
    commission: commission.toString(),
    merchantAmount: payerAmount.sub(commission).round(d, 'down').toString(),
  };
}

/**
 * The merchant's share of what was actually received: the same proportion as at creation
 * (merchant_amount / payer_amount), rounded down. Commission is the rest.
 */
export function creditFor(received: string, payerAmount: string, merchantAmount: string, decimals: number): {
  merchantAmount: string;
  commission: string;
} {
  const r = Decimal.parse(received);
  const pa = Decimal.parse(payerAmount);
  if (pa.isZero()) return { merchantAmount: r.toString(), commission: '0' };
  const m = r.mul(merchantAmount).div(pa, decimals, 'down');
  return { merchantAmount: m.toString(), commission: r.sub(m).toString() };
}
