// The payout float (issue 26): on a watch-only EVM network (anvil) payouts come from a separate key
// the operator funds and caps, never from the gateway's seed. Within the caps a payout is paid from
// the float; beyond max_per_payout or max_per_day it is refused at creation with a 422 and nothing
// recorded or debited, also when concurrent requests race for the day's last allowance; a float
// that cannot cover is refused as before; a watch-only network without a float refuses payouts;
// /metrics shows each float's balance and what it sent today.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { parseEther, parseUnits, type Hex } from 'viem';
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { backends } from '../helpers/backends.ts';
import { balanceOf, entriesSum, post } from '../../src/ledger/index.ts';
import { evmDb } from '../../src/chain/evm/schema.ts';
import { createMerchant } from '../../src/merchants/store.ts';
import { Decimal } from '../../src/money/decimal.ts';
import { floatChecks } from '../../src/doctor/chain.ts';
import { signedInOwner } from '../dashboard/browser.ts';
import { insertInvoice } from '../webhooks/invoices.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { GATEWAY_MNEMONIC, startChain, startEvmGateway, type EvmGateway, type Gateway, type TestChain } from '../chain/gateway-setup.ts';

const CAPS = { max_per_payout: { ETH: '1', USDT: '1000' }, max_per_day: { ETH: '5', USDT: '2500' } };

