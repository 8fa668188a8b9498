// Automatic renewals with an EIP-2612 permit, on anvil: where the token has permit, the terms give
// its EIP-712 domain (read on chain), the payer's wallet signs a Permit (eth_signTypedData_v4: no
// transaction, no gas) and the subscription's allowance message, and the gateway's collector submits
// permit() paying the gas; once mined the allowance is recorded and renewals are pulled from it.
// A bad permit (expired, signed by someone else, a value other than signed) is refused with
// `permit_invalid` and nothing is written or sent; a collector without gas gives `permit_unavailable`. The page's own wallet code drives the wallet.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erc20Abi, getAddress, parseUnits, type Hex } from 'viem';
import { allowanceMessage } from '../../src/contracts/allowance-message.ts';
import { backends } from '../helpers/backends.ts';
import { PAYER, startEvmGateway, type EvmGateway } from '../chain/gateway-setup.ts';
import { CHAIN_ID } from '../chain/evm/anvil.ts';
import { mined, permitWithWallet, planApproval, signWithWallet } from '../../src/page/evm-tx.ts';
import { PERMIT_TYPES } from '../../src/chain/evm/pull.ts';
import { anvilWallet, startPermitChain } from './anvil-wallet.ts';

const CONFIRMATIONS = 2;
let n = 0;

