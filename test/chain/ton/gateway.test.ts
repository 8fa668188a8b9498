// TON through the whole gateway, on both databases: the `ton` driver against the toncenter double
// over @ton/sandbox. A merchant sets their own TON wallet as receiving material; each invoice on
// TON answers that wallet and its own payment_comment; a payer pays in the sandbox with that
// comment (a real signed wallet v4 message, or a USDT jetton transfer with the comment in the
// forward payload) and the invoice turns paid (partial and over payments as amounts say). A
// payment without comment is not credited and is recorded as unmatched for the merchant.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toNano } from '@ton/core';
import { backends } from '../../helpers/backends.ts';
import { checkCustody, writeCustody } from '../../../src/custody/store.ts';
import type { CustodyInput } from '../../../src/chain/family.ts';
import type { Ctx } from '../../../src/context.ts';
import type { TonDriver } from '../../../src/chain/ton/ton-driver.ts';
import { startChainGateway, type ChainGateway } from '../gateway-setup.ts';
import { startToncenterDouble, type TonDouble } from './double/toncenter.ts';
import { scenario, type Jetton, type Payer, type Scenario } from './double/scenario.ts';

async function setMaterial(ctx: Ctx, merchantId: string, network: string, input: CustodyInput) {
  const req = { merchantId, network, input, actor: 'test', replace: false };
  const checked = await checkCustody(ctx, req);
  return ctx.storage.write((trx) => writeCustody(trx, req, checked, ctx.now()));
}

describe.each(await backends())('TON payments through the gateway ($name)', (backend) => {
  let double: TonDouble;
  let sc: Scenario;
  let g: ChainGateway<TonDriver>;
  let merchantWallet: Payer;
  let payer: Payer;
  let usdt: Jetton;
  let n = 0;

  beforeAll(async () => {
    double = await startToncenterDouble();
    sc = scenario(double);
    merchantWallet = await sc.payerWallet('shop');
    payer = await sc.payerWallet('customer');
    await sc.sendTon(merchantWallet, payer.address, toNano('0.01'), null);
    usdt = await sc.deployJetton('USDT');
    await usdt.mint(payer, 10n ** 12n);
    g = await startChainGateway<TonDriver>(backend, {
      code: 'TON',
      network: { driver: 'ton', api_url: double.url, confirmations: 1, tokens: { USDT: usdt.master.toString() } },
      mine: () => double.tick(),
      stop: () => double.close(),
    });
    await setMaterial(g.ctx, g.merchant.id, 'TON', { address: merchantWallet.address.toString() });
    // The wallet's first scan (its history up to now) happens before any invoice is paid.
    await g.tick();
  }, 120_000);
  afterAll(async () => {
    await g?.stopAll();
  });

  const invoice = async (amount: string, currency = 'TON') => {
    const r = await g.api('/v1/payment', { amount, currency, network: 'TON', order_id: `ton-${++n}` });
    expect(r.status, r.raw).toBe(200);
    return r.body.result as { uuid: string; address: string; payment_comment: string };
  };
  const info = async (uuid: string) => (await g.api('/v1/payment/info', { uuid })).body.result;

  it('answers the merchant wallet and a comment per invoice, and credits Toncoin paid with it: exact, partial, over', async () => {
    const exact = await invoice('1.5');
    const part = await invoice('2');
    const over = await invoice('0.5');
    expect(exact.address).toBe(merchantWallet.address.toString({ bounceable: false }));
    expect(exact.payment_comment).toMatch(/^[1-9A-HJ-NP-Za-km-z]{10}$/);
    expect(new Set([exact.payment_comment, part.payment_comment, over.payment_comment]).size).toBe(3);

    const paid = await sc.sendTon(payer, exact.address, toNano('1.5'), exact.payment_comment);
    await sc.sendTon(payer, part.address, toNano('1.25'), part.payment_comment);
    await sc.sendTon(payer, over.address, toNano('0.75'), over.payment_comment);
    await g.tick();
    expect((await info(exact.uuid)).payment_status).toBe('check');
    await g.mineAndTick();
    const e = await info(exact.uuid);
    expect(e).toMatchObject({ payment_status: 'paid', payment_amount: '1.50' });
    expect(e.txid).toBe(paid.received!.hash().toString('hex'));
    expect(await info(part.uuid)).toMatchObject({ payment_status: 'process', payment_amount: '1.25', is_final: false });
    expect(await info(over.uuid)).toMatchObject({ payment_status: 'paid_over', payment_amount: '0.75', is_final: true });
    // The rest of the partial payment, with the same comment.
    const rest = await sc.sendTon(payer, part.address, toNano('0.75'), part.payment_comment);
    await g.mineAndTick(2);
    expect(await info(part.uuid)).toMatchObject({ payment_status: 'paid', payment_amount: '2.00', txid: rest.received!.hash().toString('hex') });
  });

  it('credits USDT paid by jetton transfer with the comment, never a fake jetton\'s', async () => {
    const inv = await invoice('25', 'USDT');
    const fakeInv = await invoice('10', 'USDT');
    await sc.sendJetton(payer, usdt, inv.address, 25_000_000n, inv.payment_comment, toNano('0.05'));
    const fake = await sc.deployFakeJetton(usdt);
    await fake.mint(payer, 10n ** 12n);
    await sc.sendJetton(payer, fake, fakeInv.address, 10_000_000n, fakeInv.payment_comment, toNano('0.05'));
    await g.mineAndTick(2);
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'paid' });
    expect(Number((await info(inv.uuid)).payment_amount)).toBe(25);
    expect((await info(fakeInv.uuid)).payment_status).toBe('process');
  });

  it('resumes after the API was down: the payment made meanwhile is credited once', async () => {
    const inv = await invoice('1');
    await double.down();
    const paid = await sc.sendTon(payer, inv.address, toNano('1'), inv.payment_comment);
    await g.tick().catch(() => {});
    expect((await info(inv.uuid)).payment_status).toBe('process');
    await double.up();
    await g.mineAndTick(2);
    await g.mineAndTick(2);
    const txid = paid.received!.hash().toString('hex');
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'paid', txid });
    expect(await g.ctx.storage.db.selectFrom('chain_transfers').select('txid').where('txid', '=', txid).execute()).toHaveLength(1);
  });

  it('records a payment without comment as unmatched and credits no invoice', async () => {
    const inv = await invoice('3');
    await sc.sendTon(payer, inv.address, toNano('3'), null);
    await g.mineAndTick(2);
    expect((await info(inv.uuid)).payment_status).toBe('process');
    const rows = await g.ctx.storage.db.selectFrom('unmatched_payments').selectAll().where('network', '=', 'TON').where('amount', '=', '3').execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ merchant_id: g.merchant.id, reason: 'no_reference', currency: 'TON', status: 'open' });
  });
});
