// An unmatched payment (src/unmatched/) as the dashboard's API shows it
// (src/contracts/dashboard/unmatched.ts): times as numbers, the resolution note as `note`.
import type { UnmatchedPayment } from '../contracts/dashboard/unmatched.ts';
import type { UnmatchedPaymentsTable } from '../db/schema.ts';

export function unmatchedView(r: UnmatchedPaymentsTable): UnmatchedPayment {
  return {
    id: r.id,
    network: r.network,
    currency: r.currency,
    amount: r.amount,
    from: r.from_address,
    to: r.to_address,
    memo: r.memo,
    reason: r.reason,
    txid: r.txid,
    status: r.status as UnmatchedPayment['status'],
    invoice_id: r.invoice_id,
    resolved_by: r.resolved_by,
    resolved_at: r.resolved_at === null ? null : Number(r.resolved_at),
    note: r.resolution_note,
    created_at: Number(r.created_at),
  };
}
