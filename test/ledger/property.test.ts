// A property of the ledger (D5): whatever mix of payments, payouts (some failing), refunds and
// transfers runs, concurrently, no balance ever goes negative and every balance equals the sum of
// its entries. Seeded, so a failure can be replayed (SATCHEL_PROPERTY_SEED).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { simulateConfirmOutgoing, simulateFailOutgoing } from '../../src/simulator/payouts.ts';
import { simulatePay } from '../../src/simulator/payments.ts';
import { entriesSum } from '../../src/ledger/index.ts';
import { Decimal } from '../../src/money/decimal.ts';
import { simulateDeposit } from '../../src/simulator/deposit.ts';
import { ADDR, startMoneyGateway, tick } from '../payouts/harness.ts';

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Business answers an operation may give; anything else (a 500 above all) fails the property. */
const EXPECTED_REFUSALS = new Set([
  'Not enough funds',
  'Not enough balance for convert USDT to TRX',
  'Refunds are made only for completed payments',
  'The refund amount should not be more than the amount paid',
  'The withdrawal amount is too small',
  'Minimum amount 1 USDT',
  'Minimum amount 10 TRX',
  'Minimum amount 0.5 USDT',
  'Minimum amount 1 TRX',
]);

const SEED = Number(process.env.SATCHEL_PROPERTY_SEED ?? 20260115);
const ROUNDS = 6;
const OPS_PER_ROUND = 14;

