// Watch-only receiving on an EVM network, through the whole gateway on anvil: a merchant without
// receiving material is not offered the network; with a cold address, each invoice gets its own
// CREATE2 forwarder address for that cold address (two merchants, two cold addresses, never one
// address); payments to forwarders are credited as any deposit; a change of material applies only
// to invoices created after it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { parseEther, parseUnits } from 'viem';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bytesToHex } from '@noble/hashes/utils.js';
import { backends } from '../helpers/backends.ts';
import { balanceOf } from '../../src/ledger/index.ts';
import { createMerchant, type Merchant } from '../../src/merchants/store.ts';
import { checkCustody, currentCustody, writeCustody } from '../../src/custody/store.ts';
import { evmDeposit } from '../../src/chain/evm/custody.ts';
import { evmDb } from '../../src/chain/evm/schema.ts';
import type { CustodyInput } from '../../src/chain/family.ts';
import type { Ctx } from '../../src/context.ts';
import { GATEWAY_MNEMONIC, startEvmGateway, type EvmGateway } from '../chain/gateway-setup.ts';

const COLD_A = '0x1111111111111111111111111111111111111111';
const COLD_B = '0x2222222222222222222222222222222222222222';
const COLD_A2 = '0x3333333333333333333333333333333333333333';

/** Whether `address` is one of the first deposit addresses of (cold, custody row). */
function depositOf(cold: string, custodyId: string, address: string): boolean {
  const eth = { code: 'ETH' } as never;
  for (let i = 0; i < 200; i++) if (evmDeposit(eth, cold, custodyId, i).address === address) return true;
  return false;
}

async function setMaterial(ctx: Ctx, merchantId: string, network: string, input: CustodyInput, replace = false) {
  const req = { merchantId, network, input, actor: 'test', replace };
  const checked = await checkCustody(ctx, req);
  return ctx.storage.write((trx) => writeCustody(trx, req, checked, ctx.now()));
}

