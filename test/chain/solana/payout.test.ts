// Solana payouts from the float, on LiteSVM (the real System, SPL Token and Associated Token
// Account programs execute every transaction), on both databases: the exact amounts that arrive,
// a token account created and its rent priced, refusals of destinations that are not wallets,
// coverage, and never two payments for one request whatever crashes in between or however the
// blockhash expires.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Address } from '@solana/kit';
import { backends } from '../../helpers/backends.ts';
import { openStorage, type Storage } from '../../../src/db/dialect.ts';
import { migrateToLatest } from '../../../src/db/migrate.ts';
import type { ChainSink } from '../../../src/chain/contract.ts';
import { HotWalletShortError, SendRejectedError } from '../../../src/chain/errors.ts';
import { SolanaPayouts, SolanaPendingError } from '../../../src/chain/solana/outgoing.ts';
import { solanaFloat } from '../../../src/chain/solana/float.ts';
import { SYSTEM_PROGRAM_ID, TOKEN_PROGRAM_ID } from '../../../src/chain/solana/address.ts';
import { SvmPayoutNode } from './payout-node.ts';
import { ataOf, fund, giveTokens, makeMint, newSvm, testKey, tokenBalance, type TestKey } from './payout-svm.ts';

const SOL = 1_000_000_000n;

class Sink implements ChainSink {
  readonly outgoings: Array<{ txid: string; status: string; confirmations: number }> = [];
  async transfer() {}
  async dropped() {}
  async outgoing(_network: string, txid: string, status: 'confirmed' | 'failed', confirmations: number) {
    this.outgoings.push({ txid, status, confirmations });
  }
}