describe.each(await backends())('ledger property on $name', (backend) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startMoneyGateway(backend);
  });
  afterAll(async () => gw?.close());

  async function checkLedger(where: string): Promise<void> {
    const db = gw.ctx.storage.db;
    const rows = await db.selectFrom('balances').selectAll().where('merchant_id', '=', gw.merchant.id).execute();
    expect(rows.length, where).toBeGreaterThan(0);
    for (const b of rows) {
      expect(Decimal.parse(b.amount).isNegative(), `${where}: ${b.kind} ${b.currency} = ${b.amount}`).toBe(false);
      const sum = await entriesSum(db, gw.merchant.id, b.kind as 'business' | 'personal', b.currency);
      expect(Decimal.parse(b.amount).eq(sum), `${where}: ${b.kind} ${b.currency} ${b.amount} != entries ${sum}`).toBe(true);
    }
    const negative = await db.selectFrom('ledger_entries').select(['balance_after']).where('merchant_id', '=', gw.merchant.id).execute();
    expect(negative.filter((e) => Decimal.parse(e.balance_after).isNegative()), where).toEqual([]);
    // No invoice is refunded beyond what it received.
    const invoices = await db.selectFrom('invoices').select(['id', 'payment_amount']).where('merchant_id', '=', gw.merchant.id).execute();
    for (const inv of invoices) {
      const refunds = await db.selectFrom('payouts').select('amount').where('kind', '=', 'refund').where('ref_id', '=', inv.id).where('status', 'in', ['process', 'check', 'paid']).execute();
      const total = refunds.reduce((s, r) => s.add(r.amount), Decimal.ZERO);
      expect(total.lte(inv.payment_amount ?? '0'), `${where}: invoice ${inv.id} refunded ${total}`).toBe(true);
    }
  }

  it(`random concurrent payments, payouts, refunds and transfers keep every balance >= 0 and equal to its entries (seed ${SEED})`, async () => {
    const rnd = mulberry32(SEED);
    const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    const amount = (lo: number, hi: number, places = 2) => (lo + rnd() * (hi - lo)).toFixed(places);
    let order = 0;
    const paidInvoices: string[] = [];
    // The simulator follows one chain at a time; payments are queued, everything else runs at once.
    let chain: Promise<unknown> = Promise.resolve();
    const serial = <T,>(fn: () => Promise<T>): Promise<T> => {
      const p = chain.then(fn);
      chain = p.catch(() => {});
      return p;
    };
    const outcomes: Record<string, number> = {};
    const note = (k: string) => (outcomes[k] = (outcomes[k] ?? 0) + 1);
    const api = async (path: string, body: Record<string, unknown>, key: 'payment' | 'payout') => {
      const r = await gw.api(path, body, { key });
      if (r.status === 200) return note(`${path} ok`);
      expect(r.status, `${path} ${JSON.stringify(body)} -> ${r.raw}`).toBe(422);
      expect(EXPECTED_REFUSALS.has(r.body.message), `${path} ${JSON.stringify(body)} -> ${r.raw}`).toBe(true);
      note(`${path} ${r.body.message}`);
    };

    const ops: Record<string, () => Promise<unknown>> = {
      payment: () =>
        serial(async () => {
          const currency = pick(['USDT', 'USDT', 'TRX']);
          const r = await gw.api('/v1/payment', { amount: currency === 'TRX' ? amount(20, 300) : amount(5, 80), currency, network: 'TRON', order_id: `prop-${++order}` });
          expect(r.status).toBe(200);
          await simulatePay(gw.ctx, { invoice: r.body.result.uuid, mode: pick(['full', 'full', 'over']) });
          paidInvoices.push(r.body.result.uuid);
          note('payment');
        }),
      payout: () =>
        api(
          '/v1/payout',
          pick([
            { amount: amount(0.5, 45), currency: 'USDT', network: 'TRON', address: ADDR.TRON, is_subtract: rnd() < 0.5, order_id: `prop-${++order}` },
            { amount: amount(5, 200), currency: 'TRX', network: 'TRON', address: ADDR.TRON, is_subtract: rnd() < 0.5, order_id: `prop-${++order}` },
            { amount: amount(1, 20), currency: 'USD', to_currency: 'TRX', from_currency: 'USDT', address: ADDR.TRON, is_subtract: true, order_id: `prop-${++order}` },
          ]),
          'payout',
        ),
      refund: async () => {
        if (paidInvoices.length === 0) return;
        const body: Record<string, unknown> = { uuid: pick(paidInvoices), address: ADDR.TRON, is_subtract: rnd() < 0.5 };
        if (rnd() < 0.7) body.amount = amount(1, 60);
        return api('/v1/payment/refund', body, 'payout');
      },
      deposit: () => simulateDeposit(gw.ctx, { merchant: gw.merchant.id, currency: pick(['USDT', 'TRX']), amount: amount(1, 50) }).then(() => note('deposit')),
      toBusiness: () => api('/v1/transfer/to-business', { amount: amount(0.5, 40), currency: pick(['USDT', 'TRX']) }, 'payout'),
      toPersonal: () => api('/v1/transfer/to-personal', { amount: amount(0.5, 40), currency: pick(['USDT', 'TRX']) }, 'payout'),
    };
    const weights: Array<[string, number]> = [['payment', 3], ['payout', 4], ['refund', 2], ['deposit', 1], ['toBusiness', 2], ['toPersonal', 2]];
    const total = weights.reduce((s, [, w]) => s + w, 0);
    const choose = () => {
      let x = rnd() * total;
      for (const [name, w] of weights) if ((x -= w) < 0) return name;
      return 'payout';
    };

    for (let round = 0; round < ROUNDS; round++) {
      await Promise.all(Array.from({ length: OPS_PER_ROUND }, () => ops[choose()]!()));
      await chain;
      await checkLedger(`round ${round} after requests`);
      await tick(gw); // sends what is due
      const sent = await gw.ctx.storage.db.selectFrom('payouts').select('id').where('status', '=', 'check').execute();
      for (const { id } of sent) {
        if (rnd() < 0.3) await simulateFailOutgoing(gw.ctx, id);
        else if (rnd() < 0.85) await simulateConfirmOutgoing(gw.ctx, id);
      }
      await checkLedger(`round ${round} after settling`);
    }
    // The mix really happened: money came in, went out, failed back and moved between wallets.
    const kinds = await gw.ctx.storage.db.selectFrom('ledger_entries').select('reason').distinct().where('merchant_id', '=', gw.merchant.id).execute();
    expect(kinds.map((k) => k.reason).sort()).toEqual(
      expect.arrayContaining(['deposit', 'invoice_payment', 'payout', 'payout_return', 'refund', 'transfer_to_business', 'transfer_to_personal']),
    );
    expect(outcomes['/v1/payout Not enough funds'] ?? 0).toBeGreaterThan(0);
  });
});
