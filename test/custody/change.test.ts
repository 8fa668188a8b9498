// Changing a merchant's receiving material (src/custody/change.ts), as the CLI and the dashboard
// make it: the first set and a replacement each leave the material, an audit row and a signed
// custody_changed webhook to the merchant's default callback URL; the same material again changes
// nothing; replacing needs confirming; invoices made before keep their addresses and later ones
// derive from the new material; every kind of bad input is refused by name with nothing stored,
// and a private key is never stored, repeated or logged.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { createMerchant } from '../../src/merchants/store.ts';
import { changeCustody, type ChangeRequest } from '../../src/custody/change.ts';
import { CLI_ACTOR } from '../../src/custody/audit.ts';
import { CustodyError } from '../../src/custody/store.ts';
import { evmDeposit } from '../../src/chain/evm/custody.ts';
import { parseForwarderPath } from '../../src/chain/watch-paths.ts';
import {
  COLD_A,
  COLD_A_BAD_CHECKSUM,
  COLD_B,
  DEPTH2_TPUB,
  MAINNET_XPUB,
  TPRV,
  TPUB,
  ZERO,
  everythingStored,
  signedWith,
  startCustodyGateway,
  type CustodyGateway,
} from './setup.ts';

describe.each(await backends())('changing receiving material on $name', (backend) => {
  let gw: CustodyGateway;
  const CALLBACK = 'https://shop.example.test/custody-hook';

  beforeAll(async () => {
    gw = await startCustodyGateway(backend);
    await gw.ctx.storage.db.updateTable('merchants').set({ default_url_callback: CALLBACK }).where('id', '=', gw.merchant.id).execute();
  });
  afterAll(async () => gw?.close());
  afterEach(() => vi.restoreAllMocks());

  const req = (over: Partial<ChangeRequest>): ChangeRequest => ({ merchantId: gw.merchant.id, network: 'ETH', input: {}, actor: 'cli', by: CLI_ACTOR, replace: false, ...over });
  const counts = async () => {
    const db = gw.ctx.storage.db;
    const n = async (t: 'merchant_custody' | 'dashboard_audit' | 'webhooks') => Number((await db.selectFrom(t).select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow()).n);
    return { custody: await n('merchant_custody'), audit: await n('dashboard_audit'), webhooks: await n('webhooks') };
  };
  const pay = async (orderId: string) => {
    const r = await gw.api('/v1/payment', { amount: '0.1', currency: 'ETH', network: 'ETH', order_id: orderId });
    return r;
  };

  it('a merchant without material is not offered ETH; the first set writes the material, an audit row and a signed webhook', async () => {
    expect((await pay('before-any')).body).toMatchObject({ state: 1, message: 'Wallet not found' });
    const before = await counts();
    const r = await changeCustody(gw.ctx, req({ input: { address: COLD_A.toLowerCase() } }));
    expect(r).toMatchObject({ outcome: 'set', network: 'ETH', old: null, warning: null, webhookUrl: CALLBACK });
    expect(r.current).toMatchObject({ kind: 'address', material: COLD_A, summary: COLD_A, actor: 'cli', replaced_at: null });
    expect(await counts()).toEqual({ custody: before.custody + 1, audit: before.audit + 1, webhooks: before.webhooks + 1 });

    const audit = await gw.ctx.storage.db.selectFrom('dashboard_audit').selectAll().where('action', '=', 'custody_change').execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ merchant_id: gw.merchant.id, email: 'cli', user_id: null, target: 'ETH' });
    expect(JSON.parse(audit[0]!.detail!)).toEqual({ network: 'ETH', kind: 'address', from: null, to: COLD_A });

    const hook = await gw.ctx.storage.db.selectFrom('webhooks').selectAll().where('kind', '=', 'custody').executeTakeFirstOrThrow();
    expect(hook).toMatchObject({ merchant_id: gw.merchant.id, url: CALLBACK, ref_id: r.current.id, status: 'pending' });
    const body = JSON.parse(hook.body);
    expect(Object.keys(body)).toEqual(['type', 'merchant', 'network', 'old', 'new', 'changed_at', 'sign']);
    expect(body).toMatchObject({ type: 'custody_changed', merchant: gw.merchant.id, network: 'ETH', old: null, new: COLD_A, changed_at: '2026-01-15T15:00:00+03:00' });
    expect(signedWith(hook.body, gw.merchant.payment_key)).toBe(true);
    expect(signedWith(hook.body, gw.merchant.payout_key)).toBe(false);
  });

  it('the same material again is unchanged: nothing written, nothing sent', async () => {
    const before = await counts();
    const r = await changeCustody(gw.ctx, req({ input: { address: COLD_A }, replace: true }));
    expect(r).toMatchObject({ outcome: 'unchanged', webhookUrl: null });
    expect(r.current.material).toBe(COLD_A);
    expect(await counts()).toEqual(before);
  });

  it('replacing needs confirming; old invoices keep their addresses, new ones derive from the new material', async () => {
    const first = await pay('old-1');
    expect(first.body.state).toBe(0);
    const oldCustody = (await gw.ctx.storage.db.selectFrom('merchant_custody').selectAll().where('replaced_at', 'is', null).executeTakeFirstOrThrow());
    const eth = gw.ctx.registry.network('ETH')!;
    // Deposit 0 of the first material: the forwarder that can only pay COLD_A.
    expect(first.body.result.address).toBe(evmDeposit(eth, COLD_A, oldCustody.id, 0).address);

    const before = await counts();
    const refused = await changeCustody(gw.ctx, req({ input: { address: COLD_B } })).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(CustodyError);
    expect(refused).toMatchObject({ problem: 'confirm_replace', message: expect.stringContaining(`into ${COLD_A}`) });
    expect(await counts()).toEqual(before);

    gw.clock.advance(60_000);
    const r = await changeCustody(gw.ctx, req({ input: { address: COLD_B }, replace: true }));
    expect(r).toMatchObject({ outcome: 'replaced', old: { id: oldCustody.id, summary: COLD_A } });
    expect(await counts()).toEqual({ custody: before.custody + 1, audit: before.audit + 1, webhooks: before.webhooks + 1 });
    const hook = await gw.ctx.storage.db.selectFrom('webhooks').selectAll().where('kind', '=', 'custody').where('ref_id', '=', r.current.id).executeTakeFirstOrThrow();
    expect(JSON.parse(hook.body)).toMatchObject({ type: 'custody_changed', old: COLD_A, new: COLD_B, changed_at: '2026-01-15T15:01:00+03:00' });
    expect(signedWith(hook.body, gw.merchant.payment_key)).toBe(true);
    expect((await gw.ctx.storage.db.selectFrom('merchant_custody').select('replaced_at').where('id', '=', oldCustody.id).executeTakeFirstOrThrow()).replaced_at).not.toBeNull();

    // The old invoice still shows, and its address still forwards to, the old cold address.
    const info = await gw.api('/v1/payment/info', { uuid: first.body.result.uuid });
    expect(info.body.result.address).toBe(first.body.result.address);
    const oldPath = await gw.ctx.storage.db.selectFrom('addresses').select('path').where('address', '=', first.body.result.address).executeTakeFirstOrThrow();
    expect(parseForwarderPath(oldPath.path)?.cold).toBe(COLD_A);

    // A new invoice: deposit 0 of the new material, forwarding to COLD_B.
    const next = await pay('new-1');
    expect(next.body.result.address).toBe(evmDeposit(eth, COLD_B, r.current.id, 0).address);
    expect(next.body.result.address).not.toBe(first.body.result.address);
    const newPath = await gw.ctx.storage.db.selectFrom('addresses').select('path').where('address', '=', next.body.result.address).executeTakeFirstOrThrow();
    expect(parseForwarderPath(newPath.path)?.cold).toBe(COLD_B);
  });

  it('a merchant without a default callback URL gets no webhook; the change is still audited', async () => {
    const other = await createMerchant(gw.ctx.storage.db, 'No hooks shop');
    const before = await counts();
    const r = await changeCustody(gw.ctx, req({ merchantId: other.id, input: { xpub: TPUB }, network: 'LTC' }));
    expect(r).toMatchObject({ outcome: 'set', network: 'LTC', webhookUrl: null });
    expect(r.current.summary).toBe(TPUB);
    expect(await counts()).toEqual({ custody: before.custody + 1, audit: before.audit + 1, webhooks: before.webhooks });
  });

  it('all or nothing: when a part of the change fails to write, the material is not changed either', async () => {
    const merchant = await createMerchant(gw.ctx.storage.db, 'Half-written shop');
    await gw.ctx.storage.db.updateTable('merchants').set({ default_url_callback: CALLBACK }).where('id', '=', merchant.id).execute();
    const before = await counts();
    // An audit row the database refuses (no actor email) fails after the material was written in
    // the same transaction: the material must roll back with it, and no webhook be queued.
    const broken = { userId: null, email: null as unknown as string, ip: null };
    await expect(changeCustody(gw.ctx, req({ merchantId: merchant.id, input: { address: COLD_A }, by: broken }))).rejects.toThrow();
    expect(await counts()).toEqual(before);
    expect(await gw.ctx.storage.db.selectFrom('merchant_custody').select('id').where('merchant_id', '=', merchant.id).execute()).toEqual([]);
  });

  it('material for a network in hot custody is kept, with a warning that the seed receives there meanwhile', async () => {
    const merchant = await createMerchant(gw.ctx.storage.db, 'Hot shop');
    const r = await changeCustody(gw.ctx, req({ merchantId: merchant.id, network: 'DOGE', input: { xpub: TPUB } }));
    // DOGE regtest takes only tpub keys: this one is accepted.
    expect(r).toMatchObject({ outcome: 'set', warning: expect.stringContaining('DOGE runs in hot custody on this gateway') });
  });

  describe('bad input: refused by name, nothing stored', () => {
    const cases: Array<[string, Partial<ChangeRequest>, string, RegExp]> = [
      ['an xpub of the wrong network', { network: 'LTC', input: { xpub: MAINNET_XPUB } }, 'wrong_network', /This xpub key is for Bitcoin mainnet.*, not Litecoin/],
      ['an xpub of the wrong depth', { network: 'LTC', input: { xpub: DEPTH2_TPUB } }, 'wrong_depth', /account-level key \(depth 3.*this one has depth 2/],
      ['a cold address with a bad checksum', { input: { address: COLD_A_BAD_CHECKSUM } }, 'bad_checksum', /bad checksum/],
      ['the zero address', { input: { address: ZERO } }, 'zero_address', /zero address/],
      ['an extended key on an EVM network', { input: { xpub: TPUB } }, 'wrong_form', /takes a cold address/],
      ['an unknown network', { network: 'NOPE', input: { address: COLD_A } }, 'unknown_network', /Unknown network NOPE/],
    ];
    for (const [what, over, problem, message] of cases) {
      it(what, async () => {
        const merchant = await createMerchant(gw.ctx.storage.db, `Bad input ${what}`);
        const before = await counts();
        const e = await changeCustody(gw.ctx, req({ merchantId: merchant.id, ...over })).catch((err: unknown) => err);
        expect(e).toBeInstanceOf(CustodyError);
        expect(e).toMatchObject({ problem, message: expect.stringMatching(message) });
        expect(await counts()).toEqual(before);
      });
    }

    it('a descriptor with a private key: refused, and the secret is nowhere (answer, database, logs)', async () => {
      const logged: string[] = [];
      for (const m of ['log', 'info', 'warn', 'error', 'debug'] as const) vi.spyOn(console, m).mockImplementation((...a: unknown[]) => void logged.push(a.map(String).join(' ')));
      const writes = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: unknown) => (logged.push(String(chunk)), true));
      const before = await counts();
      const e = (await changeCustody(gw.ctx, req({ network: 'LTC', input: { descriptor: `wpkh(${TPRV}/0/*)` } })).catch((err: unknown) => err)) as CustodyError;
      writes.mockRestore();
      expect(e).toBeInstanceOf(CustodyError);
      expect(e.problem).toBe('private_key');
      expect(e.message).toMatch(/PRIVATE key/);
      expect(e.message).not.toContain(TPRV);
      expect(e.message).not.toContain(TPRV.slice(4, 40));
      expect(await counts()).toEqual(before);
      expect(await everythingStored(gw)).not.toContain(TPRV.slice(4, 40));
      expect(logged.join('\n')).not.toContain(TPRV.slice(4, 40));
    });

    it('a cold address equal to one of the gateway\'s deposit addresses', async () => {
      const deposit = (await gw.ctx.storage.db.selectFrom('addresses').select('address').where('network', '=', 'ETH').executeTakeFirstOrThrow()).address;
      const merchant = await createMerchant(gw.ctx.storage.db, 'Loop shop');
      const before = await counts();
      const e = await changeCustody(gw.ctx, req({ merchantId: merchant.id, input: { address: deposit } })).catch((err: unknown) => err);
      expect(e).toMatchObject({ problem: 'deposit_address', message: expect.stringContaining('is a deposit address of this gateway') });
      expect(await counts()).toEqual(before);
    });

    it('a cold address that is a contract: accepted with a warning the merchant sees', async () => {
      const contract = '0x1111111111111111111111111111111111111111';
      await gw.anvil.rpc('anvil_setCode', [contract, '0x6080604052']);
      const merchant = await createMerchant(gw.ctx.storage.db, 'Safe shop');
      const r = await changeCustody(gw.ctx, req({ merchantId: merchant.id, input: { address: contract } }));
      expect(r.outcome).toBe('set');
      expect(r.warning).toMatch(/is a contract on ETH, not a plain account/);
      const audit = await gw.ctx.storage.db.selectFrom('dashboard_audit').select('detail').where('merchant_id', '=', merchant.id).executeTakeFirstOrThrow();
      expect(JSON.parse(audit.detail!).warning).toMatch(/is a contract/);
    });
  });
});
