// Automatic renewals on a real EVM chain (anvil): the payer approves the collector once, and each
// period the worker pulls exactly that period's amount into the renewal invoice's deposit address,
// never early, never twice (also across a crash between the broadcast and its record); a revoked
// allowance falls back to the renewal invoice paid by hand. An allowance is recorded only with the
// approving address's signature over the subscription's terms: anyone's approval of the shared
// collector is public, so an address alone is refused.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { erc20Abi, getAddress, parseUnits, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { allowanceMessage } from '../../src/contracts/allowance-message.ts';
import { backends } from '../helpers/backends.ts';
import { PAYER, startEvmGateway, type EvmGateway } from '../chain/gateway-setup.ts';
import { advanceRecurrences } from '../../src/recurrences/lifecycle.ts';
import { pullRenewals, type PullFallback } from '../../src/recurrences/pulls.ts';
import { ALLOWANCE_PERIODS } from '../../src/recurrences/allowance.ts';

const CONFIRMATIONS = 2;
let n = 0;

describe.each(await backends())('automatic renewals on anvil on $name', (backend) => {
  let g: EvmGateway;
  beforeAll(async () => {
    g = await startEvmGateway(backend, { confirmations: CONFIRMATIONS });
    // The collector (the network's hot wallet) pays the pulls' gas.
    await g.anvil.rpc('anvil_setBalance', [g.driver().hotWallet, '0x56BC75E2D63100000']); // 100 ETH
  }, 60_000);
  afterAll(async () => g?.stopAll());

  const payer = () => g.anvil.account(PAYER).address;
  const db = () => g.ctx.storage.db;
  const units = (amount: string) => parseUnits(amount, 6);
  const pay = (path: string, method: 'GET' | 'POST' = 'GET', payload?: unknown) =>
    g.app.inject({ method, url: `/api/pay/recurrence/${path}`, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
  const rec = (id: string) => db().selectFrom('recurrences').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const inv = (id: string) => db().selectFrom('invoices').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const pulls = (id: string) => db().selectFrom('recurrence_pulls').selectAll().where('recurrence_id', '=', id).orderBy('period').execute();
  const approve = async (spender: string, amount: string): Promise<Hex> => {
    const hash = await g.anvil.wallet(PAYER).writeContract({ address: g.usdt.address, abi: erc20Abi, functionName: 'approve', args: [spender as Hex, units(amount)] });
    await g.mineAndTick();
    return hash;
  };
  /** The payer's wallet signs this subscription's allowance message (or `signer` does) and POSTs it for `address`. */
  const register = async (uuid: string, o: { address?: string; tx_hash?: Hex; signer?: { signMessage(a: { message: string }): Promise<Hex> }; signFor?: string } = {}) => {
    const t = (await pay(`${uuid}/allowance`)).json().result;
    const signature = await (o.signer ?? g.anvil.wallet(PAYER)).signMessage({ message: allowanceMessage({ ...t, uuid: o.signFor ?? uuid }) });
    return pay(`${uuid}/allowance`, 'POST', { address: o.address ?? payer(), signature, ...(o.tx_hash ? { tx_hash: o.tx_hash } : {}) });
  };
  /** Ends a test's recurrence: the payer's allowance for the collector is shared by all of its recurrences. */
  const done = async (uuid: string) => expect((await g.api('/v1/recurrence/cancel', { uuid })).status).toBe(200);
  /** Moves the gateway's clock and the chain's time to just after `at`. */
  const moveTo = async (at: number) => {
    const ms = at - g.clock.now + 1000;
    if (ms <= 0) return;
    g.clock.advance(ms);
    await g.anvil.rpc('evm_increaseTime', [Math.ceil(ms / 1000)]);
  };

  /** A weekly 10 USDT recurrence on ETH, subscribed and its first period paid by hand: `active`. */
  const activeOne = async () => {
    const created = await g.api('/v1/recurrence/create', { amount: '10', currency: 'USDT', name: 'Pro plan', period: 'weekly', order_id: `pull-${backend.name}-${++n}` });
    expect(created.status, created.raw).toBe(200);
    const uuid = created.body.result.uuid as string;
    const s = await pay(`${uuid}/subscribe`, 'POST', { currency: 'USDT', network: 'ETH' });
    expect(s.statusCode, s.body).toBe(200);
    const first = s.json().result.invoice;
    await g.payToken(first.address, '10');
    await g.mineAndTick(CONFIRMATIONS);
    await g.tick();
    expect((await rec(uuid)).status).toBe('active');
    return uuid;
  };

  it('shows the terms, refuses an allowance the chain does not show, records one it does', async () => {
    const uuid = await activeOne();
    const terms = await pay(`${uuid}/allowance`);
    expect(terms.statusCode, terms.body).toBe(200);
    const t = terms.json().result;
    expect(t).toMatchObject({
      network: 'ETH', currency: 'USDT', token: getAddress(g.usdt.address), collector: g.driver().hotWallet, period: 'weekly',
      amount_per_period: '10.00', periods: ALLOWANCE_PERIODS, cap: String(10 * ALLOWANCE_PERIODS), recorded: null,
    });
    expect(t.revoke).toContain(`approve(${g.driver().hotWallet}, 0)`);
    // The chain as the page's wallet code needs it, to switch the wallet before approving.
    expect(t.chain).toMatchObject({ chain_id: expect.any(Number) });
    expect(String(t.chain.contract).toLowerCase()).toBe(g.usdt.address.toLowerCase());
    expect(Date.parse(t.next_pull_at)).toBe(Number((await rec(uuid)).next_due_at));

    // Not approved yet: refused, nothing written.
    const early = await register(uuid);
    expect(early.statusCode).toBe(422);
    expect(early.json()).toMatchObject({ state: 1, code: 'allowance_short' });
    const bad = await pay(`${uuid}/allowance`, 'POST', { address: 'nope', tx_hash: '0x12' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toEqual({ state: 1, errors: { address: ['validation.regex'], tx_hash: ['validation.regex'], signature: ['validation.required'] } });
    const unsigned = await pay(`${uuid}/allowance`, 'POST', { address: payer(), signature: '0x1234' });
    expect(unsigned.statusCode).toBe(422);
    expect(unsigned.json()).toEqual({ state: 1, errors: { signature: ['validation.regex'] } });
    expect(await db().selectFrom('recurrence_allowances').selectAll().where('recurrence_id', '=', uuid).execute()).toEqual([]);

    const tx = await approve(t.collector, t.cap);
    const ok = await register(uuid, { tx_hash: tx });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().result.recorded).toEqual({ address: payer().toLowerCase(), status: 'active', cap: t.cap });
    expect((await pay('00000000-0000-4000-8000-000000000000/allowance')).statusCode).toBe(404);
    await done(uuid);
  });

  it('approve once: three periods pulled exactly, never early, each into its renewal invoice', async () => {
    const uuid = await activeOne();
    const collector = g.driver().hotWallet;
    await approve(collector, String(10 * ALLOWANCE_PERIODS));
    expect((await register(uuid)).statusCode).toBe(200);
    for (let k = 1; k <= 3; k++) {
      const before = await g.usdt.balanceOf(payer());
      // Not due yet: nothing is pulled.
      await g.mineAndTick();
      expect(await g.usdt.balanceOf(payer())).toBe(before);
      expect(await pulls(uuid)).toHaveLength(k - 1);

      await moveTo(Number((await rec(uuid)).next_due_at));
      await g.tick(); // the renewal invoice is made and its pull signed, recorded and broadcast
      const r = await rec(uuid);
      expect(r).toMatchObject({ status: 'wait_payment', period_index: k });
      const renewal = await inv(r.invoice_id!);
      const pull = (await pulls(uuid))[k - 1]!;
      expect(pull).toMatchObject({ period: k, invoice_id: renewal.id, status: 'sent', to_address: renewal.address, amount: '10' });
      await g.mineAndTick(CONFIRMATIONS + 1);
      await g.tick();
      expect(await g.usdt.balanceOf(payer())).toBe(before - units('10'));
      expect(await g.usdt.balanceOf(renewal.address!)).toBe(units('10'));
      expect((await inv(renewal.id)).status).toBe('paid');
      expect((await pulls(uuid))[k - 1]!.status).toBe('confirmed');
      expect((await rec(uuid)).status).toBe('active');
    }
    const allowance = await g.anvil.pub.readContract({ address: g.usdt.address, abi: erc20Abi, functionName: 'allowance', args: [payer(), collector] });
    expect(allowance).toBe(units(String(10 * ALLOWANCE_PERIODS - 30)));
    await done(uuid);
  });

  it('a revoked allowance falls back to the renewal invoice and a reminder', async () => {
    const uuid = await activeOne();
    const collector = g.driver().hotWallet;
    await approve(collector, '100');
    expect((await register(uuid)).statusCode).toBe(200);
    await approve(collector, '0'); // the payer revokes
    const before = await g.usdt.balanceOf(payer());
    await moveTo(Number((await rec(uuid)).next_due_at));
    await advanceRecurrences(g.ctx);
    const told: PullFallback[] = [];
    const warned: unknown[] = [];
    await pullRenewals(g.ctx, { warn: (o) => warned.push(o), error: (o) => { throw new Error(JSON.stringify(o)); } }, { fallback: (_ctx, _trx, f) => void told.push(f) });
    const r = await rec(uuid);
    expect(r).toMatchObject({ status: 'wait_payment', period_index: 1 });
    expect(told).toEqual([{ recurrence: uuid, period: 1, invoice: r.invoice_id, reason: 'allowance' }]);
    expect(warned).toHaveLength(1);
    expect(await pulls(uuid)).toMatchObject([{ period: 1, status: 'skipped', error: 'allowance', txid: null }]);
    expect((await db().selectFrom('recurrence_allowances').select('status').where('recurrence_id', '=', uuid).executeTakeFirstOrThrow()).status).toBe('revoked');
    // Later rounds do not try again; the payer pays the invoice by hand.
    await g.mineAndTick(2);
    expect(await g.usdt.balanceOf(payer())).toBe(before);
    const renewal = await inv(r.invoice_id!);
    await g.payToken(renewal.address!, '10');
    await g.mineAndTick(CONFIRMATIONS);
    await g.tick();
    expect((await rec(uuid)).status).toBe('active');
    expect(await g.usdt.balanceOf(payer())).toBe(before - units('10'));
    await done(uuid);
  });

  it('a crash between the broadcast and its record pulls once: the stored transaction is sent again, never re-signed', async () => {
    const uuid = await activeOne();
    await approve(g.driver().hotWallet, '100');
    expect((await register(uuid)).statusCode).toBe(200);
    const before = await g.usdt.balanceOf(payer());
    await moveTo(Number((await rec(uuid)).next_due_at));
    await advanceRecurrences(g.ctx);
    const errors: unknown[] = [];
    const crash = () => {
      throw new Error('crash after broadcast');
    };
    await pullRenewals(g.ctx, { warn: () => {}, error: (o) => errors.push(o) }, { afterBroadcast: crash });
    expect(errors).toHaveLength(1);
    const [planned] = await pulls(uuid);
    expect(planned).toMatchObject({ period: 1, status: 'planned' });
    expect(planned!.txid).toMatch(/^0x[0-9a-f]{64}$/);

    // The process comes back: the job runs again (also after the pull was mined).
    await g.tick();
    await g.mineAndTick(CONFIRMATIONS + 1);
    await g.tick();
    const [finished] = await pulls(uuid);
    expect(finished).toMatchObject({ status: 'confirmed', txid: planned!.txid });
    const signed = await db().selectFrom('scan_outgoing').select(['txid', 'nonce']).where('request_id', '=', `pull:${planned!.id}`).execute();
    expect(signed).toEqual([{ txid: planned!.txid, nonce: expect.anything() }]);
    expect(await db().selectFrom('scan_outgoing').select('id').where('kind', '=', 'pull').where('to_address', '=', planned!.to_address).execute()).toHaveLength(1);
    expect(await g.usdt.balanceOf(payer())).toBe(before - units('10'));
    const r = await rec(uuid);
    expect(r.status).toBe('active');
    expect((await inv(planned!.invoice_id)).status).toBe('paid');
    await done(uuid);
  });

  it('a crash right after reserving a pull: carried on while still due, dropped once the subscription is cancelled', async () => {
    const [a, b] = [await activeOne(), await activeOne()];
    await approve(g.driver().hotWallet, '100');
    for (const uuid of [a, b]) expect((await register(uuid)).statusCode).toBe(200);
    const before = await g.usdt.balanceOf(payer());
    await moveTo(Math.max(Number((await rec(a)).next_due_at), Number((await rec(b)).next_due_at)));
    await advanceRecurrences(g.ctx);
    // What a crash between reserving the pull and signing it leaves: a planned pull without a transaction.
    const reserved: Record<string, string> = {};
    for (const uuid of [a, b]) {
      const r = await rec(uuid);
      const renewal = await inv(r.invoice_id!);
      reserved[uuid] = `reserved-${uuid}`;
      await db().insertInto('recurrence_pulls').values({
        id: reserved[uuid]!, recurrence_id: uuid, period: r.period_index, invoice_id: renewal.id, network: 'ETH', currency: 'USDT',
        from_address: payer().toLowerCase(), to_address: renewal.address!, amount: renewal.payer_amount!, txid: null, status: 'planned',
        error: null, created_at: g.clock.now, updated_at: g.clock.now,
      }).execute();
    }
    await done(b);
    await g.tick();
    await g.mineAndTick(CONFIRMATIONS + 1);
    await g.tick();
    expect(await pulls(a)).toMatchObject([{ id: reserved[a], status: 'confirmed' }]);
    expect(await pulls(b)).toMatchObject([{ id: reserved[b], status: 'failed', error: 'not_due', txid: null }]);
    expect(await db().selectFrom('scan_outgoing').select('id').where('request_id', '=', `pull:${reserved[b]}`).execute()).toEqual([]);
    expect(await g.usdt.balanceOf(payer())).toBe(before - units('10'));
    expect((await rec(a)).status).toBe('active');
    await done(a);
  });

  it("a stranger cannot record the victim's approval: another key's signature, or the victim's for another subscription, is refused and the victim never pulled", async () => {
    const [victims, mallorys] = [await activeOne(), await activeOne()];
    // The victim approves the shared collector for their own subscription; the approval is public.
    await approve(g.driver().hotWallet, '120');
    expect((await register(victims)).statusCode).toBe(200);
    const stranger = privateKeyToAccount(generatePrivateKey());
    for (const attempt of [register(mallorys, { signer: stranger }), register(mallorys, { signFor: victims })]) {
      const refused = await attempt;
      expect(refused.statusCode, refused.body).toBe(422);
      expect(refused.json()).toMatchObject({ state: 1, code: 'signature_mismatch' });
    }
    expect(await db().selectFrom('recurrence_allowances').selectAll().where('recurrence_id', '=', mallorys).execute()).toEqual([]);
    await done(victims);
    const before = await g.usdt.balanceOf(payer());
    await moveTo(Number((await rec(mallorys)).next_due_at));
    await g.tick();
    await g.mineAndTick(CONFIRMATIONS + 1);
    await g.tick();
    expect((await rec(mallorys)).status).toBe('wait_payment');
    expect(await pulls(mallorys)).toEqual([]);
    expect(await g.usdt.balanceOf(payer())).toBe(before);
    await done(mallorys);
  });

  it('a crash after the pull was signed and stored, before its hash was recorded: sent and confirmed once, never failed, even after a cancel', async () => {
    const uuid = await activeOne();
    await approve(g.driver().hotWallet, '100');
    expect((await register(uuid)).statusCode).toBe(200);
    const before = await g.usdt.balanceOf(payer());
    await moveTo(Number((await rec(uuid)).next_due_at));
    await advanceRecurrences(g.ctx);
    // What the crash leaves: the pull reserved, its transaction signed and stored by the driver, the row without its hash.
    const r = await rec(uuid);
    const renewal = await inv(r.invoice_id!);
    const pull = { id: `stored-${uuid}`, currency: 'USDT', from: payer().toLowerCase(), to: renewal.address!, amount: renewal.payer_amount! };
    await db().insertInto('recurrence_pulls').values({
      id: pull.id, recurrence_id: uuid, period: r.period_index, invoice_id: renewal.id, network: 'ETH', currency: 'USDT',
      from_address: pull.from, to_address: pull.to, amount: pull.amount, txid: null, status: 'planned', error: null, created_at: g.clock.now, updated_at: g.clock.now,
    }).execute();
    const { txid } = await g.driver().allowances.preparePull(pull);
    // Meanwhile the payer cancels on the page.
    expect((await pay(`${uuid}/cancel`, 'POST')).statusCode).toBe(200);
    // The process comes back with the node not answering yet: the signed pull waits, never failed.
    const silent = vi.spyOn(g.ctx.chains, 'offered').mockReturnValue(false);
    try {
      await pullRenewals(g.ctx, { warn: () => {}, error: (o) => { throw new Error(JSON.stringify(o)); } });
    } finally {
      silent.mockRestore();
    }
    expect(await pulls(uuid)).toMatchObject([{ id: pull.id, status: 'planned', txid, error: null }]);
    // The node answers: the stored transaction is the pull, carried on and confirmed, charged once.
    await g.tick();
    await g.mineAndTick(CONFIRMATIONS + 1);
    await g.tick();
    expect(await pulls(uuid)).toMatchObject([{ id: pull.id, status: 'confirmed', txid, error: null }]);
    expect(await db().selectFrom('scan_outgoing').select('txid').where('request_id', '=', `pull:${pull.id}`).execute()).toEqual([{ txid }]);
    expect(await g.usdt.balanceOf(payer())).toBe(before - units('10'));
    expect(await g.usdt.balanceOf(renewal.address!)).toBe(units('10'));
  });
});
