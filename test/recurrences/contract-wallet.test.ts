// Automatic renewals granted from a smart-contract wallet (EIP-1271), on anvil: the wallet (a
// contract) approves the collector, and the allowance message's signature is the wallet's: it does
// not recover to the wallet's address (contracts have no key), so the gateway asks the contract's
// isValidSignature. An owner's signature is accepted and the renewal is pulled from the contract;
// another key's is refused (signature_mismatch), nothing written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFunctionData, erc20Abi, parseUnits, type Hex } from 'viem';
import { allowanceMessage } from '../../src/contracts/allowance-message.ts';
import { backends } from '../helpers/backends.ts';
import { PAYER, startChain, startEvmGateway, type EvmGateway } from '../chain/gateway-setup.ts';
import { compileTokens } from '../chain/evm/anvil.ts';

const CONFIRMATIONS = 2;
let n = 0;

describe.each(await backends())('automatic renewals from a contract wallet on $name', (backend) => {
  let g: EvmGateway;
  let wallet: Hex;
  beforeAll(async () => {
    g = await startEvmGateway(backend, { confirmations: CONFIRMATIONS, chain: await startChain() });
    await g.anvil.rpc('anvil_setBalance', [g.driver().hotWallet, '0x56BC75E2D63100000']);
    const { abi, bytecode } = compileTokens().TestContractWallet;
    const hash = await g.anvil.wallet(PAYER).deployContract({ abi, bytecode, args: [g.anvil.account(PAYER).address] });
    await g.anvil.mine();
    wallet = (await g.anvil.pub.getTransactionReceipt({ hash })).contractAddress!;
    await g.usdt.transfer(PAYER, wallet, parseUnits('1000', 6));
    await g.anvil.mine();
  }, 60_000);
  afterAll(async () => {
    await g?.stopAll();
    await g?.anvil.stop();
  });

  const db = () => g.ctx.storage.db;
  const pay = (path: string, method: 'GET' | 'POST' = 'GET', payload?: unknown) =>
    g.app.inject({ method, url: `/api/pay/recurrence/${path}`, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
  const rec = (id: string) => db().selectFrom('recurrences').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it("records the allowance the contract wallet's owner signed for, refuses another key's, and pulls from the contract", async () => {
    const created = await g.api('/v1/recurrence/create', { amount: '10', currency: 'USDT', name: 'Pro plan', period: 'weekly', order_id: `cw-${backend.name}-${++n}` });
    const uuid = created.body.result.uuid as string;
    const s = await pay(`${uuid}/subscribe`, 'POST', { currency: 'USDT', network: 'ETH' });
    await g.payToken(s.json().result.invoice.address, '10');
    await g.mineAndTick(CONFIRMATIONS);
    await g.tick();
    expect((await rec(uuid)).status).toBe('active');
    const t = (await pay(`${uuid}/allowance`)).json().result;

    // The contract wallet approves the collector (its owner makes it call the token).
    const { abi } = compileTokens().TestContractWallet;
    await g.anvil.wallet(PAYER).writeContract({
      address: wallet, abi, functionName: 'execute',
      args: [g.usdt.address, encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [t.collector, parseUnits(t.cap, 6)] })],
    });
    await g.mineAndTick();
    const message = allowanceMessage({ ...t, uuid });

    const stranger = await g.anvil.wallet(2).signMessage({ message });
    const refused = await pay(`${uuid}/allowance`, 'POST', { address: wallet, signature: stranger });
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toMatchObject({ state: 1, code: 'signature_mismatch' });
    expect(await db().selectFrom('recurrence_allowances').selectAll().where('recurrence_id', '=', uuid).execute()).toEqual([]);

    const signature = await g.anvil.wallet(PAYER).signMessage({ message });
    const ok = await pay(`${uuid}/allowance`, 'POST', { address: wallet, signature });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().result.recorded).toEqual({ address: wallet.toLowerCase(), status: 'active', cap: t.cap });

    const before = await g.usdt.balanceOf(wallet);
    const ms = Number((await rec(uuid)).next_due_at) - g.clock.now + 1000;
    g.clock.advance(ms);
    await g.anvil.rpc('evm_increaseTime', [Math.ceil(ms / 1000)]);
    await g.tick();
    await g.mineAndTick(CONFIRMATIONS + 1);
    await g.tick();
    expect((await rec(uuid)).status).toBe('active');
    expect(await g.usdt.balanceOf(wallet)).toBe(before - parseUnits('10', 6));
  });
});