describe.each(await backends())('Solana payouts from the float ($name)', (backend) => {
  let storage: Storage;
  let drop: () => Promise<void>;
  let float: TestKey;
  let mint: Address;
  let node: SvmPayoutNode;
  let payouts: SolanaPayouts;
  let n = 0;
  const id = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
  const req = (to: string, amount: string, currency = 'SOL') => ({ network: 'SOL', currency, to, amount });

  beforeAll(async () => {
    const db = await backend.create();
    drop = db.drop;
    storage = openStorage({ databaseUrl: db.databaseUrl, sqlitePath: ':memory:' });
    await migrateToLatest(storage);
    float = await testKey(21);
    mint = (await testKey(22)).address;
  }, 60_000);
  afterAll(async () => {
    await storage?.close();
    await drop?.();
  });

  beforeEach(async () => {
    const svm = newSvm();
    node = new SvmPayoutNode(svm);
    fund(svm, float.address, 10n * SOL);
    makeMint(svm, mint, 6, float.address);
    await giveTokens(svm, float.address, mint, 1_000_000_000n);
    payouts = new SolanaPayouts({
      network: 'SOL',
      node,
      db: storage.db,
      storage,
      native: { code: 'SOL', decimals: 9 },
      tokens: [{ code: 'USDC', mint, decimals: 6 }],
      float: solanaFloat(`[${[...float.seed, ...float.publicKey].join(',')}]`),
      confirmations: 32,
      now: Date.now,
      log: () => {},
      findWaitMs: 0,
      rebroadcastAfterMs: 0,
    });
  });

  it('SOL: the recipient gets the exact amount; the float pays it and the fee the node quoted; finalized settles it', async () => {
    const to = await testKey(30);
    const p = payouts.parse(req(to.address, '1.234567891'));
    expect(await payouts.destinationFee(p)).toBe('0');
    const txid = await payouts.send(id(), p);
    expect(node.svm.getBalance(to.address)).toBe(1_234_567_891n);
    expect(node.svm.getBalance(float.address)).toBe(10n * SOL - 1_234_567_891n - 5000n);
    const sink = new Sink();
    await payouts.track(sink);
    expect(sink.outgoings).toEqual([{ txid, status: 'confirmed', confirmations: 32 }]);
    await payouts.track(sink);
    expect(sink.outgoings).toHaveLength(1);
  });

  it('USDC to a wallet without a token account: created in the same transaction, its rent priced and paid by the float', async () => {
    const to = await testKey(31);
    const dest = await ataOf(to.address, mint);
    const p = payouts.parse(req(to.address, '12.5', 'USDC'));
    const rent = node.svm.minimumBalanceForRentExemption(165n);
    expect(await payouts.destinationFee(p)).toBe((Number(rent) / 1e9).toString());
    await payouts.send(id(), p);
    expect(tokenBalance(node.svm, dest)).toBe(12_500_000n);
    expect(node.svm.getBalance(float.address)).toBe(10n * SOL - rent - 5000n);
    // The account exists now: a second payout adds no rent, and creating it again is a no-op.
    expect(await payouts.destinationFee(payouts.parse(req(to.address, '1', 'USDC')))).toBe('0');
    await payouts.send(id(), payouts.parse(req(to.address, '1', 'USDC')));
    expect(tokenBalance(node.svm, dest)).toBe(13_500_000n);
  });

  it('a crash between signing and broadcasting: the retry sends the stored bytes, once', async () => {
    const to = await testKey(32);
    const key = id();
    const p = payouts.parse(req(to.address, '0.5'));
    node.loseBroadcasts = true; // the process "dies" before anything reaches the network
    await expect(payouts.send(key, p)).rejects.toBeInstanceOf(SolanaPendingError);
    expect(node.svm.getBalance(to.address)).toBeNull();
    const [stored] = await payouts.attempts(key);
    node.loseBroadcasts = false;
    const txid = await payouts.send(key, p);
    expect(txid).toBe(stored!.txid);
    expect(await payouts.send(key, p)).toBe(txid);
    expect(node.svm.getBalance(to.address)).toBe(500_000_000n);
    expect(node.sent).toEqual([txid]);
    expect(await payouts.attempts(key)).toHaveLength(1);
  });

  it('a crash after broadcasting: the retry finds the landed transaction and signs nothing', async () => {
    const to = await testKey(33);
    const key = id();
    const p = payouts.parse(req(to.address, '0.25'));
    node.onlyProcessed = true; // landed, not confirmed before the worker "died"
    await expect(payouts.send(key, p)).rejects.toBeInstanceOf(SolanaPendingError);
    node.onlyProcessed = false;
    node.expire(); // even past its blockhash, a landed transaction is followed, not replaced
    const txid = await payouts.send(key, p);
    expect(node.sent).toEqual([txid]);
    expect(node.svm.getBalance(to.address)).toBe(250_000_000n);
  });

  it('blockhash expiry: re-signed with a new blockhash only once the old signature is provably not on chain', async () => {
    const to = await testKey(34);
    const key = id();
    const p = payouts.parse(req(to.address, '0.75'));
    node.loseBroadcasts = true;
    await expect(payouts.send(key, p)).rejects.toBeInstanceOf(SolanaPendingError);
    // Still valid: the same bytes again, never a second signature.
    await expect(payouts.send(key, p)).rejects.toBeInstanceOf(SolanaPendingError);
    expect(await payouts.attempts(key)).toHaveLength(1);
    const [old] = await payouts.attempts(key);
    node.expire();
    node.loseBroadcasts = false;
    const callsBefore = node.calls.length;
    const txid = await payouts.send(key, p);
    // Height first, then the signature's status with history: only then a new attempt.
    const order = node.calls.slice(callsBefore);
    expect(order.indexOf('getBlockHeight')).toBeLessThan(order.indexOf('getSignatureStatuses'));
    expect(txid).not.toBe(old!.txid);
    const rows = await payouts.attempts(key);
    expect(rows.map((r) => [r.attempt, r.status])).toEqual([
      [1, 'mined'],
      [0, 'expired'],
    ]);
    expect(node.svm.getBalance(to.address)).toBe(750_000_000n);
    // The expired bytes can never land: a node refuses them.
    await expect(node.sendTransaction(Buffer.from(old!.raw, 'hex'))).rejects.toThrow(/Blockhash not found/);
    expect(node.svm.getBalance(to.address)).toBe(750_000_000n);
  });

  it('refuses destinations that are not wallets, before anything is signed', async () => {
    const cases: Array<[string, string, RegExp]> = [
      [SYSTEM_PROGRAM_ID, 'SOL', /System Program, not a wallet/],
      [TOKEN_PROGRAM_ID, 'SOL', /SPL Token program/],
      [mint, 'SOL', /USDC mint, not a wallet/],
      [mint, 'USDC', /USDC mint, not a wallet/],
      [float.address, 'SOL', /payout float itself/],
    ];
    for (const [to, currency, why] of cases) expect(() => payouts.parse(req(to, '1', currency))).toThrow(why);
    const tokenAccount = await ataOf(float.address, mint);
    const other = await testKey(35);
    const otherMint = (await testKey(36)).address;
    makeMint(node.svm, otherMint, 9, other.address);
    for (const [to, why] of [
      [tokenAccount, /a token account \(pay the wallet that owns it\)/],
      [otherMint, /a token mint/],
      ['BPFLoaderUpgradeab1e11111111111111111111111', /a program/],
    ] as const) {
      const p = payouts.parse(req(to, '1'));
      await expect(payouts.destinationFee(p)).rejects.toThrow(why);
      await expect(payouts.send(id(), p)).rejects.toBeInstanceOf(SendRejectedError);
    }
    for (const bad of ['', '0OIl', 'x'.repeat(10_000), '1'.repeat(45), '2'.repeat(32)]) expect(() => payouts.parse(req(bad, '1'))).toThrow(SendRejectedError);
    expect(() => payouts.parse(req(other.address, '18446744073.709551616'))).toThrow(/More than a Solana amount/);
    expect(() => payouts.parse(req(other.address, '0.0000000001'))).toThrow(/decimal places/);
    expect(() => payouts.parse(req(other.address, '-1'))).toThrow(/positive/);
    expect(node.sent).toEqual([]);
  });

  it('coverage: SOL for the amount, fee, rent and its reserve; tokens for the amount; nothing signed when short', async () => {
    const to = await testKey(37);
    const keep = node.svm.minimumBalanceForRentExemption(0n);
    expect(await payouts.cover(payouts.parse(req(to.address, '9')))).toEqual({ covered: true });
    const tooMuch = Number(10n * SOL - 5000n - keep + 1n) / 1e9;
    const c = await payouts.cover(payouts.parse(req(to.address, tooMuch.toFixed(9))));
    expect(c).toMatchObject({ covered: false, currency: 'SOL' });
    expect(await payouts.cover(payouts.parse(req(to.address, '1001', 'USDC')))).toMatchObject({ covered: false, currency: 'USDC' });
    await expect(payouts.send(id(), payouts.parse(req(to.address, '1001', 'USDC')))).rejects.toBeInstanceOf(HotWalletShortError);
    expect(node.sent).toEqual([]);
  });

  it('a send id reused for another payment is refused', async () => {
    const to = await testKey(38);
    const key = id();
    await payouts.send(key, payouts.parse(req(to.address, '0.1')));
    await expect(payouts.send(key, payouts.parse(req(to.address, '0.2')))).rejects.toThrow(/different payment/);
  });
});
