// One bad row must never stop a network: a transfer the gateway cannot process is set aside
// (recorded, counted in /metrics, logged) and the scan goes on to detect later payments.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { nextRev, simTxid } from '../../src/chain/simulated/driver.ts';
import { simulatePay } from '../../src/simulator/payments.ts';
import { createWorkers } from '../../src/worker/index.ts';
import { createSink } from '../../src/chain/ingest.ts';
import type { ChainSink } from '../../src/chain/contract.ts';

describe.each(await backends())('ingest sets bad transfers aside on $name', (backend) => {
  let gw: TestGateway;
  let n = 0;
  beforeAll(async () => {
    gw = await startTestGateway(backend);
  });
  afterAll(async () => gw?.close());

  const newInvoice = async () => {
    const r = await gw.api('/v1/payment', { amount: '100', currency: 'USDT', network: 'TRON', order_id: `ing-${++n}` });
    expect(r.status).toBe(200);
    return r.body.result as { uuid: string; address: string };
  };

  /** What an absurd chain would report: a transfer straight into the simulated chain's table. */
  const chainSends = async (address: string, amount: string) => {
    const network = gw.ctx.registry.network('TRON')!;
    const txid = simTxid(network, `absurd-${amount.length}-${++n}`);
    await gw.ctx.storage.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('sim_transactions')
        .values({
          network: 'TRON',
          txid,
          idx: 0,
          from_address: null,
          to_address: address,
          currency: 'USDT',
          amount,
          block_height: 1,
          confirmations: 50,
          status: 'mined',
          direction: 'in',
          rev: await nextRev(trx),
          created_at: gw.ctx.now(),
        })
        .execute();
    });
    return txid;
  };

  it('a 79-digit amount is set aside and later payments on the network are still detected', async () => {
    const victim = await newInvoice();
    const later = await newInvoice();
    const logged: unknown[] = [];
    const log = { error: (o: unknown) => void logged.push(o) };
    const bad = await chainSends(victim.address, '9'.repeat(79));
    const notDecimal = await chainSends(victim.address, '1e5');
    await createWorkers(gw.ctx, log).tick();

    // The scan went past both and a later payment is credited as usual.
    const pay = await simulatePay(gw.ctx, { invoice: later.uuid });
    await createWorkers(gw.ctx, log).tick();
    const info = await gw.api('/v1/payment/info', { uuid: later.uuid });
    expect(info.body.result).toMatchObject({ payment_status: 'paid', txid: pay.txid });
    const victimInfo = await gw.api('/v1/payment/info', { uuid: victim.uuid });
    expect(victimInfo.body.result).toMatchObject({ payment_status: 'process', payment_amount: null });

    const rows = await gw.ctx.storage.db.selectFrom('set_aside_transfers').selectAll().orderBy('reason').execute();
    expect(rows.map((r) => [r.txid, r.reason])).toEqual([
      [bad, 'amount is beyond what the ledger holds'],
      [notDecimal, 'amount is not a decimal'],
    ]);
    expect(await gw.ctx.storage.db.selectFrom('chain_transfers').select('txid').where('txid', 'in', [bad, notDecimal]).execute()).toEqual([]);
    expect(logged).toEqual(expect.arrayContaining([expect.objectContaining({ txid: bad, network: 'TRON' })]));
    const metrics = await gw.app.inject('/metrics');
    expect(metrics.body).toMatch(/^satchel_transfers_set_aside 2$/m);
  });

  it('credits the transfers of one scan together, and sets aside one whose processing fails while the others are credited', async () => {
    const invoices = [await newInvoice(), await newInvoice(), await newInvoice()];
    const victim = invoices[1]!;
    const amounts = new Map<string, string>();
    for (const inv of invoices) {
      const info = await gw.api('/v1/payment/info', { uuid: inv.uuid });
      amounts.set(inv.uuid, info.body.result.payer_amount as string);
    }
    const txids = [];
    for (const inv of invoices) txids.push(await chainSends(inv.address, amounts.get(inv.uuid)!));

    const original = gw.ctx.features;
    const failing: typeof original.owners.invoice = async (ctx, trx, invoiceId, transfer) => {
      if (invoiceId === victim.uuid) throw new RangeError('arithmetic failed');
      return original.owners.invoice(ctx, trx, invoiceId, transfer);
    };
    gw.ctx.features = { ...original, owners: { ...original.owners, invoice: failing } };
    const batches: number[] = [];
    try {
      const sink = createSink(gw.ctx, { error: () => {} });
      const spy: ChainSink = {
        ...sink,
        transferBatch: async (list) => {
          batches.push(list.length);
          await sink.transferBatch!(list);
        },
      };
      expect(await gw.ctx.chains.poll('TRON', spy, { wait: true })).toBe(true);
    } finally {
      gw.ctx.features = original;
    }
    expect(batches).toEqual([3]);

    for (const inv of invoices) {
      const info = await gw.api('/v1/payment/info', { uuid: inv.uuid });
      expect(info.body.result.payment_status).toBe(inv === victim ? 'process' : 'paid');
    }
    const aside = await gw.ctx.storage.db.selectFrom('set_aside_transfers').select(['txid', 'reason']).where('txid', 'in', txids).execute();
    expect(aside).toEqual([{ txid: txids[1], reason: 'arithmetic failed' }]);
    const credited = await gw.ctx.storage.db.selectFrom('ledger_entries').select('ref_id').where('ref_id', 'in', invoices.map((i) => i.uuid)).execute();
    expect(credited.map((r) => r.ref_id).sort()).toEqual([invoices[0]!.uuid, invoices[2]!.uuid].sort());
    const recorded = await gw.ctx.storage.db.selectFrom('chain_transfers').select('txid').where('txid', 'in', txids).execute();
    expect(recorded.map((r) => r.txid).sort()).toEqual([txids[0], txids[2]].sort());
  });

  it('the simulator refuses amounts beyond the bound', async () => {
    const inv = await newInvoice();
    const res = await gw.app.inject({ method: 'POST', url: '/simulator/pay', payload: { invoice: inv.uuid, amount: '9'.repeat(79) } });
    expect(res.statusCode).toBe(422);
    expect(res.json().state).toBe(1);
    expect(await gw.ctx.storage.db.selectFrom('sim_transactions').select('txid').where('to_address', '=', inv.address).execute()).toEqual([]);
  });
});
