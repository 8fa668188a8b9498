// `satchel merchant custody set --network XMR --address 4... --view-key <hex>`, run as an operator
// runs it, on both databases. The merchant's wallet is made the Monero way here (a random spend key
// b, the view key Hs(b); test/chain/monero/subaddress.test.ts checks that derivation against
// monero-wallet-rpc). XMR runs the simulated driver here (the `monero` driver's node tests set it up
// for real), so the set is stored with the hot-custody warning and no daemon to ask a height of.
// Every refusal exits 2, names the problem, prints no secret back and stores nothing.
import { randomBytes } from 'node:crypto';
import { bytesToHex } from '@noble/hashes/utils.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../helpers/backends.ts';
import { STATIC_RATES, startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { createMerchant } from '../../src/merchants/store.ts';
import { encodeMoneroAddress, parseMoneroAddress, type MoneroNetwork } from '../../src/chain/monero/address.ts';
import { L, leBytesToBigInt, publicKeyOf, scalarToBytes, viewKeyFromSpendKey } from '../../src/chain/monero/keys.ts';
import { moneroSubaddress } from '../../src/chain/monero/subaddress.ts';
import { everythingStored } from '../custody/setup.ts';
import { satchel } from './in-process.ts';

function wallet(network: MoneroNetwork = 'mainnet') {
  const spend = scalarToBytes(leBytesToBigInt(randomBytes(32)) % L);
  const view = viewKeyFromSpendKey(spend);
  const address = encodeMoneroAddress(network, 'standard', publicKeyOf(leBytesToBigInt(spend)), publicKeyOf(leBytesToBigInt(view)));
  return { spendKey: bytesToHex(spend), viewKey: bytesToHex(view), address };
}

const SEED_25 = 'sequence atlas unveil summon pebbles tuesday beer rudely snake rockets different fuselage woven tagged bested dented vegan hover rapid fawns obvious muppet randomly seasons randomly';

describe.each(await backends())('satchel merchant custody on XMR ($name)', (backend) => {
  let gw: TestGateway;
  const saved = { rates: process.env.SATCHEL_RATES };
  const run = (...args: string[]) => satchel(gw, 'merchant', 'custody', ...args);
  const stored = async (merchantId: string) => gw.ctx.storage.db.selectFrom('merchant_custody').select(['network', 'kind', 'material', 'summary']).where('merchant_id', '=', merchantId).execute();

  beforeAll(async () => {
    gw = await startTestGateway(backend, { env: { SATCHEL_RATES: STATIC_RATES } });
    process.env.SATCHEL_RATES = JSON.stringify({ sources: { static: { enabled: true } } });
  });
  afterAll(async () => {
    if (saved.rates === undefined) delete process.env.SATCHEL_RATES;
    else process.env.SATCHEL_RATES = saved.rates;
    await gw?.close();
  });

  it('stores the primary address and view key, shows only the address, and the same again is unchanged', async () => {
    const w = wallet();
    const m = await createMerchant(gw.ctx.storage.db, 'Monero shop');
    const set = await run('set', '--merchant', m.id, '--network', 'xmr', '--address', w.address, '--view-key', w.viewKey.toUpperCase());
    expect(set.code, set.err).toBe(0);
    expect(set.out).toContain(`XMR of ${m.id} now receives into ${w.address} (view key).`);
    expect(set.out).not.toContain(w.viewKey);
    // The simulated driver receives with the gateway's seed: the material waits for watch-only.
    expect(set.err).toMatch(/XMR runs in hot custody/);
    const rows = await stored(m.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.summary).toBe(`${w.address} (view key)`);
    // No daemon was configured to ask a start height of: null, taken at the first scan.
    expect(JSON.parse(rows[0]!.material)).toEqual({ address: w.address, viewKey: w.viewKey, startHeight: null });

    const again = await run('set', '--merchant', m.id, '--network', 'XMR', '--address', w.address, '--view-key', w.viewKey);
    expect(again.code).toBe(0);
    expect(again.out).toContain('unchanged');
    expect(await stored(m.id)).toEqual(rows);

    // Its deposit addresses are the wallet's subaddresses (0, 1), (0, 2), ...
    const watchOnly = gw.ctx.chains.family('XMR')!.watchOnly!;
    const network = gw.ctx.registry.network('XMR')!;
    const custodyId = (await gw.ctx.storage.db.selectFrom('merchant_custody').select('id').where('merchant_id', '=', m.id).executeTakeFirstOrThrow()).id;
    for (const i of [0, 1, 199]) {
      expect(watchOnly.deposit(network, rows[0]!.material, custodyId, i)).toEqual({ address: moneroSubaddress(w.address, w.viewKey, 0, i + 1), path: `watch:${custodyId}/0/${i + 1}` });
    }
    expect(parseMoneroAddress(watchOnly.deposit(network, rows[0]!.material, custodyId, 0).address).kind).toBe('subaddress');
  });

  it('refuses a subaddress, an integrated address, another network type, a wrong or missing key, a spend key and seeds: exit 2, nothing stored or printed back', async () => {
    const w = wallet();
    const other = wallet();
    const stagenet = wallet('stagenet');
    const sub = moneroSubaddress(w.address, w.viewKey, 0, 3);
    const pub = parseMoneroAddress(w.address);
    const integrated = encodeMoneroAddress('mainnet', 'integrated', pub.publicSpend, pub.publicView, '0123456789abcdef');
    const m = await createMerchant(gw.ctx.storage.db, 'Careful Monero shop');
    const cases: Array<[string[], RegExp, string | null]> = [
      [['--address', sub, '--view-key', w.viewKey], /This is a subaddress; give your wallet's primary address/, null],
      [['--address', integrated, '--view-key', w.viewKey], /integrated address .*give your wallet's primary address/, null],
      [['--address', stagenet.address, '--view-key', stagenet.viewKey], /Monero stagenet address; XMR runs on mainnet/, stagenet.viewKey],
      [['--address', w.address, '--view-key', other.viewKey], /does not belong to this address/, other.viewKey],
      [['--address', w.address, '--view-key', w.spendKey], /SPEND key .*give the view key/, w.spendKey],
      [['--address', w.address, '--view-key', SEED_25], /25-word mnemonic seed.*not stored/, SEED_25],
      [['--address', w.address, '--view-key', 'sequence atlas unveil summon pebbles tuesday beer rudely snake rockets different fuselage woven'], /13-word mnemonic seed/, 'sequence'],
      [['--address', w.address, '--view-key', w.viewKey.slice(0, 60)], /not a private view key/, w.viewKey.slice(0, 60)],
      [['--address', w.address], /private view key is required/, null],
      [['--address', SEED_25, '--view-key', w.viewKey], /mnemonic seed, not an address/, SEED_25],
      [['--address', w.viewKey, '--view-key', w.viewKey], /private key, not an address/, w.viewKey],
      [['--address', w.address.slice(0, -1) + (w.address.endsWith('A') ? 'B' : 'A'), '--view-key', w.viewKey], /wrong checksum/, w.viewKey],
      [['--view-key', w.viewKey], /--view-key goes with --address/, w.viewKey],
      [['--xpub', 'xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8'], /primary address and its private view key, not an extended key/, null],
    ];
    for (const [args, message, secret] of cases) {
      const r = await run('set', '--merchant', m.id, '--network', 'XMR', ...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err, args.join(' ')).toMatch(message);
      expect(r.out).toBe('');
      if (secret) expect(r.err).not.toContain(secret.split(' ')[0]!.slice(0, 16));
    }
    expect(await stored(m.id)).toEqual([]);
    const everything = await everythingStored(gw);
    for (const secret of [w.spendKey, other.viewKey, stagenet.viewKey, 'sequence atlas']) expect(everything).not.toContain(secret);
  });
});
