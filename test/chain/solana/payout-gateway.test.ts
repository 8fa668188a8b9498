// Solana payouts through the whole gateway and its public API, on both databases: the `solana`
// driver with a payout float against the JSON-RPC double over LiteSVM (the real System, SPL Token
// and Associated Token Account programs). A SOL payout arrives exact and is paid once finalized;
// USDC to a wallet without a token account creates it, its rent (at the gateway's SOL rate)
// counted in the commission /v1/payout/calc and the payout show; a crash between signing and
// broadcasting sends once; a broadcast lost until its blockhash expired is signed again, once;
// destinations that are not wallets and malformed addresses are refused at creation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSigner, lamports, type Address, type KeyPairSigner } from '@solana/kit';
import { backends } from '../../helpers/backends.ts';
import { balanceOf, post } from '../../../src/ledger/index.ts';
import type { SolanaDriver } from '../../../src/chain/solana/solana-driver.ts';
import { Decimal } from '../../../src/money/decimal.ts';
import { startChainGateway, type ChainGateway } from '../gateway-setup.ts';
import { startSolanaDouble, type SolanaDouble } from './double/server.ts';
import { scenario, LAMPORTS_PER_SOL, type Mint, type Scenario } from './double/scenario.ts';
import { tokenBalance } from './payout-svm.ts';

const FLOAT_SEED = new Uint8Array(32).fill(0x5a);

