// A payout the EVM hot wallet cannot cover, through the whole gateway on a real chain (anvil):
// refused at creation with nothing debited; accepted while it could be paid and short later, it
// stays visible as stuck and fails with its funds returned after the configured wait.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { createWalletClient, erc20Abi, http, parseEther, parseUnits } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { backends } from '../../helpers/backends.ts';
import { balanceOf, entriesSum, post } from '../../../src/ledger/index.ts';
import { hotWalletPath } from '../../../src/chain/evm/index.ts';
import { listStuckPayouts } from '../../../src/outgoing/stuck.ts';
import { GATEWAY_MNEMONIC, startEvmGateway, type EvmGateway } from '../gateway-setup.ts';

describe.each(await backends())('EVM payouts the hot wallet cannot cover, on $name', (backend) => {
  let g: EvmGateway;
  let n = 0;
  beforeAll(async () => {
    g = await startEvmGateway(backend, { confirmations: 2, env: { SATCHEL_PAYOUT_STUCK_TIMEOUT_SECONDS: '600' } });
    const hot = g.driver().hotWallet;
    await g.anvil.wallet(0).sendTransaction({ to: hot, value: parseEther('1') });
    await g.usdt.mint(hot, parseUnits('30', 6));
    await g.anvil.mine();
    await g.ctx.storage.write((trx) =>
      post(trx, {
        merchantId: g.merchant.id, wallet: 'business', currency: 'USDT', amount: '1000', reason: 'test_funding',
        ref: { kind: 'test', id: 'funding' }, key: `test:${randomUUID()}`, now: g.ctx.now(),
      }),
    );
  });
  afterAll(async () => g?.stopAll());

  const balance = () => balanceOf(g.ctx.storage.db, g.merchant.id, 'business', 'USDT');
  const payout = (amount: string) =>
    g.api('/v1/payout', { amount, currency: 'USDT', network: 'ETH', address: '0x000000000000000000000000000000000000dEaD', is_subtract: true, order_id: `cover-${++n}` }, { key: 'payout' });
  const row = (id: string) => g.ctx.storage.db.selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('refuses at creation a payout the hot wallet cannot cover: a clear message, nothing recorded or debited', async () => {
    const before = await balance();
    const r = await payout('500');
    expect([r.status, r.body]).toEqual([422, { state: 1, message: 'The gateway cannot send this payout now: not enough USDT in its hot wallet' }]);
    expect(await balance()).toBe(before);
    expect(await g.ctx.storage.db.selectFrom('payouts').select('id').where('order_id', '=', `cover-${n}`).execute()).toEqual([]);
    // The merchant's own shortfall keeps the spec's message.
    expect((await payout('5000')).body).toEqual({ state: 1, message: 'Not enough funds' });
  });

  it('a payout that becomes uncoverable after acceptance stays process, visible, then fails with its funds returned', async () => {
    const before = await balance();
    const accepted = await payout('20');
    expect(accepted.status, accepted.raw).toBe(200);
    const id = accepted.body.result.uuid as string;
    // The hot wallet's USDT leaves it (another use of the same key) before the worker sends.
    const hotKey = mnemonicToAccount(GATEWAY_MNEMONIC, { path: hotWalletPath(60) as `m/44'/60'/${string}` });
    const hotClient = createWalletClient({ account: hotKey, chain: g.anvil.chain, transport: http(g.anvil.url) });
    await hotClient.writeContract({ address: g.usdt.address, abi: erc20Abi, functionName: 'transfer', args: ['0x000000000000000000000000000000000000bEEF', parseUnits('30', 6)] });
    await g.anvil.mine();

    await g.tick();
    const stuck = await row(id);
    expect(stuck).toMatchObject({ status: 'process', is_final: 0, txid: null });
    expect(stuck.last_error).toMatch(/lacks USDT/);
    expect(await balance()).not.toBe(before); // still reserved while it waits
    // Visible to the operator: `satchel payouts list --stuck` and the gauge in /metrics.
    expect((await listStuckPayouts(g.ctx.storage.db)).map((p) => [p.uuid, p.currency])).toEqual([[id, 'USDT']]);
    const metrics = (await g.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(/^satchel_payouts_stuck 1$/m);

    // After the configured wait (600 s here), the next attempt fails it and returns the funds.
    g.clock.advance(601_000);
    await g.tick();
    expect(await row(id)).toMatchObject({ status: 'fail', is_final: 1, txid: null });
    expect((await row(id)).last_error).toMatch(/could not cover this payout for 10 min/);
    expect(await balance()).toBe(before);
    expect(await balance()).toBe(await entriesSum(g.ctx.storage.db, g.merchant.id, 'business', 'USDT'));
    expect(await listStuckPayouts(g.ctx.storage.db)).toEqual([]);
  });
});
