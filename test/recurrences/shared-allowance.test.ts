// One ERC-20 allowance (payer -> collector) serves all of a payer's subscriptions in a token, and
// approve sets an absolute value: the page adds this subscription's cap to what is already allowed,
// and for an approve-only token with an allowance already (Ethereum USDT reverts approve from
// non-zero to non-zero) it sends approve(0) first, then approve(total). On anvil, with USDT
// behaving as Ethereum's, driven by the page's own wallet code: the second subscription's approval
// keeps the first one's, and both renewals are pulled from the one allowance.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erc20Abi, parseUnits, type Hex } from 'viem';
import { allowanceMessage } from '../../src/contracts/allowance-message.ts';
import { backends } from '../helpers/backends.ts';
import { PAYER, startEvmGateway, type EvmGateway } from '../chain/gateway-setup.ts';
import { approveWithWallet, planApproval, signWithWallet } from '../../src/page/evm-tx.ts';
import { anvilWallet, startPermitChain } from './anvil-wallet.ts';

const CONFIRMATIONS = 2;
let n = 0;

describe.each(await backends())('a shared allowance for automatic renewals on $name', (backend) => {
  let g: EvmGateway;
  beforeAll(async () => {
    g = await startEvmGateway(backend, { confirmations: CONFIRMATIONS, chain: await startPermitChain() });
    await g.anvil.rpc('anvil_setBalance', [g.driver().hotWallet, '0x56BC75E2D63100000']);
  }, 60_000);
  afterAll(async () => {
    await g?.stopAll();
    await g?.anvil.stop();
  });

  const payer = () => g.anvil.account(PAYER).address;
  const db = () => g.ctx.storage.db;
  const units = (amount: string) => parseUnits(amount, 6);
  const pay = (path: string, method: 'GET' | 'POST' = 'GET', payload?: unknown) =>
    g.app.inject({ method, url: `/api/pay/recurrence/${path}`, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
  const rec = (id: string) => db().selectFrom('recurrences').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const onChain = async () =>
    (await g.anvil.pub.readContract({ address: g.usdt.address, abi: erc20Abi, functionName: 'allowance', args: [payer(), g.driver().hotWallet as Hex] })) as bigint;

  const activeOne = async (amount: string) => {
    const created = await g.api('/v1/recurrence/create', { amount, currency: 'USDT', name: 'Pro plan', period: 'weekly', order_id: `shared-${backend.name}-${++n}` });
    expect(created.status, created.raw).toBe(200);
    const uuid = created.body.result.uuid as string;
    const s = await pay(`${uuid}/subscribe`, 'POST', { currency: 'USDT', network: 'ETH' });
    expect(s.statusCode, s.body).toBe(200);
    await g.payToken(s.json().result.invoice.address, amount);
    await g.mineAndTick(CONFIRMATIONS);
    await g.tick();
    expect((await rec(uuid)).status).toBe('active');
    return uuid;
  };

  /** What the page does on "Approve with …": plan, approve (with the reset when due), sign, post. */
  const approveOnPage = async (uuid: string) => {
    const t = (await pay(`${uuid}/allowance`)).json().result;
    expect(t.permit).toBeNull(); // approve-only
    const wallet = anvilWallet(g.anvil);
    const plan = await planApproval(wallet, t.chain, t.collector, t.cap, false);
    const steps: string[] = [];
    const done = await approveWithWallet(wallet, t.chain, t.collector, plan, { pollMs: 10, onStep: (s) => steps.push(s) });
    const signature = await signWithWallet(wallet, plan.address, allowanceMessage({ ...t, uuid }));
    const res = await pay(`${uuid}/allowance`, 'POST', { ...done, signature });
    expect(res.statusCode, res.body).toBe(200);
    return { t, plan, steps, recorded: res.json().result.recorded };
  };

  it('the token refuses approve from non-zero to non-zero (the rule the page works around)', async () => {
    const w = g.anvil.wallet(PAYER);
    const spender = g.anvil.account(3).address;
    await w.writeContract({ address: g.usdt.address, abi: erc20Abi, functionName: 'approve', args: [spender, 5n] });
    await g.anvil.mine();
    await expect(g.anvil.pub.simulateContract({ account: payer(), address: g.usdt.address, abi: erc20Abi, functionName: 'approve', args: [spender, 6n] })).rejects.toThrow(/non-zero/);
  });

  it('a second subscription approves the sum (approve(0) first), and both renewals are pulled from the one allowance', async () => {
    const a = await activeOne('10');
    const first = await approveOnPage(a);
    expect(first.plan).toMatchObject({ current: 0n, total: units('120'), reset: false });
    expect(first.steps).toEqual(['approve']);
    expect(await onChain()).toBe(units('120'));

    const b = await activeOne('5');
    const second = await approveOnPage(b);
    // The page read the allowance the first subscription left, and approved it plus this cap.
    expect(second.plan).toMatchObject({ current: units('120'), total: units('180'), reset: true });
    expect(second.steps).toEqual(['reset', 'approve']);
    expect(await onChain()).toBe(units('180'));
    expect(second.recorded).toEqual({ address: payer().toLowerCase(), status: 'active', cap: '180' });

    // Both periods come due; each is pulled from the shared allowance.
    const due = Math.max(Number((await rec(a)).next_due_at), Number((await rec(b)).next_due_at));
    const ms = due - g.clock.now + 1000;
    g.clock.advance(ms);
    await g.anvil.rpc('evm_increaseTime', [Math.ceil(ms / 1000)]);
    await g.tick();
    await g.mineAndTick(CONFIRMATIONS + 1);
    await g.tick();
    expect((await rec(a)).status).toBe('active');
    expect((await rec(b)).status).toBe('active');
    expect(await onChain()).toBe(units('165'));
    for (const uuid of [a, b]) expect((await g.api('/v1/recurrence/cancel', { uuid })).status).toBe(200);
  });

  it('a permit offered for a token without permit is refused (permit_unsupported), nothing written', async () => {
    const uuid = await activeOne('10');
    const t = (await pay(`${uuid}/allowance`)).json().result;
    const wallet = anvilWallet(g.anvil);
    const signature = await signWithWallet(wallet, payer(), allowanceMessage({ ...t, uuid }));
    const res = await pay(`${uuid}/allowance`, 'POST', { address: payer(), signature, permit: { value: t.cap, deadline: Math.floor(g.clock.now / 1000) + 600, signature: '0x' + '11'.repeat(65) } });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ state: 1, code: 'permit_unsupported' });
    expect(await db().selectFrom('recurrence_allowances').selectAll().where('recurrence_id', '=', uuid).execute()).toEqual([]);
    expect((await g.api('/v1/recurrence/cancel', { uuid })).status).toBe(200);
  });
});
