// The chain sink's `unmatched`: a payment to a merchant's receiving account that names no invoice is
// recorded once however often a driver replays it, found to be the merchant's by its receiving
// material (current or replaced, the newest row winning), credited to nothing, and announced by a
// signed `unmatched_payment` webhook to the merchant's default callback URL.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { createMerchant } from '../../src/merchants/store.ts';
import { createWorkers } from '../../src/worker/index.ts';
import { signedBody } from '../../src/webhooks/payload.ts';
import { looksLikeWebhook } from '../../src/webhooks/signature.ts';
import { ACCOUNT, startUnmatchedGateway, type UnmatchedGateway } from './setup.ts';

function signedWith(body: string, key: string): boolean {
  const { sign, ...rest } = JSON.parse(body) as Record<string, unknown>;
  return typeof sign === 'string' && signedBody(rest, key) === body;
}

describe.each(await backends())('recording unmatched payments on $name', (backend) => {
  let gw: UnmatchedGateway;
  beforeAll(async () => {
    gw = await startUnmatchedGateway(backend);
  });
  afterAll(async () => gw?.close());
  beforeEach(() => {
    gw.rx.deliveries.length = 0;
  });

  const rows = (txid: string) => gw.ctx.storage.db.selectFrom('unmatched_payments').selectAll().where('txid', '=', txid).execute();
  const hooks = (ref: string) => gw.ctx.storage.db.selectFrom('webhooks').selectAll().where('kind', '=', 'unmatched').where('ref_id', '=', ref).execute();

  it('records a replayed payment once, credits nothing, and sends one signed webhook', async () => {
    const before = await gw.balance();
    const t = await gw.report({ amount: '12.5', memo: 'wrong comment' });
    await gw.report({ ...t, confirmations: 40 });
    await gw.report(t);
    const found = await rows(t.txid);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      merchant_id: gw.merchant.id,
      network: 'TRON',
      currency: 'USDT',
      idx: 0,
      from_address: t.from,
      to_address: ACCOUNT,
      amount: '12.5',
      memo: 'wrong comment',
      reason: 'unknown_reference',
      status: 'open',
      invoice_id: null,
    });
    expect(Number(found[0]!.confirmations)).toBe(40);
    expect(await gw.balance()).toBe(before);
    expect(await gw.ctx.storage.db.selectFrom('chain_transfers').select('txid').where('txid', '=', t.txid).execute()).toEqual([]);

    expect(await hooks(found[0]!.id)).toHaveLength(1);
    await createWorkers(gw.ctx).tick();
    const sent = gw.rx.deliveries.filter((d) => d.json.uuid === found[0]!.id);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.json).toEqual({
      type: 'unmatched_payment',
      uuid: found[0]!.id,
      merchant: gw.merchant.id,
      network: 'TRON',
      currency: 'USDT',
      amount: '12.50',
      from: t.from,
      to: ACCOUNT,
      memo: 'wrong comment',
      reason: 'unknown_reference',
      txid: t.txid,
      received_at: '2026-01-15T15:00:00+03:00',
      sign: sent[0]!.json.sign,
    });
    expect(Object.keys(sent[0]!.json).at(-1)).toBe('sign');
    expect(signedWith(sent[0]!.body, gw.merchant.payment_key)).toBe(true);
    // A leaked body is never taken for a signed request.
    expect(looksLikeWebhook(sent[0]!.json)).toBe(true);
  });

  it('a second index of the same transaction is its own payment; a binary comment keeps no memo', async () => {
    const t = await gw.report({ reason: 'unreadable_reference', memo: null });
    await gw.report({ ...t, index: 1, reason: 'no_reference', memo: '' });
    const found = await rows(t.txid);
    expect(found.map((r) => [Number(r.idx), r.reason, r.memo]).sort()).toEqual([
      [0, 'unreadable_reference', null],
      [1, 'no_reference', null],
    ]);
  });

  it('finds the merchant by replaced material too, the newest row winning; an account nobody named has no merchant and no webhook', async () => {
    const other = await createMerchant(gw.ctx.storage.db, 'Other shop');
    const OLD = 'TOldWalletOfTheShop000000000000001';
    await gw.setMaterial(gw.merchant.id, OLD, gw.clock.now - 5000, gw.clock.now - 4000);
    const old = await gw.report({ to: OLD });
    expect((await rows(old.txid))[0]!.merchant_id).toBe(gw.merchant.id);

    // The same account later set by another merchant: the newest row is the one that counts.
    const SHARED = 'TSharedWallet00000000000000000001';
    await gw.setMaterial(gw.merchant.id, SHARED, gw.clock.now - 3000, gw.clock.now - 2000);
    await gw.setMaterial(other.id, SHARED, gw.clock.now - 1000);
    const shared = await gw.report({ to: SHARED });
    expect((await rows(shared.txid))[0]!.merchant_id).toBe(other.id);

    const stray = await gw.report({ to: 'TNobodysWallet000000000000000001' });
    const row = (await rows(stray.txid))[0]!;
    expect(row).toMatchObject({ merchant_id: null, status: 'open' });
    expect(await hooks(row.id)).toEqual([]);

    // Exact match only: the same text in another case is another account.
    const cased = await gw.report({ to: ACCOUNT.toLowerCase() });
    expect((await rows(cased.txid))[0]!.merchant_id).toBeNull();
  });

  it('a merchant without a default callback URL gets the row and no webhook', async () => {
    await gw.ctx.storage.db.updateTable('merchants').set({ default_url_callback: null }).where('id', '=', gw.merchant.id).execute();
    try {
      const t = await gw.report();
      const row = (await rows(t.txid))[0]!;
      expect(row.merchant_id).toBe(gw.merchant.id);
      expect(await hooks(row.id)).toEqual([]);
    } finally {
      await gw.ctx.storage.db.updateTable('merchants').set({ default_url_callback: gw.rx.url }).where('id', '=', gw.merchant.id).execute();
    }
  });

  it('an amount that is not a decimal is set aside, never recorded', async () => {
    const t = await gw.report({ amount: '1e5' });
    expect(await rows(t.txid)).toEqual([]);
    const aside = await gw.ctx.storage.db.selectFrom('set_aside_transfers').selectAll().where('txid', '=', t.txid).execute();
    expect(aside).toMatchObject([{ network: 'TRON', reason: 'amount is not a decimal' }]);
  });
});
