// `satchel ledger verify` on a real database: a clean one passes with a summary line; a tampered
// balance, a payout whose debit is gone and a payout with two live chain transactions each fail
// with a line naming them. On both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { backends } from '../helpers/backends.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { ADDR, fund, startMoneyGateway } from '../payouts/harness.ts';
import { ledgerCli } from '../../src/cli/ledger.ts';
import { verifyLedger } from '../../src/ledger/verify.ts';

describe.each(await backends())('ledger verify on $name', (backend) => {
  let gw: TestGateway;
  let payoutId: string;
  beforeAll(async () => {
    gw = await startMoneyGateway(backend);
    await fund(gw, 'USDT', '100');
    const r = await gw.api('/v1/payout', { amount: '10', currency: 'USDT', network: 'TRON', address: ADDR.TRON, is_subtract: true, order_id: 'verify-1' }, { key: 'payout' });
    expect(r.status).toBe(200);
    payoutId = r.body.result.uuid;
  });
  afterAll(async () => {
    await gw?.close();
  });

  const cli = async () => {
    const lines: string[] = [];
    const env = { SATCHEL_DATA_DIR: gw.config.dataDir, ...(gw.config.databaseUrl ? { DATABASE_URL: gw.config.databaseUrl } : {}), LOG_LEVEL: 'silent' };
    const code = await ledgerCli('verify', { log: (s) => lines.push(s), error: (s) => lines.push(s) }, env);
    return { code, lines };
  };

  it('passes a clean database with a summary line and exit code 0', async () => {
    const { code, lines } = await cli();
    expect(code).toBe(0);
    expect(lines).toEqual([expect.stringMatching(/^ledger verify: ok \(1 balances, 1 payouts checked\)$/)]);
  });

  it('reports a tampered balance', async () => {
    const where = (q: any) => q.where('merchant_id', '=', gw.merchant.id).where('kind', '=', 'business').where('currency', '=', 'USDT');
    const before = (await where(gw.ctx.storage.db.selectFrom('balances').select('amount')).executeTakeFirstOrThrow()).amount as string;
    await where(gw.ctx.storage.db.updateTable('balances').set({ amount: '1000000' })).execute();
    const { code, lines } = await cli();
    expect(code).toBe(1);
    expect(lines).toContain(`balance ${gw.merchant.id} business USDT: stored 1000000, ledger sums to ${before}`);
    await where(gw.ctx.storage.db.updateTable('balances').set({ amount: before })).execute();
    expect((await verifyLedger(gw.ctx.storage.db)).mismatches).toEqual([]);
  });

  it('reports a payout whose debit is missing', async () => {
    const debit = await gw.ctx.storage.db.selectFrom('ledger_entries').selectAll().where('ref_id', '=', payoutId).executeTakeFirstOrThrow();
    await gw.ctx.storage.db.deleteFrom('ledger_entries').where('id', '=', debit.id).execute();
    const { code, lines } = await cli();
    expect(code).toBe(1);
    const payout = await gw.ctx.storage.db.selectFrom('payouts').selectAll().where('id', '=', payoutId).executeTakeFirstOrThrow();
    expect(lines).toContain(`payout ${payoutId} (payout): no debit of ${payout.merchant_amount} USDT in the ledger`);
    await gw.ctx.storage.db.insertInto('ledger_entries').values(debit).execute();
    expect((await verifyLedger(gw.ctx.storage.db)).mismatches).toEqual([]);
  });

  it('reports a payout with two live chain transactions, not one whose earlier attempt expired', async () => {
    const db = gw.ctx.storage.db as unknown as Kysely<any>;
    const row = (attempt: number, txid: string, status: string) => ({
      id: `verify-${attempt}`, network: 'TRON', request_id: payoutId, attempt, kind: 'trc20', from_address: ADDR.TRON, to_address: ADDR.TRON,
      currency: 'USDT', amount: '10', txid, raw: '{}', expiration: 0, status, created_at: 0, updated_at: 0,
    });
    await db.insertInto('scan_outgoing').values([row(1, 'aa'.repeat(32), 'expired'), row(2, 'bb'.repeat(32), 'sent')]).execute();
    expect((await cli()).code).toBe(0);
    await db.insertInto('scan_outgoing').values(row(3, 'cc'.repeat(32), 'mined')).execute();
    const { code, lines } = await cli();
    expect(code).toBe(1);
    expect(lines).toContain(`payout ${payoutId} (payout): 2 chain transactions: ${'bb'.repeat(32)}, ${'cc'.repeat(32)}`);
    await db.deleteFrom('scan_outgoing').where('request_id', '=', payoutId).execute();
  });
});
