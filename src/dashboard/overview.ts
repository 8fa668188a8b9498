// The dashboard's first screen: balances (business and personal) with a USD total, paid volume
// and invoice counts per day for the last 30 days, the latest invoices, and the networks whose
// payments are not being detected right now (their node is faulty: docs/networks.md), so that a
// merchant waiting for a payment knows why. Only the network codes: the reason is the operator's.
import type { Ctx } from '../context.ts';
import { Decimal, sum } from '../money/decimal.ts';
import { merchantBalances, type WalletBalance } from '../ledger/merchant-wallets.ts';
import { searchInvoices, type ListedInvoice } from './invoice-search.ts';

export const CHART_DAYS = 30;
const PAID = new Set(['paid', 'paid_over']);

export interface DayPoint {
  /** YYYY-MM-DD (UTC). */
  day: string;
  paid_usd: string;
  paid: number;
  created: number;
}

export interface Overview {
  balances: {
    business: Array<{ currency: string; amount: string; usd: string | null }>;
    personal: Array<{ currency: string; amount: string; usd: string | null }>;
    total_usd: string;
  };
  days: DayPoint[];
  latest: ListedInvoice[];
  /** Networks whose node is faulty now: their payments are found once it recovers. */
  delayed_networks: string[];
}

function held(list: WalletBalance[]) {
  return list.filter((b) => !Decimal.parse(b.balance).isZero()).map((b) => ({ currency: b.currency_code, amount: b.balance, usd: b.balance_usd }));
}

export async function overview(ctx: Ctx, merchantId: string): Promise<Overview> {
  const [wallets] = await merchantBalances(ctx, merchantId);
  const business = held(wallets!.balance.merchant);
  const personal = held(wallets!.balance.user);
  const total = sum([...business, ...personal].map((b) => b.usd ?? '0')).toAmount(2);

  const today = Math.floor(ctx.now() / 86_400_000) * 86_400_000;
  const start = today - (CHART_DAYS - 1) * 86_400_000;
  const rows = await ctx.storage.db
    .selectFrom('invoices')
    .select(['created_at', 'status', 'payment_amount_usd'])
    .where('merchant_id', '=', merchantId)
    .where('created_at', '>=', start)
    .execute();
  const days: Array<{ paid: Decimal; paidCount: number; created: number }> = Array.from({ length: CHART_DAYS }, () => ({ paid: Decimal.ZERO, paidCount: 0, created: 0 }));
  for (const r of rows) {
    const d = days[Math.floor((Number(r.created_at) - start) / 86_400_000)];
    if (!d) continue;
    d.created++;
    if (PAID.has(r.status)) {
      d.paidCount++;
      if (r.payment_amount_usd) d.paid = d.paid.add(r.payment_amount_usd);
    }
  }
  return {
    balances: { business, personal, total_usd: total },
    days: days.map((d, i) => ({ day: new Date(start + i * 86_400_000).toISOString().slice(0, 10), paid_usd: d.paid.round(2, 'down').toAmount(2), paid: d.paidCount, created: d.created })),
    latest: (await searchInvoices(ctx.storage.db, merchantId, { status: null, currency: null, network: null, from: null, to: null, q: null }, null, 8)).items,
    delayed_networks: (await ctx.chains.nodeFaults()).map((f) => f.network),
  };
}