describe.each(await backends())('the payout float of a watch-only EVM network on $name', (backend) => {
  let chain: TestChain;
  let g: EvmGateway;
  let bare: EvmGateway;
  let dir: string;
  let n = 0;
  const floatKey = generatePrivateKey();
  const float = privateKeyToAccount(floatKey).address;
  /** The hot wallet the gateway's seed would pay from in hot custody (m/44'/60'/1'/0/0). */
  const seedHot = mnemonicToAccount(GATEWAY_MNEMONIC, { accountIndex: 1 }).address;

  beforeAll(async () => {
    chain = await startChain();
    dir = mkdtempSync(join(tmpdir(), 'satchel-float-'));
    const keyFile = join(dir, 'eth-float.key');
    writeFileSync(keyFile, `${floatKey}\n`, { mode: 0o600 });
    g = await startEvmGateway(backend, { chain, network: { custody: 'watch-only', payout_float: { key_file: keyFile, ...CAPS } } });
    // The operator funds the float: coin for gas and ETH payouts, USDT to pay out; no USDC.
    await chain.anvil.wallet(0).sendTransaction({ to: float, value: parseEther('20') });
    await chain.usdt.mint(float, parseUnits('10000', 6));
    await chain.anvil.mine();
    // The same chain, watch-only, with no float configured.
    bare = await startEvmGateway(backend, { chain, network: { custody: 'watch-only' } });
  }, 120_000);
  afterAll(async () => {
    await bare?.stopAll();
    await g?.stopAll();
    await chain?.anvil.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const fund = (gw: Gateway, currency: string, amount: string) =>
    gw.ctx.storage.write((trx) =>
      post(trx, {
        merchantId: gw.merchant.id, wallet: 'business', currency, amount, reason: 'test_funding',
        ref: { kind: 'test', id: 'funding' }, key: `test:${randomUUID()}`, now: gw.ctx.now(),
      }),
    );
  const balance = (gw: Gateway, currency: string) => balanceOf(gw.ctx.storage.db, gw.merchant.id, 'business', currency);
  const payee = () => privateKeyToAccount(generatePrivateKey()).address;
  const payout = (gw: Gateway, body: Record<string, unknown>) =>
    gw.api('/v1/payout', { currency: 'USDT', network: 'ETH', is_subtract: true, address: payee(), order_id: `float-${++n}`, ...body }, { key: 'payout' });
  const rowsOf = (gw: Gateway, orderId: string) => gw.ctx.storage.db.selectFrom('payouts').selectAll().where('merchant_id', '=', gw.merchant.id).where('order_id', '=', orderId).execute();
  /** A refusal at creation: a 422 in the spec's envelope, no payout row, the balance as it was. */
  const refused = async (gw: Gateway, currency: string, body: Record<string, unknown>, message: RegExp) => {
    const before = await balance(gw, currency);
    const orderId = `float-refused-${++n}`;
    const r = await payout(gw, { currency, ...body, order_id: orderId });
    expect(r.status, r.raw).toBe(422);
    expect(r.body).toEqual({ state: 1, message: expect.stringMatching(message) });
    expect(await rowsOf(gw, orderId)).toEqual([]);
    expect(await balance(gw, currency)).toBe(before);
    expect(await balance(gw, currency)).toBe(await entriesSum(gw.ctx.storage.db, gw.merchant.id, 'business', currency));
    return r.body.message as string;
  };

  it('a payout within the caps is paid from the float, never from a key of the gateway\'s seed', async () => {
    await fund(g, 'USDT', '10000');
    await fund(g, 'ETH', '100');
    expect(g.driver().hotWallet).toBe(float);
    const to = payee();
    const r = await payout(g, { amount: '10', address: to });
    expect(r.status, r.raw).toBe(200);
    const p = r.body.result as Record<string, any>;
    await g.tick(); // the worker sends it
    const [sent] = await evmDb(g.ctx.storage.db).selectFrom('scan_outgoing').selectAll().where('request_id', '=', p.uuid).execute();
    expect(sent).toMatchObject({ kind: 'payout', currency: 'USDT', from_address: float.toLowerCase() });
    await g.mineAndTick(2);
    expect((await g.api('/v1/payout/info', { uuid: p.uuid }, { key: 'payout' })).body.result).toMatchObject({ status: 'paid', is_final: true });
    expect(await chain.usdt.balanceOf(to)).toBe(parseUnits('10', 6));
    const tx = await chain.anvil.pub.getTransaction({ hash: sent!.txid as Hex });
    expect(tx.from.toLowerCase()).toBe(float.toLowerCase());
    // The seed's hot wallet was never used: it signed nothing and holds nothing.
    expect(await chain.anvil.pub.getTransactionCount({ address: seedHot })).toBe(0);
  });

  it('a payout beyond max_per_payout is refused at creation, naming the cap', async () => {
    const message = await refused(g, 'USDT', { amount: '1000.01' }, /max_per_payout/);
    expect(message).toContain('1000.00 USDT per payout');
    await refused(g, 'ETH', { amount: '1.5' }, /at most 1\.00 ETH per payout/);
  });

  it('a payout beyond max_per_day is refused at creation, saying how much is left today', async () => {
    // 10 USDT went out above; 1000 + 1000 more leaves 490 of the 2500 a day.
    for (const amount of ['1000', '1000']) expect((await payout(g, { amount })).status).toBe(200);
    const message = await refused(g, 'USDT', { amount: '500' }, /max_per_day/);
    expect(message).toContain('490.00 USDT is left today');
    // What is left can still be sent.
    expect((await payout(g, { amount: '490' })).status).toBe(200);
    await refused(g, 'USDT', { amount: '5' }, /0\.00 USDT is left today/);
  });

  it('concurrent payouts of several merchants cannot together pass the day cap: exactly what fits is accepted', async () => {
    // The cap is the float's, across merchants: each payout here debits another merchant's balance,
    // so no ledger lock orders them; only the float's own lock does.
    const merchants = await Promise.all(Array.from({ length: 8 }, (_, i) => createMerchant(g.ctx.storage.db, `Float shop ${i}`)));
    for (const m of merchants) await fund({ ...g, merchant: m }, 'ETH', '10');
    // 5 ETH a day: five payouts of 0.9 fit (4.5), a sixth would not (5.4).
    const answers = await Promise.all(
      merchants.map((m) =>
        g.api('/v1/payout', { amount: '0.9', currency: 'ETH', network: 'ETH', is_subtract: true, address: payee(), order_id: `float-race-${++n}` }, { key: 'payout', merchant: m }),
      ),
    );
    const accepted = answers.filter((a) => a.status === 200);
    const refusedAnswers = answers.filter((a) => a.status !== 200);
    expect(refusedAnswers.map((a) => a.status)).toEqual([422, 422, 422]);
    for (const a of refusedAnswers) expect(a.body.message).toMatch(/max_per_day/);
    expect(accepted).toHaveLength(5);
    const rows = await g.ctx.storage.db.selectFrom('payouts').select(['merchant_id', 'merchant_amount']).where('network', '=', 'ETH').where('payer_currency', '=', 'ETH').execute();
    expect(rows).toHaveLength(5);
    // Each merchant was debited for its payout only, or not at all.
    for (const m of merchants) {
      const own = rows.find((r) => r.merchant_id === m.id);
      const left = await balanceOf(g.ctx.storage.db, m.id, 'business', 'ETH');
      expect(left).toBe(own ? Decimal.parse('10').sub(own.merchant_amount).toString() : '10');
      expect(left).toBe(await entriesSum(g.ctx.storage.db, m.id, 'business', 'ETH'));
    }
  });

  it('invoice refunds meet the same caps, and are refused without a float, nothing recorded or debited', async () => {
    const refund = async (gw: Gateway, amount: string, message: RegExp) => {
      const inv = await insertInvoice(gw as unknown as TestGateway, { network: 'ETH', payer_currency: 'USDT', payment_amount: '2000', address: payee(), from_address: payee(), address_path: null });
      const before = await balance(gw, 'USDT');
      const r = await gw.api('/v1/payment/refund', { uuid: inv.id, address: payee(), is_subtract: true, amount }, { key: 'payout' });
      expect(r.status, r.raw).toBe(422);
      expect(r.body).toEqual({ state: 1, message: expect.stringMatching(message) });
      expect(await gw.ctx.storage.db.selectFrom('payouts').select('id').where('ref_id', '=', inv.id).execute()).toEqual([]);
      expect(await balance(gw, 'USDT')).toBe(before);
      expect((await gw.ctx.storage.db.selectFrom('invoices').select('status').where('id', '=', inv.id).executeTakeFirstOrThrow()).status).toBe('paid');
    };
    await fund(g, 'USDT', '2000');
    await fund(bare, 'USDT', '100');
    await refund(g, '1500', /at most 1000\.00 USDT per payout \(max_per_payout\)/);
    await refund(g, '15', /0\.00 USDT is left today/); // the day's 2500 went to the payouts above
    await refund(bare, '15', /ETH has no payout float configured/);
  });

  it('a float that cannot cover is refused as before (not enough in its hot wallet)', async () => {
    await fund(g, 'USDC', '100');
    await refused(g, 'USDC', { amount: '5' }, /not enough USDC in its hot wallet/);
  });

  it('a watch-only network without a float refuses payouts at creation', async () => {
    await fund(bare, 'USDT', '100');
    await refused(bare, 'USDT', { amount: '10' }, /ETH has no payout float configured/);
    expect(() => bare.driver().hotWallet).toThrow(/no payout float/);
  });

  it('/metrics shows the float\'s balance and what it sent today, per currency', async () => {
    const scrape = async () => (await g.app.inject({ method: 'GET', url: '/metrics' })).body;
    // The balance is read from the node in the background: /metrics never waits for it.
    await vi.waitFor(async () => expect(await scrape()).toContain('satchel_payout_float_balance{network="ETH",currency="USDT"}'), { timeout: 10_000, interval: 100 });
    const text = await scrape();
    const value = (name: string, currency: string) => Number(new RegExp(`^${name}\\{network="ETH",currency="${currency}"\\} (\\S+)$`, 'm').exec(text)?.[1]);
    expect(value('satchel_payout_float_balance', 'USDT')).toBe(10000 - 10);
    expect(value('satchel_payout_float_balance', 'ETH')).toBeGreaterThan(19);
    expect(value('satchel_payout_float_spent_today', 'USDT')).toBe(2500);
    expect(value('satchel_payout_float_spent_today', 'ETH')).toBeCloseTo(4.5, 9);
    expect(value('satchel_payout_float_spent_today', 'USDC')).toBe(0);
    // The gateway without a float shows none.
    expect((await bare.app.inject({ method: 'GET', url: '/metrics' })).body).not.toContain('satchel_payout_float');
  });

  it('the dashboard\'s payouts page shows each float\'s balance and today\'s total against the caps', async () => {
    const viewer = await signedInOwner(g as unknown as TestGateway, 'viewer', 'viewer@float.example');
    const r = await viewer.call('GET', '/payout-floats');
    expect(r.status).toBe(200);
    const usdt = (r.body.result as any[]).find((f) => f.network === 'ETH' && f.currency === 'USDT');
    expect(usdt).toEqual({
      network: 'ETH', currency: 'USDT', address: float, balance: '9990',
      spent_today: '2500', max_per_payout: '1000', max_per_day: '2500', left_today: '0',
    });
    const usdc = (r.body.result as any[]).find((f) => f.currency === 'USDC');
    expect(usdc).toMatchObject({ spent_today: '0', max_per_payout: null, max_per_day: null, left_today: null });
    const none = await signedInOwner(bare as unknown as TestGateway, 'viewer', 'viewer@bare.example');
    expect((await none.call('GET', '/payout-floats')).body.result).toEqual([]);
  });

  it('the doctor checks the float: its key file and account, its caps, what it holds; and names a network without one', async () => {
    const [finding] = await floatChecks(g.ctx, ['ETH']);
    // USDC has no cap: a stolen API key could empty the float of it.
    expect(finding).toMatchObject({ status: 'WARN', name: 'payout float ETH', fix: expect.stringContaining('max_per_payout and max_per_day for USDC') });
    expect(finding!.detail).toContain(`account ${float}`);
    expect(finding!.detail).toContain('USDT 1000 a payout, 2500 a day');
    expect(finding!.detail).toContain('holds ');
    const [missing] = await floatChecks(bare.ctx, ['ETH']);
    expect(missing).toMatchObject({ status: 'WARN', detail: expect.stringContaining('payouts and refunds on ETH are refused'), fix: expect.stringContaining('payout_float.key_file') });
  });
});
