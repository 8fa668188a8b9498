// Solana through the whole gateway, on both databases: the `solana` driver against the JSON-RPC
// double over LiteSVM. A merchant sets their own wallet as receiving material; each invoice on SOL
// answers that wallet and a Solana Pay link with its own reference; a payer pays in LiteSVM what
// the link asks, built and signed by @solana/kit (transfer + reference key), and the invoice turns
// `check` while the payment is confirmed, then paid once finalized (partial and over as amounts
// say). A look-alike mint and a failed transaction credit nothing; a payment without the
// reference is recorded as unmatched; a node down and back credits once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyPairSigner } from '@solana/kit';
import { backends } from '../../helpers/backends.ts';
import { checkCustody, writeCustody } from '../../../src/custody/store.ts';
import type { CustodyInput } from '../../../src/chain/family.ts';
import type { Ctx } from '../../../src/context.ts';
import type { SolanaDriver } from '../../../src/chain/solana/solana-driver.ts';
import { startChainGateway, type ChainGateway } from '../gateway-setup.ts';
import { startSolanaDouble, type SolanaDouble } from './double/server.ts';
import { LAMPORTS_PER_SOL, scenario, type Mint, type Scenario } from './double/scenario.ts';

async function setMaterial(ctx: Ctx, merchantId: string, network: string, input: CustodyInput) {
  const req = { merchantId, network, input, actor: 'test', replace: false };
  const checked = await checkCustody(ctx, req);
  return ctx.storage.write((trx) => writeCustody(trx, req, checked, ctx.now()));
}