describe.each(await backends())('Solana payouts through the gateway ($name)', (backend) => {
  let double: SolanaDouble;
  let sc: Scenario;
  let g: ChainGateway<SolanaDriver>;
  let usdc: Mint;
  let float: string;
  let n = 0;
  const dir = mkdtempSync(join(tmpdir(), 'satchel-sol-gw-float-'));

  beforeAll(async () => {
    double = await startSolanaDouble();
    sc = scenario(double);
    usdc = await sc.mint(6);
    const keyFile = join(dir, 'float.json');
    const { ed25519 } = await import('@noble/curves/ed25519.js');
    writeFileSync(keyFile, JSON.stringify([...FLOAT_SEED, ...ed25519.getPublicKey(FLOAT_SEED)]), { mode: 0o600 });
    chmodSync(keyFile, 0o600);
    g = await startChainGateway<SolanaDriver>(backend, {
      code: 'SOL',
      network: { driver: 'solana', rpc_url: double.url, cluster: 'localnet', confirmations: 32, tokens: { USDC: usdc.address }, payout_float: { key_file: keyFile } },
      mine: () => double.chain.advance(1),
      stop: () => double.close(),
    });
    float = g.driver().payouts!.floatAddress;
    double.chain.svm.airdrop(float as Address, lamports(20n * LAMPORTS_PER_SOL));
    await sc.mintTo(usdc, float, 1_000_000_000n);
    for (const currency of ['SOL', 'USDC']) {
      await g.ctx.storage.write((trx) =>
        post(trx, { merchantId: g.merchant.id, wallet: 'business', currency, amount: '1000', reason: 'test_funding', ref: { kind: 'test', id: `funding-${currency}` }, key: `test:${randomUUID()}`, now: g.ctx.now() }),
      );
    }
  }, 120_000);
  afterAll(async () => {
    await g?.stopAll();
    rmSync(dir, { recursive: true, force: true });
  });

  const wallet = (): Promise<KeyPairSigner> => generateKeyPairSigner();
  const createPayout = (body: Record<string, unknown>) =>
    g.api('/v1/payout', { amount: '1.5', currency: 'SOL', network: 'SOL', is_subtract: true, order_id: `sol-out-${++n}`, ...body }, { key: 'payout' });
  const payoutInfo = async (uuid: string) => (await g.api('/v1/payout/info', { uuid }, { key: 'payout' })).body.result as Record<string, any>;
  const row = (uuid: string) => g.ctx.storage.db.selectFrom('payouts').selectAll().where('id', '=', uuid).executeTakeFirstOrThrow();
  const attempts = (uuid: string) => g.driver().payouts!.attempts(uuid);
  const finalize = async () => {
    double.chain.finalizeAll();
    await g.tick();
  };
  const lamportsOf = (a: string) => double.chain.svm.getBalance(a as Address) ?? 0n;

  it('SOL: the recipient gets the exact amount; check with the signature, paid once finalized', async () => {
    const to = (await wallet()).address;
    const r = await createPayout({ address: to, amount: '1.234567891' });
    expect(r.status, r.raw).toBe(200);
    const p = r.body.result as Record<string, any>;
    expect(p).toMatchObject({ status: 'process', txid: null });
    expect((await row(p.uuid)).commission).toBe('0.00001');
    await g.tick();
    const sent = await payoutInfo(p.uuid);
    expect(sent.status).toBe('check');
    expect(sent.txid).toBe((await attempts(p.uuid))[0]!.txid);
    expect(lamportsOf(to)).toBe(1_234_567_891n);
    await finalize();
    expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'paid', is_final: true, txid: sent.txid });
  });

  it('USDC to a wallet without a token account: created, its rent at the SOL rate in the commission (calc and payout)', async () => {
    const to = (await wallet()).address;
    const ata = await sc.ata(to, usdc);
    const rent = double.chain.svm.minimumBalanceForRentExemption(165n);
    // 0.5 USDC from the fee table + the rent in SOL at 150 USDC per SOL (the static rates), rounded up to 6 places.
    const commission = Decimal.parse('0.5').add(Decimal.fromBaseUnits(rent, 9).mul('150').round(6, 'up'));
    const calc = await g.api('/v1/payout/calc', { amount: '10', currency: 'USDC', network: 'SOL', address: to, is_subtract: true }, { key: 'payout' });
    expect(calc.status, calc.raw).toBe(200);
    expect(calc.body.result).toMatchObject({ commission: commission.toAmount(2), merchant_amount: Decimal.parse('10').add(commission).toAmount(2), payout_amount: '10.00' });
    const r = await createPayout({ address: to, amount: '10', currency: 'USDC' });
    expect(r.status, r.raw).toBe(200);
    const p = r.body.result as Record<string, any>;
    const stored = await row(p.uuid);
    expect(stored.commission).toBe(commission.toString());
    expect(stored.merchant_amount).toBe(Decimal.parse('10').add(commission).toString());
    expect(tokenBalance(double.chain.svm, ata)).toBeNull();
    await g.tick();
    expect((await payoutInfo(p.uuid)).status).toBe('check');
    expect(tokenBalance(double.chain.svm, ata)).toBe(10_000_000n);
    await finalize();
    expect((await payoutInfo(p.uuid)).status).toBe('paid');
    // The account exists now: the next quote to that wallet counts no rent.
    const again = await g.api('/v1/payout/calc', { amount: '10', currency: 'USDC', network: 'SOL', address: to, is_subtract: true }, { key: 'payout' });
    expect(again.body.result).toMatchObject({ commission: '0.50' });
  });

  it('a crash between signing and broadcasting: the worker sends the stored transaction, once', async () => {
    const to = (await wallet()).address;
    const r = await createPayout({ address: to, amount: '0.5' });
    const p = r.body.result as Record<string, any>;
    const d = g.driver();
    // The process signs and stores the transaction, then "dies" before broadcasting it.
    const stored = await d.payouts!.prepare(p.uuid, d.payouts!.parse({ network: 'SOL', currency: 'SOL', to, amount: (await row(p.uuid)).payer_amount }));
    expect(lamportsOf(to)).toBe(0n);
    await g.tick();
    expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'check', txid: stored.txid });
    expect(lamportsOf(to)).toBe(500_000_000n);
    await finalize();
    await g.tick();
    expect(await attempts(p.uuid)).toHaveLength(1);
    expect(lamportsOf(to)).toBe(500_000_000n);
    expect((await payoutInfo(p.uuid)).status).toBe('paid');
  });

  it('a broadcast lost until its blockhash expired: signed again with a new blockhash only then, paid once', async () => {
    const to = (await wallet()).address;
    const r = await createPayout({ address: to, amount: '0.75' });
    const p = r.body.result as Record<string, any>;
    double.chain.dropSends = 1;
    await g.tick(); // broadcast, lost: the payout waits, its transaction stored
    expect((await payoutInfo(p.uuid)).status).toBe('process');
    const [first] = await attempts(p.uuid);
    expect(first).toMatchObject({ attempt: 0, status: 'sent' });
    // While the blockhash is valid a retry sends the same bytes (lost again here), never new ones.
    double.chain.dropSends = 1;
    g.clock.advance(60_000);
    await g.tick();
    expect((await attempts(p.uuid)).map((a) => a.attempt)).toEqual([0]);
    double.chain.expireBlockhashes();
    double.chain.finalizeAll();
    g.clock.advance(10 * 60_000);
    await g.tick();
    const rows = await attempts(p.uuid);
    expect(rows.map((a) => [a.attempt, a.status])).toEqual([
      [1, 'mined'],
      [0, 'expired'],
    ]);
    expect(await payoutInfo(p.uuid)).toMatchObject({ status: 'check', txid: rows[0]!.txid });
    expect(lamportsOf(to)).toBe(750_000_000n);
    // The expired transaction can never land: the node refuses it.
    await expect(sc.rpc.sendTransaction(Buffer.from(first!.raw, 'hex').toString('base64') as never, { encoding: 'base64' }).send()).rejects.toThrow();
    await finalize();
    expect(lamportsOf(to)).toBe(750_000_000n);
    expect((await payoutInfo(p.uuid)).status).toBe('paid');
  });

  it('destinations that are not wallets and malformed addresses are refused at creation; nothing is debited or signed', async () => {
    const before = await balanceOf(g.ctx.storage.db, g.merchant.id, 'business', 'SOL');
    const sends = double.requests.filter((q) => q.method === 'sendTransaction').length;
    const tokenAccount = await sc.ata(float, usdc);
    for (const [address, currency, why] of [
      ['11111111111111111111111111111111', 'SOL', /System Program, not a wallet/],
      [usdc.address, 'SOL', /USDC mint, not a wallet/],
      [usdc.address, 'USDC', /USDC mint, not a wallet/],
      ['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', 'SOL', /SPL Token program/],
      [tokenAccount, 'SOL', /a token account/],
      [float, 'SOL', /payout float itself/],
    ] as const) {
      const r = await createPayout({ address, currency, amount: currency === 'SOL' ? '1' : '5' });
      expect(r.status, r.raw).toBe(422);
      expect(r.body.message).toMatch(why);
    }
    for (const address of ['0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl', 'x'.repeat(5000), '2'.repeat(32), '']) {
      const r = await createPayout({ address });
      expect(r.status, r.raw).toBe(422);
      expect(r.body.errors?.address).toBeTruthy();
    }
    expect(await balanceOf(g.ctx.storage.db, g.merchant.id, 'business', 'SOL')).toBe(before);
    expect(double.requests.filter((q) => q.method === 'sendTransaction')).toHaveLength(sends);
  });
});