describe.each(await backends())('watch-only receiving on EVM ($name)', (backend) => {
  let g: EvmGateway;
  let secrets: string;
  const relayerKey = generatePrivateKey();
  let b: Merchant;
  let n = 0;
  beforeAll(async () => {
    secrets = mkdtempSync(join(tmpdir(), 'satchel-relayer-'));
    const relayerFile = join(secrets, 'relayer.key');
    writeFileSync(relayerFile, relayerKey, { mode: 0o600 });
    g = await startEvmGateway(backend, { confirmations: 1, network: { custody: 'watch-only', relayer_key_file: relayerFile, flush: { every_seconds: 0 } } });
    await g.anvil.wallet(0).sendTransaction({ to: privateKeyToAccount(relayerKey).address, value: parseEther('1') });
    b = await createMerchant(g.ctx.storage.db, 'Second shop');
  });
  afterAll(async () => {
    await g?.stopAll();
    rmSync(secrets, { recursive: true, force: true });
  });

  const invoice = (body: Record<string, unknown>, merchant?: Merchant) =>
    g.api('/v1/payment', { amount: '0.01', currency: 'ETH', network: 'ETH', order_id: `wo-${++n}`, ...body }, merchant ? { merchant } : {});

  it('does not offer a watch-only network to a merchant without receiving material: Wallet not found', async () => {
    expect(g.ctx.chains.custodyMode('ETH')).toBe('watch-only');
    const r = await invoice({});
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ state: 1, message: 'Wallet not found' });
    const w = await g.api('/v1/wallet', { currency: 'USDT', network: 'ETH', order_id: `wo-w-${++n}` });
    expect(w.status).toBe(422);
    expect(w.body).toMatchObject({ state: 1, message: 'Wallet not found' });
    // Nothing is left half-written.
    expect(await g.ctx.storage.db.selectFrom('invoices').select('id').execute()).toHaveLength(0);
    expect(await g.ctx.storage.db.selectFrom('addresses').select('address').execute()).toHaveLength(0);
  });

  it('pays each merchant into a forwarder of that merchant\'s own cold address, credited as any deposit', async () => {
    const ra = await setMaterial(g.ctx, g.merchant.id, 'ETH', { address: COLD_A });
    const rb = await setMaterial(g.ctx, b.id, 'ETH', { address: COLD_B.toLowerCase() });
    expect(ra!.material).toBe(COLD_A);
    const ia = (await invoice({})).body.result;
    const ib = (await invoice({}, b)).body.result;
    expect(ia.address).toBe(evmDeposit(g.ctx.registry.network('ETH')!, COLD_A, ra!.id, 0).address);
    expect(ib.address).toBe(evmDeposit(g.ctx.registry.network('ETH')!, COLD_B, rb!.id, 0).address);
    expect(ia.address_qr_code).toMatch(/^data:image\/png;base64,/);
    expect(ia.address).not.toBe(ib.address);
    const stored = await g.ctx.storage.db.selectFrom('addresses').select(['address', 'path']).where('owner_id', '=', ia.uuid).executeTakeFirstOrThrow();
    expect(stored.path).toMatch(/^forwarder:0x1111111111111111111111111111111111111111:0x[0-9a-f]{64}$/);

    // A static wallet on the network is a forwarder of the same cold address too.
    const w = await g.api('/v1/wallet', { currency: 'USDT', network: 'ETH', order_id: `wo-w-${++n}` });
    expect(w.status, w.raw).toBe(200);
    expect(depositOf(COLD_A, ra!.id, w.body.result.address)).toBe(true);
    // A token invoice of merchant A gets the next forwarder, not the same one.
    const it2 = (await invoice({ amount: '25', currency: 'USDT' })).body.result;
    expect(it2.address).not.toBe(ia.address);
    expect(depositOf(COLD_A, ra!.id, it2.address)).toBe(true);

    await g.payNative(ia.address, '0.01');
    await g.payNative(ib.address, '0.01');
    await g.payToken(it2.address, '25');
    await g.mineAndTick();
    const info = async (uuid: string, m?: Merchant) => (await g.api('/v1/payment/info', { uuid }, m ? { merchant: m } : {})).body.result;
    expect(await info(ia.uuid)).toMatchObject({ payment_status: 'paid', payment_amount: '0.01' });
    expect(await info(ib.uuid, b)).toMatchObject({ payment_status: 'paid', payment_amount: '0.01' });
    expect(await info(it2.uuid)).toMatchObject({ payment_status: 'paid', payment_amount: '25.00' });
    expect(await balanceOf(g.ctx.storage.db, g.merchant.id, 'business', 'USDT')).not.toBe('0');
  });

  it('flushes each merchant\'s funds to that merchant\'s cold address only, in one relayer transaction per forwarder', async () => {
    await g.driver().flush();
    // The factory is deployed first (once), then the forwarders flushed once that is final.
    for (let i = 0; i < 4 && (await g.anvil.pub.getBalance({ address: COLD_A })) === 0n; i++) {
      await g.mineAndTick();
      await g.driver().flush();
    }
    await g.mineAndTick(2);
    expect(await g.anvil.pub.getBalance({ address: COLD_A })).toBe(parseEther('0.01'));
    expect(await g.anvil.pub.getBalance({ address: COLD_B })).toBe(parseEther('0.01'));
    expect(await g.usdt.balanceOf(COLD_A)).toBe(parseUnits('25', 6));
    expect(await g.usdt.balanceOf(COLD_B)).toBe(0n);
    const flushes = await evmDb(g.ctx.storage.db).selectFrom('evm_movements').selectAll().where('kind', '=', 'flush').execute();
    expect(flushes.length).toBeGreaterThanOrEqual(3);
    // No gas top-up was ever sent to a deposit address.
    expect(await evmDb(g.ctx.storage.db).selectFrom('evm_movements').select('kind').where('kind', '<>', 'flush').execute()).toEqual([]);
  });

  it('no deposit address derives from the gateway\'s own seed on the standard paths', async () => {
    const rows = await g.ctx.storage.db.selectFrom('addresses').select('address').execute();
    const deposits = new Set(rows.map((r) => r.address.toLowerCase()));
    const root = HDKey.fromMasterSeed(mnemonicToSeedSync(GATEWAY_MNEMONIC));
    for (const account of [0, 1]) {
      for (let i = 0; i < 50; i++) {
        const k = root.derive(`m/44'/60'/${account}'/0/${i}`);
        const a = privateKeyToAccount(`0x${bytesToHex(k.privateKey!)}`).address.toLowerCase();
        expect(deposits.has(a)).toBe(false);
      }
    }
  });

  it('a change of material applies to invoices created after it; the earlier ones keep their address', async () => {
    const before = (await invoice({})).body.result;
    const old = (await currentCustody(g.ctx.storage.db, g.merchant.id, 'ETH'))!;
    await expect(setMaterial(g.ctx, g.merchant.id, 'ETH', { address: COLD_A2 })).rejects.toThrow(/confirm to replace/);
    const replaced = await setMaterial(g.ctx, g.merchant.id, 'ETH', { address: COLD_A2 }, true);
    const after = (await invoice({})).body.result;
    expect(depositOf(COLD_A2, replaced!.id, after.address)).toBe(true);
    // Addresses drawn ahead from the replaced material are gone from the pool.
    const left = await g.ctx.storage.db.selectFrom('address_pool').select('source').where('source', 'like', 'custody:%').execute();
    expect(left.some((r) => r.source === `custody:${old.id}`)).toBe(false);
    const again = (await g.api('/v1/payment/info', { uuid: before.uuid })).body.result;
    expect(again.address).toBe(before.address);
    expect((await currentCustody(g.ctx.storage.db, g.merchant.id, 'ETH'))!.material).toBe(COLD_A2);
    // Setting the same material again changes nothing.
    expect(await setMaterial(g.ctx, g.merchant.id, 'ETH', { address: COLD_A2 }, true)).toBeNull();
  });

  it('draws addresses ahead per material, each with its QR code, and never hands one out twice', async () => {
    const { refillMaterialPool } = await import('../../src/chain/allocate.ts');
    const cur = (await currentCustody(g.ctx.storage.db, b.id, 'ETH'))!;
    await refillMaterialPool(g.ctx, g.ctx.registry.network('ETH')!, cur);
    const pooled = await g.ctx.storage.db.selectFrom('address_pool').selectAll().where('source', '=', `custody:${cur.id}`).orderBy('idx').execute();
    expect(pooled.length).toBeGreaterThanOrEqual(60);
    const made = await Promise.all(Array.from({ length: 20 }, () => invoice({}, b)));
    const addrs = made.map((r) => r.body.result.address as string);
    expect(new Set(addrs).size).toBe(20);
    for (const a of addrs) expect(depositOf(COLD_B, cur.id, a)).toBe(true);
    // Taken from what was drawn ahead, with the QR code drawn then.
    const byAddress = new Map(pooled.map((p) => [p.address, p.qr]));
    for (const r of made) expect(r.body.result.address_qr_code).toBe(byAddress.get(r.body.result.address));
    const gone = await g.ctx.storage.db.selectFrom('address_pool').select('address').where('address', 'in', addrs).execute();
    expect(gone).toEqual([]);
  });

  it('counts exactly the addresses handed out while a refill runs, and requests racing a refill leave no gap', async () => {
    const { refillMaterialPool } = await import('../../src/chain/allocate.ts');
    const { derivedCounts } = await import('../../src/custody/change.ts');
    const c = await createMerchant(g.ctx.storage.db, 'Racing shop');
    await setMaterial(g.ctx, c.id, 'ETH', { address: COLD_A });
    const cur = (await currentCustody(g.ctx.storage.db, c.id, 'ETH'))!;
    const eth = g.ctx.registry.network('ETH')!;
    let running = true;
    const refill = refillMaterialPool(g.ctx, eth, cur).finally(() => (running = false));
    const made = Promise.all(Array.from({ length: 5 }, () => invoice({}, c)));
    const seen: number[] = [];
    while (running) {
      seen.push((await derivedCounts(g.ctx, [cur])).get(cur.id) ?? 0);
      await new Promise((r) => setTimeout(r, 2));
    }
    const addrs = (await made).map((r) => r.body.result.address as string);
    // Only ever between nothing and the five handed out: never an index a refill holds in flight.
    expect(seen.length).toBeGreaterThan(0);
    expect(Math.max(...seen)).toBeLessThanOrEqual(5);
    expect((await derivedCounts(g.ctx, [cur])).get(cur.id)).toBe(5);
    // The five are the material's first five deposit addresses: no index skipped.
    const first = new Set(Array.from({ length: 5 }, (_, i) => evmDeposit(eth, COLD_A, cur.id, i).address));
    expect(new Set(addrs)).toEqual(first);
    await refill;
  });

  it('refuses a cold address that is one of the gateway\'s deposit addresses, or malformed, and stores nothing', async () => {
    const dep = (await g.ctx.storage.db.selectFrom('addresses').select('address').executeTakeFirstOrThrow()).address;
    await expect(setMaterial(g.ctx, b.id, 'ETH', { address: dep }, true)).rejects.toThrow(/deposit address of this gateway/);
    await expect(setMaterial(g.ctx, b.id, 'ETH', { address: '0x0000000000000000000000000000000000000000' }, true)).rejects.toThrow(/zero address/);
    await expect(setMaterial(g.ctx, b.id, 'ETH', { address: '0x52908400098527886E0F7030069857D2E4169EE7'.replace('E7', 'e7') }, true)).rejects.toThrow(/checksum/);
    const secret = '4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318';
    await expect(setMaterial(g.ctx, b.id, 'ETH', { address: secret }, true)).rejects.toThrow(/private key/);
    const rows = await g.ctx.storage.db.selectFrom('merchant_custody').selectAll().where('merchant_id', '=', b.id).execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(secret);
  });
});
