// `satchel merchant custody set|show`, run as an operator runs it on a gateway whose ETH and LTC
// receive watch-only: the first set, a replacement refused without --yes and made with it (audited
// as `cli`, announced by the signed webhook), "unchanged", the show listing, and refusals that
// exit non-zero with the problem named, a private key never printed nor stored.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { createMerchant } from '../../src/merchants/store.ts';
import { satchel } from './in-process.ts';
import { COLD_A, COLD_A_BAD_CHECKSUM, COLD_B, MAINNET_XPUB, TPRV, TPUB, ZERO, everythingStored, signedWith, startCustodyGateway, type CustodyGateway } from '../custody/setup.ts';

describe.each(await backends())('satchel merchant custody on $name', (backend) => {
  let gw: CustodyGateway;
  const saved = { networks: process.env.SATCHEL_NETWORKS, rates: process.env.SATCHEL_RATES };
  const run = (...args: string[]) => satchel(gw, 'merchant', 'custody', ...args);

  beforeAll(async () => {
    gw = await startCustodyGateway(backend);
    // The CLI reads the gateway's environment: its networks too.
    process.env.SATCHEL_NETWORKS = gw.networksEnv;
    process.env.SATCHEL_RATES = JSON.stringify({ sources: { static: { enabled: true } } });
  });
  afterAll(async () => {
    for (const [k, v] of [['SATCHEL_NETWORKS', saved.networks], ['SATCHEL_RATES', saved.rates]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await gw?.close();
  });

  it('shows each real network; a watch-only one without material is not offered to payers', async () => {
    const shown = await run('show', '--merchant', gw.merchant.id);
    expect(shown.code).toBe(0);
    expect(shown.out).toContain(`merchant: ${gw.merchant.id}`);
    expect(shown.out).toMatch(/^ETH {2}watch-only\n {2}no material: not offered to payers/m);
    expect(shown.out).toMatch(/^LTC {2}watch-only\n {2}no material: not offered to payers/m);
    expect(shown.out).toMatch(/^DOGE {2}hot\n {2}receives into addresses of the gateway's own seed/m);
  });

  it('sets, refuses to replace without --yes, replaces with it: audited as cli, webhook signed', async () => {
    await gw.ctx.storage.db.updateTable('merchants').set({ default_url_callback: 'https://shop.example.test/hook' }).where('id', '=', gw.merchant.id).execute();
    const set = await run('set', '--merchant', gw.merchant.id, '--network', 'eth', '--address', COLD_A);
    expect(set).toMatchObject({ code: 0, err: '' });
    expect(set.out).toBe(`ETH of ${gw.merchant.id} now receives into ${COLD_A}.\nThe custody_changed webhook is queued for https://shop.example.test/hook.`);

    const inv = await gw.api('/v1/payment', { amount: '0.1', currency: 'ETH', network: 'ETH', order_id: 'cli-1' });
    expect(inv.body.state).toBe(0);

    const again = await run('set', '--merchant', gw.merchant.id, '--network', 'ETH', '--address', COLD_B);
    expect(again.code).toBe(2);
    expect(again.err).toContain(`already receives on ETH into ${COLD_A}`);
    expect(again.err).toContain('run again with --yes. Nothing was changed.');

    const yes = await run('set', '--merchant', gw.merchant.id, '--network', 'ETH', '--address', COLD_B, '--yes');
    expect(yes.code).toBe(0);
    expect(yes.out).toContain(`now receives into ${COLD_B} (was ${COLD_A}). Invoices made before keep their addresses.`);

    const audit = await gw.ctx.storage.db.selectFrom('dashboard_audit').selectAll().where('action', '=', 'custody_change').where('merchant_id', '=', gw.merchant.id).orderBy('id').execute();
    expect(audit.map((a) => [a.email, JSON.parse(a.detail!).from, JSON.parse(a.detail!).to])).toEqual([
      ['cli', null, COLD_A],
      ['cli', COLD_A, COLD_B],
    ]);
    const hooks = await gw.ctx.storage.db.selectFrom('webhooks').selectAll().where('kind', '=', 'custody').where('merchant_id', '=', gw.merchant.id).orderBy('id').execute();
    expect(hooks.map((h) => [JSON.parse(h.body).old, JSON.parse(h.body).new])).toEqual([
      [null, COLD_A],
      [COLD_A, COLD_B],
    ]);
    for (const h of hooks) expect(signedWith(h.body, gw.merchant.payment_key)).toBe(true);

    const same = await run('set', '--merchant', gw.merchant.id, '--network', 'ETH', '--address', COLD_B.toLowerCase(), '--yes');
    expect(same.code).toBe(0);
    expect(same.out).toContain('unchanged');
    expect((await gw.ctx.storage.db.selectFrom('webhooks').select('id').where('kind', '=', 'custody').where('merchant_id', '=', gw.merchant.id).execute()).length).toBe(2);

    const shown = await run('show', '--merchant', gw.merchant.id);
    expect(shown.out).toMatch(new RegExp(`^ETH {2}watch-only\\n {2}receives into: ${COLD_B}\\n {2}set \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC by cli; 0 deposit addresses derived from it$`, 'm'));
  });

  it('says when no webhook is queued (no default callback URL), and counts the addresses derived', async () => {
    const m = await createMerchant(gw.ctx.storage.db, 'Quiet shop');
    const set = await run('set', '--merchant', m.id, '--network', 'LTC', '--xpub', TPUB);
    expect(set.code).toBe(0);
    expect(set.out).toContain('No custody_changed webhook was queued: the merchant has no default callback URL');
    const eth = await run('set', '--merchant', m.id, '--network', 'ETH', '--address', COLD_A);
    expect(eth.code).toBe(0);
    for (const id of ['q-1', 'q-2']) expect((await gw.api('/v1/payment', { amount: '0.1', currency: 'ETH', network: 'ETH', order_id: id }, { merchant: m })).body.state).toBe(0);
    // Handed out, not counting what the pool drew ahead (a refill may still be storing it).
    let shown = await run('show', '--merchant', m.id);
    for (let i = 0; i < 50 && !/by cli; 2 deposit addresses derived from it$/m.test(shown.out); i++) {
      await new Promise((r) => setTimeout(r, 100));
      shown = await run('show', '--merchant', m.id);
    }
    expect(shown.out).toMatch(/^ETH {2}watch-only\n.*\n {2}set .* by cli; 2 deposit addresses derived from it$/m);
    expect(shown.out).toContain(`receives into: ${TPUB}`);
  });

  it('refuses bad input with the problem named and exit code 2, storing nothing', async () => {
    const m = await createMerchant(gw.ctx.storage.db, 'Careful shop');
    const cases: Array<[string[], RegExp]> = [
      [['--network', 'ETH', '--address', COLD_A_BAD_CHECKSUM], /bad checksum.*Nothing was stored\.$/],
      [['--network', 'ETH', '--address', ZERO], /zero address/],
      [['--network', 'LTC', '--xpub', MAINNET_XPUB], /This xpub key is for Bitcoin mainnet.*, not Litecoin/],
      [['--network', 'ETH'], /exactly one of --xpub, --descriptor or --address/],
      [['--network', 'ETH', '--address', COLD_A, '--xpub', TPUB], /exactly one of --xpub, --descriptor or --address/],
      [['--address', COLD_A], /needs --network N/],
    ];
    for (const [args, message] of cases) {
      const r = await run('set', '--merchant', m.id, ...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err).toMatch(message);
      expect(r.out).toBe('');
    }
    expect(await run('set', '--merchant', 'nope', '--network', 'ETH', '--address', COLD_A)).toMatchObject({ code: 2, err: 'merchant custody set needs --merchant <uuid>' });
    // Several merchants: which one must be said.
    expect(await run('set', '--network', 'ETH', '--address', COLD_A)).toMatchObject({ code: 2, err: expect.stringMatching(/pass --merchant <uuid>/) });
    expect(await run('frob')).toMatchObject({ code: 2 });
    expect(await gw.ctx.storage.db.selectFrom('merchant_custody').select('id').where('merchant_id', '=', m.id).execute()).toEqual([]);
  });

  it('a private key is refused and appears in no output, log or database row', async () => {
    const m = await createMerchant(gw.ctx.storage.db, 'Leaky shop');
    const secret = TPRV.slice(4, 60);
    const logged: string[] = [];
    for (const k of ['log', 'info', 'warn', 'error', 'debug'] as const) vi.spyOn(console, k).mockImplementation((...a: unknown[]) => void logged.push(a.map(String).join(' ')));
    const attempts = [
      ['--network', 'LTC', '--descriptor', `wpkh(${TPRV}/0/*)`],
      ['--network', 'LTC', '--xpub', TPRV],
      // Pasted without its option: a bare argument, refused without being quoted back.
      ['--network', 'LTC', TPRV],
    ];
    for (const args of attempts) {
      const r = await run('set', '--merchant', m.id, ...args);
      expect(r.code).toBe(2);
      expect(r.out + r.err).not.toContain(secret);
    }
    const first = await run('set', '--merchant', m.id, ...attempts[0]!);
    expect(first.err).toMatch(/PRIVATE key.*it was not stored/);
    expect(await everythingStored(gw)).not.toContain(secret);
    vi.restoreAllMocks();
    expect(logged.join('\n')).not.toContain(secret);
  });
});