describe.each(await backends())('Solana payments through the gateway ($name)', (backend) => {
  let double: SolanaDouble;
  let sc: Scenario;
  let g: ChainGateway<SolanaDriver>;
  let shop: KeyPairSigner;
  let payer: KeyPairSigner;
  let usdc: Mint;
  let fake: Mint;
  let n = 0;

  beforeAll(async () => {
    double = await startSolanaDouble();
    sc = scenario(double);
    shop = await sc.payer(LAMPORTS_PER_SOL);
    payer = await sc.payer(1000n * LAMPORTS_PER_SOL);
    usdc = await sc.mint(6);
    const usdt = await sc.mint(6);
    fake = await sc.mint(6);
    await sc.mintTo(usdc, payer.address, 10n ** 12n);
    await sc.mintTo(fake, payer.address, 10n ** 12n);
    g = await startChainGateway<SolanaDriver>(backend, {
      code: 'SOL',
      network: { driver: 'solana', rpc_url: double.url, cluster: 'localnet', tokens: { USDC: usdc.address, USDT: usdt.address } },
      // Past the finality depth: what was confirmed is finalized.
      mine: () => double.chain.finalizeAll(),
      stop: () => double.close(),
    });
    await setMaterial(g.ctx, g.merchant.id, 'SOL', { address: shop.address });
    await g.tick();
  }, 120_000);
  afterAll(async () => {
    await g?.stopAll();
  });

  const invoice = async (amount: string, currency = 'SOL') => {
    const r = await g.api('/v1/payment', { amount, currency, network: 'SOL', order_id: `sol-${++n}` });
    expect(r.status, r.raw).toBe(200);
    const inv = r.body.result as { uuid: string; address: string; payment_comment: string | null };
    const view = JSON.parse((await g.app.inject({ method: 'GET', url: `/api/pay/${inv.uuid}` })).body).result;
    const url = new URL(view.wallet_uri.replace(/^solana:/, 'solana://x/'));
    return { ...inv, reference: url.searchParams.get('reference')!, uri: view.wallet_uri as string };
  };
  const info = async (uuid: string) => (await g.api('/v1/payment/info', { uuid })).body.result;

  it('answers the merchant wallet with a Solana Pay reference per invoice, and credits SOL: check while confirmed, paid once finalized', async () => {
    const exact = await invoice('1.5');
    const part = await invoice('2');
    const over = await invoice('0.5');
    expect(exact.address).toBe(shop.address);
    expect(exact.payment_comment).toBeNull();
    expect(new Set([exact.reference, part.reference, over.reference]).size).toBe(3);
    expect(exact.uri).toContain(`solana:${shop.address}?amount=1.5`);

    const paid = await sc.paySol(payer, shop.address, 1_500_000_000n, [exact.reference]);
    await sc.paySol(payer, shop.address, 1_250_000_000n, [part.reference]);
    await sc.paySol(payer, shop.address, 750_000_000n, [over.reference]);
    await g.tick();
    expect(await info(exact.uuid)).toMatchObject({ payment_status: 'check' });
    await g.mineAndTick();
    expect(await info(exact.uuid)).toMatchObject({ payment_status: 'paid', payment_amount: '1.50', txid: paid });
    expect(await info(part.uuid)).toMatchObject({ payment_status: 'process', payment_amount: '1.25', is_final: false });
    expect(await info(over.uuid)).toMatchObject({ payment_status: 'paid_over', payment_amount: '0.75', is_final: true });
    const rest = await sc.paySol(payer, shop.address, 750_000_000n, [part.reference]);
    await g.mineAndTick();
    expect(await info(part.uuid)).toMatchObject({ payment_status: 'paid', payment_amount: '2.00', txid: rest });
  });

  it('credits USDC into the merchant token account (exact, partial, over); never a look-alike mint or a failed transaction', async () => {
    const exact = await invoice('25', 'USDC');
    const part = await invoice('10', 'USDC');
    const over = await invoice('5', 'USDC');
    const lookalike = await invoice('10', 'USDC');
    const failed = await invoice('1', 'SOL');
    await sc.payToken(payer, shop.address, usdc, 25_000_000n, [exact.reference]);
    await sc.payToken(payer, shop.address, usdc, 4_000_000n, [part.reference]);
    await sc.payToken(payer, shop.address, usdc, 5_500_000n, [over.reference]);
    await sc.payToken(payer, shop.address, fake, 10_000_000n, [lookalike.reference]);
    const poor = await sc.payer(1_000_000n);
    await sc.pay(poor, [{ to: shop.address, amount: 1_000_000_000n, references: [failed.reference] }], { skipPreflight: true });
    await g.tick();
    await g.mineAndTick();
    expect(await info(exact.uuid)).toMatchObject({ payment_status: 'paid' });
    expect(Number((await info(exact.uuid)).payment_amount)).toBe(25);
    expect(await info(part.uuid)).toMatchObject({ payment_status: 'process' });
    expect(Number((await info(part.uuid)).payment_amount)).toBe(4);
    expect(await info(over.uuid)).toMatchObject({ payment_status: 'paid_over' });
    expect((await info(lookalike.uuid)).payment_status).toBe('process');
    expect((await info(failed.uuid)).payment_status).toBe('process');
  });

  it('two invoices paid in one transaction are each credited their own amount, once', async () => {
    const a = await invoice('0.3');
    const b = await invoice('0.4');
    const sig = await sc.pay(payer, [
      { to: shop.address, amount: 300_000_000n, references: [a.reference] },
      { to: shop.address, amount: 400_000_000n, references: [b.reference] },
    ]);
    await g.mineAndTick(2);
    expect(await info(a.uuid)).toMatchObject({ payment_status: 'paid', payment_amount: '0.30', txid: sig });
    expect(await info(b.uuid)).toMatchObject({ payment_status: 'paid', payment_amount: '0.40', txid: sig });
    expect(await g.ctx.storage.db.selectFrom('chain_transfers').select('txid').where('txid', '=', sig).execute()).toHaveLength(2);
  });

  it('resumes after the node was down: the payment made meanwhile is credited once', async () => {
    const inv = await invoice('1');
    await double.down();
    const paid = await sc.paySol(payer, shop.address, 1_000_000_000n, [inv.reference]).catch(() => null);
    expect(paid).toBeNull(); // the node is down: the wallet cannot send either
    await double.up();
    await double.down({ refuse: true });
    await g.tick().catch(() => {});
    await double.up();
    const sig = await sc.paySol(payer, shop.address, 1_000_000_000n, [inv.reference]);
    await double.down();
    await g.tick().catch(() => {});
    expect((await info(inv.uuid)).payment_status).toBe('process');
    await double.up();
    await g.mineAndTick(2);
    expect(await info(inv.uuid)).toMatchObject({ payment_status: 'paid', txid: sig });
    expect(await g.ctx.storage.db.selectFrom('chain_transfers').select('txid').where('txid', '=', sig).execute()).toHaveLength(1);
  });

  it('records a payment without the reference as unmatched and credits no invoice', async () => {
    const inv = await invoice('3');
    const sig = await sc.paySol(payer, shop.address, 3_000_000_000n);
    await g.mineAndTick(2);
    expect((await info(inv.uuid)).payment_status).toBe('process');
    const rows = await g.ctx.storage.db.selectFrom('unmatched_payments').selectAll().where('network', '=', 'SOL').where('txid', '=', sig).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ amount: '3', currency: 'SOL', to_address: shop.address, from_address: payer.address });
  });
});
