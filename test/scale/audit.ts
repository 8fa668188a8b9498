// What the scale-out scenario left behind, counted: every figure named for a fault must be 0. Used
// by the test (which asserts) and by `npm run bench -- scale` (which reports).
import { Decimal } from '../../src/money/decimal.ts';
import { entriesSum } from '../../src/ledger/index.ts';
import type { Scenario } from './scenario.ts';

export interface Audit {
  invoices: number;
  /** Invoices whose counted payment differs from what the chain holds for them (lost or doubled). */
  paymentsMiscounted: number;
  /** Invoices whose ledger entries differ from what they say they credited. */
  creditsMiscounted: number;
  /** Invoices with an address that was never recorded as theirs. */
  halfWritten: number;
  topupsMined: number;
  /** Mined top-ups minus recorded ones (or recorded twice). */
  topupsMiscounted: number;
  balances: number;
  balancesOff: number;
  payouts: number;
  payoutsUnsettled: number;
  payoutsSentTwice: number;
  webhooks: number;
  webhooksUndelivered: number;
  /** Webhooks the receiver never got, or deliveries it got for no webhook. */
  receiptsMissing: number;
  repeats: number;
  /** A repeat whose body differs from the first delivery under the same id. */
  repeatsChanged: number;
  /** The same invoice event queued twice (a repeat under a new id). */
  eventsQueuedTwice: number;
}

export async function audit(s: Scenario): Promise<Audit> {
  const db = s.ctx.storage.db;
  const a: Audit = {
    invoices: 0, paymentsMiscounted: 0, creditsMiscounted: 0, halfWritten: 0, topupsMined: 0, topupsMiscounted: 0,
    balances: 0, balancesOff: 0, payouts: 0, payoutsUnsettled: 0, payoutsSentTwice: 0, webhooks: 0, webhooksUndelivered: 0,
    receiptsMissing: 0, repeats: 0, repeatsChanged: 0, eventsQueuedTwice: 0,
  };

  const invoices = await db.selectFrom('invoices').selectAll().where('merchant_id', '=', s.merchant.id).execute();
  a.invoices = invoices.length;
  for (const inv of invoices) {
    const addresses = (await db.selectFrom('addresses').select('address').where('owner_kind', '=', 'invoice').where('owner_id', '=', inv.id).execute()).map((r) => r.address);
    if (inv.address && !addresses.includes(inv.address)) a.halfWritten++;
    if (addresses.length === 0) continue;
    const onChain = await db.selectFrom('sim_transactions').select('amount').where('direction', '=', 'in').where('status', '=', 'mined').where('to_address', 'in', addresses).execute();
    const chainSum = onChain.reduce((sum, r) => sum.add(r.amount), Decimal.ZERO);
    if (!Decimal.parse(inv.payment_amount ?? '0').eq(chainSum)) a.paymentsMiscounted++;
    const entries = await db.selectFrom('ledger_entries').select('amount').where('ref_id', '=', inv.id).execute();
    const credited = entries.reduce((sum, r) => sum.add(r.amount), Decimal.ZERO);
    if (!credited.eq(inv.credited)) a.creditsMiscounted++;
  }

  const walletAddrs = (await db.selectFrom('addresses').select('address').where('owner_kind', '=', 'wallet').execute()).map((r) => r.address);
  if (walletAddrs.length > 0) {
    const mined = await db.selectFrom('sim_transactions').select(['txid', 'idx']).where('direction', '=', 'in').where('status', '=', 'mined').where('to_address', 'in', walletAddrs).execute();
    const topups = await db.selectFrom('wallet_topups').select(['txid', 'idx']).execute();
    a.topupsMined = mined.length;
    const recorded = new Set(topups.map((t) => `${t.txid}:${t.idx}`));
    a.topupsMiscounted = Math.abs(mined.length - topups.length) + (topups.length - recorded.size);
  }

  const balances = await db.selectFrom('balances').selectAll().execute();
  a.balances = balances.length;
  for (const b of balances) {
    if (!Decimal.parse(b.amount).eq(await entriesSum(db, b.merchant_id, b.kind as 'business', b.currency))) a.balancesOff++;
  }

  const payouts = await db.selectFrom('payouts').select(['id', 'txid', 'status']).execute();
  a.payouts = payouts.length;
  a.payoutsUnsettled = payouts.filter((p) => p.status === 'process').length;
  const sent = payouts.filter((p) => p.txid !== null).map((p) => p.txid!);
  const out = await db.selectFrom('sim_transactions').select('txid').where('direction', '=', 'out').execute();
  a.payoutsSentTwice = sent.length - new Set(sent).size + Math.max(0, out.length - sent.length);

  const rows = await db.selectFrom('webhooks').select(['id', 'status', 'body', 'kind']).execute();
  a.webhooks = rows.length;
  a.webhooksUndelivered = rows.filter((r) => r.status !== 'delivered').length;
  const bodies = new Map<string, string>();
  for (const r of s.receiver.deliveries) {
    const id = String(r.headers['x-satchel-delivery']);
    const first = bodies.get(id);
    if (first !== undefined) {
      a.repeats++;
      if (first !== r.body) a.repeatsChanged++;
    } else bodies.set(id, r.body);
  }
  const ids = new Set(rows.map((r) => r.id));
  a.receiptsMissing = [...ids].filter((id) => !bodies.has(id)).length + [...bodies.keys()].filter((id) => !ids.has(id)).length;
  const events = rows.filter((r) => r.kind === 'payment').map((r) => {
    const b = JSON.parse(r.body) as Record<string, unknown>;
    return `${b.uuid} ${b.status} ${b.payment_amount}`;
  });
  a.eventsQueuedTwice = events.length - new Set(events).size;
  return a;
}
