// An invoice on a network paid with a comment (TON), through the signed merchant API and the payer
// API, on both databases: the merchant sets their own TON wallet as receiving material; the invoice
// answers that wallet as `address` and the comment as `payment_comment`; the payer's `wallet_uri`
// and `qr_content` are the ton:// link with the comment (and the jetton master for USDT); a payment
// the node reports to the wallet with that comment is credited to that invoice and no other. The
// real driver is not part of this test: a minimal fake driver stands in for the family's node.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Address } from '@ton/core';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import type { Ctx } from '../../src/context.ts';
import { createContext, driverFactories } from '../../src/compose.ts';
import { buildApp } from '../../src/http/app.ts';
import { createMerchant, type Merchant } from '../../src/merchants/store.ts';
import { signBody } from '../../src/webhooks/signature.ts';
import { stopRefills, refillMaterialPool } from '../../src/chain/allocate.ts';
import { changeCustody } from '../../src/custody/change.ts';
import { CLI_ACTOR } from '../../src/custody/audit.ts';
import { createSink } from '../../src/chain/ingest.ts';
import type { ChainDriver, ChainSink, DriverDeps, IncomingTransfer, WatchedAddress } from '../../src/chain/contract.ts';
import { parseDepositKey, parseReferencePath } from '../../src/chain/watch-paths.ts';
import { qrDataUrl } from '../../src/qr/png.ts';
import { backends } from '../helpers/backends.ts';
import { STATIC_RATES, TEST_MNEMONIC } from '../helpers/gateway.ts';

const WALLET = new Address(0, Buffer.from('5a'.repeat(32), 'hex'));
const FRIENDLY = WALLET.toString({ bounceable: false, testOnly: false });
const USDT_MASTER = 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs';
const COMMENT = /^[1-9A-HJ-NP-Za-km-z]{10}$/;

/** Stands in for the TON node: reports what the test queues, to the address it is told. */
class FakeTonDriver implements ChainDriver {
  readonly kind = 'ton';
  readonly watchesAddresses = true;
  readonly watched = new Map<string, string>();
  readonly queue: IncomingTransfer[] = [];
  constructor(readonly network: DriverDeps['network']) {}
  watch(addresses: readonly WatchedAddress[]): void {
    for (const a of addresses) this.watched.set(a.address, a.path);
  }
  async poll(sink: ChainSink): Promise<void> {
    for (const t of this.queue.splice(0)) await sink.transfer(t);
  }
  async canCover() {
    return { covered: false as const, currency: 'TON', message: 'no payouts here' };
  }
  async send(): Promise<{ txid: string }> {
    throw new Error('no payouts here');
  }
  async status() {
    return { chain: 'mainnet', head: 100, headTime: null };
  }
  async close(): Promise<void> {}
}

