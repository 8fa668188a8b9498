// `satchel unmatched list|assign|refunded` as an operator runs them: the table of open payments
// (and the filters), assigning one to an invoice (credited, the invoice paid), marking one refunded,
// and refusals that exit 2 with the problem named. A memo with terminal control characters is
// printed harmless.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { satchel } from '../cli/in-process.ts';
import { ACCOUNT, startUnmatchedGateway, type UnmatchedGateway } from './setup.ts';

describe.each(await backends())('satchel unmatched on $name', (backend) => {
  let gw: UnmatchedGateway;
  const run = (...args: string[]) => satchel(gw, 'unmatched', ...args);
  const idOf = async (txid: string) => (await gw.ctx.storage.db.selectFrom('unmatched_payments').select('id').where('txid', '=', txid).executeTakeFirstOrThrow()).id;

  beforeAll(async () => {
    gw = await startUnmatchedGateway(backend);
  });
  afterAll(async () => gw?.close());

  it('lists open payments as a table, with filters; says so when there are none', async () => {
    expect(await run('list')).toEqual({ code: 0, out: 'No open unmatched payments.', err: '' });
    const a = await gw.report({ amount: '12.5', memo: 'hello\u001b[2Jworld' });
    gw.clock.advance(60_000);
    const b = await gw.report({ amount: '3', memo: null, reason: 'no_reference', from: null });
    const listed = await run('list');
    expect(listed.code).toBe(0);
    const lines = listed.out.split('\n');
    expect(lines[0]).toMatch(/^id {2,}network {2}amount {2,}from {2,}memo or reason {2,}txid {2,}age {2,}status$/);
    expect(lines).toHaveLength(3);
    const [rowB, rowA] = [lines[1]!, lines[2]!];
    expect(rowA).toContain(await idOf(a.txid));
    expect(rowA).toMatch(/TRON {5}12\.5 USDT {2}TPayerWallet0+1 {2}"hello\?\[2Jworld" +/);
    expect(rowA).not.toContain('\u001b');
    expect(rowA).toContain(a.txid);
    expect(rowA).toMatch(/\d+[smhd] +open$/);
    expect(rowB).toMatch(/3 USDT +- +\(no comment\) +/);
    expect(rowB).toContain(await idOf(b.txid));

    expect((await run('list', '--network', 'eth')).out).toBe('No open unmatched payments.');
    expect((await run('list', '--network', 'tron', '--merchant', gw.merchant.id)).out.split('\n')).toHaveLength(3);
    expect((await run('list', '--status', 'refunded')).out).toBe('No refunded unmatched payments.');
    expect(await run('list', '--status', 'closed')).toEqual({ code: 2, out: '', err: '--status is open, assigned, refunded or all, not "closed"' });
    expect((await run('list', '--merchant', 'nope')).code).toBe(2);
  });

  it('assigns one to an invoice: credited, the invoice paid, the payment listed as assigned', async () => {
    const inv = await gw.invoice('100');
    const t = await gw.report({ amount: inv.payer_amount });
    const id = await idOf(t.txid);
    const before = await gw.balance();
    const r = await run('assign', id, '--invoice', inv.uuid);
    expect(r).toEqual({ code: 0, out: `Payment ${id} (${inv.payer_amount} USDT on TRON) is credited to invoice ${inv.uuid}, now paid.`, err: '' });
    expect(Number(await gw.balance())).toBeGreaterThan(Number(before));
    expect((await run('list')).out).not.toContain(id);
    expect((await run('list', '--status', 'assigned')).out).toMatch(new RegExp(`${id} .* assigned to ${inv.uuid}$`, 'm'));
    const again = await run('assign', id, '--invoice', inv.uuid);
    expect(again).toEqual({ code: 2, out: '', err: `Payment ${id} was already assigned to invoice ${inv.uuid}: nothing was changed.` });
    const audit = await gw.ctx.storage.db.selectFrom('dashboard_audit').selectAll().where('action', '=', 'unmatched_assign').where('target', '=', id).executeTakeFirstOrThrow();
    expect(audit.email).toBe('cli');
  });

  it('marks one refunded with a note; refuses bad ids, missing invoices, and payments of no merchant', async () => {
    const t = await gw.report({ amount: '5' });
    const id = await idOf(t.txid);
    const before = await gw.balance();
    expect(await run('refunded', id, '--note', 'sent back in tx 9f0e')).toEqual({
      code: 0,
      out: `Payment ${id} (5 USDT on TRON) is marked refunded (sent back in tx 9f0e). The gateway moved no funds.`,
      err: '',
    });
    expect(await gw.balance()).toBe(before);
    expect((await run('list', '--status', 'all')).out).toMatch(new RegExp(`${id} .* refunded$`, 'm'));

    expect(await run('refunded', 'not-an-id')).toEqual({ code: 2, out: '', err: "unmatched refunded needs the payment's id (satchel unmatched list shows it)" });
    expect(await run('assign', id)).toEqual({ code: 2, out: '', err: 'unmatched assign needs --invoice <uuid>: the invoice to credit' });
    expect(await run('assign', '00000000-0000-4000-8000-000000000000', '--invoice', '00000000-0000-4000-8000-000000000001')).toEqual({
      code: 2,
      out: '',
      err: 'No unmatched payment 00000000-0000-4000-8000-000000000000',
    });
    const open = await gw.report({ amount: '5' });
    expect((await run('assign', await idOf(open.txid), '--invoice', '00000000-0000-4000-8000-000000000001')).err).toBe(
      'No invoice 00000000-0000-4000-8000-000000000001 of this merchant: nothing was changed.',
    );
    const stray = await gw.report({ to: 'TNobodysWallet000000000000000001' });
    const strayId = await idOf(stray.txid);
    expect((await run('refunded', strayId)).err).toBe(`Payment ${strayId} arrived at TNobodysWallet000000000000000001, which no merchant's receiving material names: it has no merchant to resolve it for.`);
    expect((await run('frobnicate')).code).toBe(2);
    expect(ACCOUNT).toBeTruthy();
  });
});