describe.each(await backends())('EIP-2612 permit for automatic renewals on $name', (backend) => {
  let g: EvmGateway;
  beforeAll(async () => {
    g = await startEvmGateway(backend, { confirmations: CONFIRMATIONS, chain: await startPermitChain() });
    await g.anvil.rpc('anvil_setBalance', [g.driver().hotWallet, '0x56BC75E2D63100000']); // 100 ETH for the collector's gas
  }, 60_000);
  afterAll(async () => {
    await g?.stopAll();
    await g?.anvil.stop();
  });

  const payer = () => g.anvil.account(PAYER).address;
  const db = () => g.ctx.storage.db;
  const pay = (path: string, method: 'GET' | 'POST' = 'GET', payload?: unknown) =>
    g.app.inject({ method, url: `/api/pay/recurrence/${path}`, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
  const rec = (id: string) => db().selectFrom('recurrences').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const allowanceRows = (id: string) => db().selectFrom('recurrence_allowances').selectAll().where('recurrence_id', '=', id).execute();
  const permitRows = () => db().selectFrom('scan_outgoing').selectAll().where('kind', '=', 'permit').execute();
  const onChain = async () =>
    (await g.anvil.pub.readContract({ address: g.usdc.address, abi: erc20Abi, functionName: 'allowance', args: [payer(), g.driver().hotWallet as Hex] })) as bigint;

  /** A weekly 10 USDC recurrence on ETH, its first period paid by hand: `active`. */
  const activeOne = async () => {
    const created = await g.api('/v1/recurrence/create', { amount: '10', currency: 'USDC', name: 'Pro plan', period: 'weekly', order_id: `permit-${backend.name}-${++n}` });
    expect(created.status, created.raw).toBe(200);
    const uuid = created.body.result.uuid as string;
    const s = await pay(`${uuid}/subscribe`, 'POST', { currency: 'USDC', network: 'ETH' });
    expect(s.statusCode, s.body).toBe(200);
    await g.payToken(s.json().result.invoice.address, '10', 'USDC');
    await g.mineAndTick(CONFIRMATIONS);
    await g.tick();
    expect((await rec(uuid)).status).toBe('active');
    return uuid;
  };

  it('the payer signs a permit (no transaction), the collector submits it, the allowance is recorded and a renewal is pulled', async () => {
    const uuid = await activeOne();
    const t = (await pay(`${uuid}/allowance`)).json().result;
    // Detected on chain: DOMAIN_SEPARATOR and nonces answer; no eip712Domain(), so version "1".
    expect(t.permit).toEqual({ name: 'Test USDC', version: '1', chainId: CHAIN_ID, verifyingContract: getAddress(g.usdc.address) });

    const wallet = anvilWallet(g.anvil);
    const payerNonce = await g.anvil.pub.getTransactionCount({ address: payer() });
    const payerEth = await g.anvil.pub.getBalance({ address: payer() });
    const plan = await planApproval(wallet, t.chain, t.collector, t.cap, true);
    expect(plan).toMatchObject({ current: 0n, total: parseUnits(t.cap, 6), reset: false });
    const permit = await permitWithWallet(wallet, t.chain, t.permit, t.collector, plan, g.clock.now);
    expect(wallet.asked).toContain('eth_signTypedData_v4');
    expect(permit.value).toBe(t.cap);
    const signature = await signWithWallet(wallet, plan.address, allowanceMessage({ ...t, uuid }));

    const sent = await pay(`${uuid}/allowance`, 'POST', { address: plan.address, signature, permit });
    expect(sent.statusCode, sent.body).toBe(200);
    const permitTx = sent.json().result.permit_tx as string;
    expect(permitTx).toMatch(/^0x[0-9a-f]{64}$/);
    expect(sent.json().result.recorded).toBeNull(); // not mined yet: nothing recorded
    // Posted again (a retry): the same transaction, not a second one.
    const again = await pay(`${uuid}/allowance`, 'POST', { address: plan.address, signature, permit });
    expect(again.json().result.permit_tx).toBe(permitTx);
    expect(await permitRows()).toHaveLength(1);
    expect((await permitRows())[0]!.from_address?.toLowerCase()).toBe(g.driver().hotWallet.toLowerCase());

    await mined(wallet, permitTx, { pollMs: 10 });
    expect(await onChain()).toBe(parseUnits(t.cap, 6));
    const recorded = await pay(`${uuid}/allowance`, 'POST', { address: plan.address, signature, tx_hash: permitTx });
    expect(recorded.statusCode, recorded.body).toBe(200);
    expect(recorded.json().result.recorded).toEqual({ address: payer().toLowerCase(), status: 'active', cap: t.cap });
    // The payer sent nothing and paid no gas.
    expect(await g.anvil.pub.getTransactionCount({ address: payer() })).toBe(payerNonce);
    expect(await g.anvil.pub.getBalance({ address: payer() })).toBe(payerEth);

    // The next period is pulled from the permitted allowance.
    const due = Number((await rec(uuid)).next_due_at);
    const ms = due - g.clock.now + 1000;
    g.clock.advance(ms);
    await g.anvil.rpc('evm_increaseTime', [Math.ceil(ms / 1000)]);
    await g.tick();
    const r = await rec(uuid);
    expect(r.status).toBe('wait_payment');
    await g.mineAndTick(CONFIRMATIONS + 1);
    await g.tick();
    expect((await rec(uuid)).status).toBe('active');
    expect(await onChain()).toBe(parseUnits(t.cap, 6) - parseUnits('10', 6));
    expect((await g.api('/v1/recurrence/cancel', { uuid })).status).toBe(200);
  });

  it('refuses an expired permit, one signed by another key, and one whose value was changed: permit_invalid, nothing written', async () => {
    const uuid = await activeOne();
    const t = (await pay(`${uuid}/allowance`)).json().result;
    const wallet = anvilWallet(g.anvil);
    const plan = await planApproval(wallet, t.chain, t.collector, t.cap, true);
    const signature = await signWithWallet(wallet, plan.address, allowanceMessage({ ...t, uuid }));
    const before = { permits: (await permitRows()).length, allowance: await onChain() };

    const expired = await permitWithWallet(wallet, t.chain, t.permit, t.collector, plan, g.clock.now - 2 * 3600_000);
    const nonce = (await g.anvil.pub.readContract({ address: g.usdc.address, abi: [{ type: 'function', name: 'nonces', stateMutability: 'view', inputs: [{ name: 'o', type: 'address' }], outputs: [{ type: 'uint256' }] }], functionName: 'nonces', args: [payer()] })) as bigint;
    const deadline = Math.floor(g.clock.now / 1000) + 3600;
    const stranger = await g.anvil.wallet(2).signTypedData({
      domain: { ...t.permit, verifyingContract: t.permit.verifyingContract as Hex },
      types: PERMIT_TYPES,
      primaryType: 'Permit',
      message: { owner: payer(), spender: t.collector as Hex, value: plan.total, nonce, deadline: BigInt(deadline) },
    });
    const good = await permitWithWallet(wallet, t.chain, t.permit, t.collector, plan, g.clock.now);
    const cases = [
      { permit: expired, message: /expired/ },
      { permit: { value: t.cap, deadline, signature: stranger }, message: /not signed by/ },
      { permit: { ...good, value: '999999' }, message: /not signed by/ },
    ];
    for (const c of cases) {
      const res = await pay(`${uuid}/allowance`, 'POST', { address: plan.address, signature, permit: c.permit });
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json()).toMatchObject({ state: 1, code: 'permit_invalid' });
      expect(res.json().message).toMatch(c.message);
    }
    const malformed = await pay(`${uuid}/allowance`, 'POST', { address: plan.address, signature, permit: { value: 'x', deadline: -1, signature: '0x12' } });
    expect(malformed.statusCode).toBe(422);
    expect(malformed.json()).toEqual({ state: 1, errors: { 'permit.value': ['validation.numeric'], 'permit.deadline': ['validation.integer'], 'permit.signature': ['validation.regex'] } });
    // A permit for another subscription's message: the allowance signature check comes first.
    const otherSig = await signWithWallet(wallet, plan.address, allowanceMessage({ ...t, uuid: '00000000-0000-4000-8000-000000000000' }));
    const mismatch = await pay(`${uuid}/allowance`, 'POST', { address: plan.address, signature: otherSig, permit: good });
    expect(mismatch.json()).toMatchObject({ code: 'signature_mismatch' });

    // The collector without gas: the payer is told to approve instead, nothing kept.
    await g.anvil.rpc('anvil_setBalance', [g.driver().hotWallet, '0x0']);
    const broke = await pay(`${uuid}/allowance`, 'POST', { address: plan.address, signature, permit: good });
    await g.anvil.rpc('anvil_setBalance', [g.driver().hotWallet, '0x56BC75E2D63100000']);
    expect(broke.statusCode, broke.body).toBe(422);
    expect(broke.json()).toMatchObject({ state: 1, code: 'permit_unavailable' });

    expect(await allowanceRows(uuid)).toEqual([]);
    expect(await permitRows()).toHaveLength(before.permits);
    await g.mineAndTick();
    expect(await onChain()).toBe(before.allowance);
    expect((await g.api('/v1/recurrence/cancel', { uuid })).status).toBe(200);
  });

  it('the collector pays for one permit per nonce, never for a permit the chain already holds, and for at most 3 a day per subscription', async () => {
    const uuid = await activeOne();
    const t = (await pay(`${uuid}/allowance`)).json().result;
    const wallet = anvilWallet(g.anvil);
    const plan = await planApproval(wallet, t.chain, t.collector, t.cap, true);
    const signature = await signWithWallet(wallet, plan.address, allowanceMessage({ ...t, uuid }));
    const base = (await permitRows()).length;
    const start = await onChain();
    const unit = parseUnits(t.cap, 6);
    const post = (permit: unknown) => pay(`${uuid}/allowance`, 'POST', { address: plan.address, signature, permit });

    // Several signatures for the same nonce (other deadlines): one transaction, the same answer.
    const first = await permitWithWallet(wallet, t.chain, t.permit, t.collector, { ...plan, total: start + unit }, g.clock.now);
    const sameNonce = await permitWithWallet(wallet, t.chain, t.permit, t.collector, { ...plan, total: start + unit }, g.clock.now + 60_000);
    const a = await post(first);
    const b = await post(sameNonce);
    expect(a.statusCode, a.body).toBe(200);
    expect(b.statusCode, b.body).toBe(200);
    expect(b.json().result.permit_tx).toBe(a.json().result.permit_tx);
    expect(await permitRows()).toHaveLength(base + 1);
    await mined(wallet, a.json().result.permit_tx, { pollMs: 10 });

    // Posted again once mined: the chain holds it, so it is recorded without a second transaction.
    const again = await post(first);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().result.recorded).toMatchObject({ status: 'active' });
    expect(await permitRows()).toHaveLength(base + 1);

    // Each mined permit moves the nonce on: two more (larger) ones go through, the fourth of the day does not.
    for (const k of [2n, 3n]) {
      const p = await permitWithWallet(wallet, t.chain, t.permit, t.collector, { ...plan, total: start + k * unit }, g.clock.now);
      const r = await post(p);
      expect(r.statusCode, r.body).toBe(200);
      await mined(wallet, r.json().result.permit_tx, { pollMs: 10 });
    }
    expect(await permitRows()).toHaveLength(base + 3);
    const fourth = await permitWithWallet(wallet, t.chain, t.permit, t.collector, { ...plan, total: start + 4n * unit }, g.clock.now);
    const refused = await post(fourth);
    expect(refused.statusCode, refused.body).toBe(422);
    expect(refused.json()).toMatchObject({ state: 1, code: 'permit_limit' });
    expect(await permitRows()).toHaveLength(base + 3);
    expect(await onChain()).toBe(start + 3n * unit);
    // A day later the subscription may have a permit submitted again.
    g.clock.advance(24 * 3600_000 + 1000);
    const later = await permitWithWallet(wallet, t.chain, t.permit, t.collector, { ...plan, total: start + 4n * unit }, g.clock.now);
    const ok = await post(later);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(await permitRows()).toHaveLength(base + 4);
    await mined(wallet, ok.json().result.permit_tx, { pollMs: 10 });
    expect((await g.api('/v1/recurrence/cancel', { uuid })).status).toBe(200);
  });
});