describe.each(await backends())('payment comments through the gateway on $name', (backend) => {
  let ctx: Ctx;
  let app: FastifyInstance;
  let merchant: Merchant;
  let driver: FakeTonDriver | null = null;
  let close: () => Promise<void>;

  const api = async (path: string, body: unknown) => {
    const raw = JSON.stringify(body);
    const res = await app.inject({ method: 'POST', url: path, headers: { 'content-type': 'application/json', merchant: merchant.id, sign: signBody(raw, merchant.payment_key) }, payload: raw });
    return { status: res.statusCode, body: JSON.parse(res.body) };
  };
  const payer = async (path: string) => JSON.parse((await app.inject({ method: 'GET', url: `/api/pay/${path}` })).body).result;

  beforeAll(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'satchel-comment-'));
    const db = await backend.create();
    const config = loadConfig({
      SATCHEL_DATA_DIR: dataDir,
      SATCHEL_MNEMONIC: TEST_MNEMONIC,
      SATCHEL_PUBLIC_URL: 'https://pay.example.test',
      SATCHEL_RATES: STATIC_RATES,
      SATCHEL_NETWORKS: JSON.stringify({ TON: { driver: 'ton', confirmations: 1 } }),
      LOG_LEVEL: 'silent',
      ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}),
    });
    ctx = await createContext(config, {
      drivers: { ...driverFactories, ton: (deps) => (driver = new FakeTonDriver(deps.network)) },
    });
    app = await buildApp(ctx, { logger: false });
    await app.ready();
    merchant = await createMerchant(ctx.storage.db, 'TON shop');
    close = async () => {
      await app.close();
      await stopRefills(ctx.storage);
      await ctx.storage.close();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    };
  });
  afterAll(async () => close?.());

  it('runs TON watch-only on the family\'s driver, and takes the merchant\'s wallet in any form', async () => {
    expect(ctx.chains.custodyMode('TON')).toBe('watch-only');
    expect(ctx.chains.isSimulated('TON')).toBe(false);
    const r = await changeCustody(ctx, { merchantId: merchant.id, network: 'TON', input: { address: WALLET.toString({ bounceable: true }) }, actor: 'cli', by: CLI_ACTOR, replace: false });
    expect(r.current).toMatchObject({ kind: 'address', material: WALLET.toRawString(), summary: FRIENDLY });
  });

  it('answers a TON invoice with the merchant\'s wallet as the address and a comment of its own', async () => {
    const a = await api('/v1/payment', { amount: '2.5', currency: 'TON', network: 'TON', order_id: 'ton-1' });
    expect(a.status).toBe(200);
    const inv = a.body.result;
    expect(inv.address).toBe(FRIENDLY);
    expect(inv.payment_comment).toMatch(COMMENT);
    // The creation QR is the ton:// link with the comment, never the deposit key.
    expect(inv.address_qr_code).toBe(await qrDataUrl(`ton://transfer/${FRIENDLY}?text=${inv.payment_comment}`));

    const b = await api('/v1/payment', { amount: '3', currency: 'TON', network: 'TON', order_id: 'ton-2' });
    expect(b.body.result.address).toBe(FRIENDLY);
    expect(b.body.result.payment_comment).toMatch(COMMENT);
    expect(b.body.result.payment_comment).not.toBe(inv.payment_comment);

    // What the scan matches: one addresses row per invoice, the deposit key, with a reference path.
    const rows = await ctx.storage.db.selectFrom('addresses').select(['address', 'path', 'owner_id']).where('network', '=', 'TON').orderBy('address').execute();
    const mine = rows.find((r) => r.owner_id === inv.uuid)!;
    expect(parseDepositKey(mine.address)).toEqual({ account: FRIENDLY, reference: inv.payment_comment });
    expect(parseReferencePath(mine.path)).not.toBeNull();

    // The info endpoint answers the same field.
    const info = await api('/v1/payment/info', { uuid: inv.uuid });
    expect(info.body.result.payment_comment).toBe(inv.payment_comment);
    expect(info.body.result.address).toBe(FRIENDLY);
  });

  it('gives the payer the comment, and a wallet link and QR content that carry it (with the jetton master for USDT)', async () => {
    const ton = (await api('/v1/payment', { amount: '2.5', currency: 'TON', network: 'TON', order_id: 'ton-3' })).body.result;
    const view = await payer(ton.uuid);
    expect(view.address).toBe(FRIENDLY);
    expect(view.payment_comment).toBe(ton.payment_comment);
    expect(view.wallet_uri).toBe(`ton://transfer/${FRIENDLY}?amount=2500000000&text=${ton.payment_comment}`);
    expect(view.qr_content).toBe(view.wallet_uri);

    const usdt = (await api('/v1/payment', { amount: '12.5', currency: 'USDT', network: 'TON', order_id: 'ton-usdt-1' })).body.result;
    expect(usdt.payment_comment).toMatch(COMMENT);
    const u = await payer(usdt.uuid);
    expect(u.wallet_uri).toBe(`ton://transfer/${FRIENDLY}?jetton=${USDT_MASTER}&amount=12500000&text=${usdt.payment_comment}`);
    expect(u.qr_content).toBe(u.wallet_uri);
  });

  it('draws the pool\'s QR codes ahead as the ton:// link of each deposit', async () => {
    const material = await ctx.storage.db.selectFrom('merchant_custody').select(['id', 'material']).where('merchant_id', '=', merchant.id).where('replaced_at', 'is', null).executeTakeFirstOrThrow();
    await stopRefills(ctx.storage);
    await refillMaterialPool(ctx, ctx.registry.network('TON')!, material, 70);
    const pooled = await ctx.storage.db.selectFrom('address_pool').select(['address', 'qr']).where('network', '=', 'TON').limit(3).execute();
    expect(pooled.length).toBe(3);
    for (const p of pooled) {
      const key = parseDepositKey(p.address)!;
      expect(p.qr).toBe(await qrDataUrl(`ton://transfer/${key.account}?text=${key.reference}`));
    }
    const inv = (await api('/v1/payment', { amount: '1', currency: 'TON', network: 'TON', order_id: 'ton-pooled' })).body.result;
    expect(inv.address_qr_code).toBe(await qrDataUrl(`ton://transfer/${FRIENDLY}?text=${inv.payment_comment}`));
  });

  it('credits a payment reported to the wallet with an invoice\'s comment to that invoice only', async () => {
    const one = (await api('/v1/payment', { amount: '4', currency: 'TON', network: 'TON', order_id: 'ton-pay-1' })).body.result;
    const two = (await api('/v1/payment', { amount: '4', currency: 'TON', network: 'TON', order_id: 'ton-pay-2' })).body.result;
    await ctx.chains.poll('TON', createSink(ctx, { error() {} }), { wait: true });
    expect(driver).not.toBeNull();
    expect(driver!.watched.has(`${FRIENDLY}#${one.payment_comment}`)).toBe(true);
    // The node writes the wallet bounceable: the gateway matches on the account, not on the flags.
    driver!.queue.push({
      network: 'TON', currency: 'TON', txid: 'ab'.repeat(32), index: 0, from: null,
      to: `${WALLET.toString({ bounceable: true })}#${one.payment_comment}`,
      amount: '4', blockHeight: 101, blockHash: null, confirmations: 1,
    });
    await ctx.chains.poll('TON', createSink(ctx, { error() {} }), { wait: true });
    const a = (await api('/v1/payment/info', { uuid: one.uuid })).body.result;
    const b = (await api('/v1/payment/info', { uuid: two.uuid })).body.result;
    expect(a.status).toBe('paid');
    expect(a.txid).toBe('ab'.repeat(32));
    expect(b.status).toBe('process');
  });

  it('gives a static wallet on TON its own comment, in the API answer and the payer\'s link', async () => {
    const r = await api('/v1/wallet', { currency: 'TON', network: 'TON', order_id: 'ton-wallet-1' });
    expect(r.status).toBe(200);
    const w = r.body.result;
    expect(w.address).toBe(FRIENDLY);
    expect(w.payment_comment).toMatch(COMMENT);
    const view = await payer(`wallet/${w.uuid}`);
    expect(view.payment_comment).toBe(w.payment_comment);
    expect(view.wallet_uri).toBe(`ton://transfer/${FRIENDLY}?text=${w.payment_comment}`);
    expect(view.qr_content).toBe(view.wallet_uri);
  });
});

describe('a TON network in hot custody', () => {
  it('is refused at start: TON receives only into the merchant\'s own wallet', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'satchel-comment-hot-'));
    try {
      const config = loadConfig({
        SATCHEL_DATA_DIR: dataDir,
        SATCHEL_MNEMONIC: TEST_MNEMONIC,
        SATCHEL_PUBLIC_URL: 'https://pay.example.test',
        SATCHEL_RATES: STATIC_RATES,
        SATCHEL_NETWORKS: JSON.stringify({ TON: { driver: 'ton', custody: 'hot' } }),
        LOG_LEVEL: 'silent',
      });
      await expect(createContext(config, { drivers: { ...driverFactories, ton: (deps) => new FakeTonDriver(deps.network) } })).rejects.toThrow(
        /networks\.TON\.custody: TON receives watch-only only .*remove "custody": "hot"/,
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
