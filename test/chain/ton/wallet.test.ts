// The float's wallets v4r2 and v5r1: code, data and address equal to @ton/ton's WalletContractV4 /
// WalletContractV5R1, the signed external message equal to theirs, and (what matters) accepted by
// the real contracts on the TVM of @ton/sandbox: the first transfer deploys the wallet and pays a
// recipient with a comment, seqno advances, and a replayed or expired message is refused.
import { beforeEach, describe, expect, it } from 'vitest';
import { Blockchain, type SandboxContract, type TreasuryContract } from '@ton/sandbox';
import { Address, beginCell as tonBeginCell, Cell as TonCell, comment, external, internal, storeMessage, toNano } from '@ton/core';
import { keyPairFromSeed } from '@ton/crypto';
import { WalletContractV4, WalletContractV5R1 } from '@ton/ton';
import { parseBoc, serializeBoc, type Cell, type TonAddress } from '../../../src/chain/ton/cell.ts';
import { commentBody, readComment } from '../../../src/chain/ton/messages.ts';
import { normalizedExternalHash, signedTransfer, TESTNET_GLOBAL_ID, walletAddress, walletCode, walletData, type WalletVersion } from '../../../src/chain/ton/wallet.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const raw = (a: TonAddress) => `${a.workchain}:${hex(a.hash)}`;
const toTon = (c: Cell): TonCell => TonCell.fromBoc(Buffer.from(serializeBoc(c)))[0]!;
const ours = (c: TonCell): Cell => parseBoc(new Uint8Array(c.toBoc()))[0]!;

const SEED = Buffer.alloc(32, 0x42);
const keys = keyPairFromSeed(SEED);
const publicKey = new Uint8Array(keys.publicKey);

function theirWallet(version: WalletVersion, opts: { workchain?: number; subwalletId?: number; networkGlobalId?: number } = {}) {
  const workchain = opts.workchain ?? 0;
  if (version === 'v4r2') return WalletContractV4.create({ workchain, publicKey: keys.publicKey, walletId: opts.subwalletId });
  return WalletContractV5R1.create({ publicKey: keys.publicKey, walletId: { networkGlobalId: opts.networkGlobalId ?? -239, context: { workchain, walletVersion: 'v5r1', subwalletNumber: opts.subwalletId ?? 0 } } });
}

describe('wallet code, data and address', () => {
  it('has the code of @ton/ton, byte for byte', () => {
    expect(hex(walletCode('v4r2').hash())).toBe(WalletContractV4.create({ workchain: 0, publicKey: keys.publicKey }).init.code.hash().toString('hex'));
    expect(hex(walletCode('v4r2').hash())).toBe('feb5ff6820e2ff0d9483e7e0d62c817d846789fb4ae580c878866d959dabd5c0');
    expect(hex(walletCode('v5r1').hash())).toBe(theirWallet('v5r1').init.code.hash().toString('hex'));
    expect(hex(walletCode('v5r1').hash())).toBe('20834b7b72b112147e1b2fb457b84e74d1a30f04f737d4f62a668e9552d2b72f');
  });

  it('gives the data and address @ton/ton gives, per workchain, subwallet and network', () => {
    const cases = [{}, { workchain: -1 }, { subwalletId: 7 }, { networkGlobalId: TESTNET_GLOBAL_ID }, { workchain: -1, subwalletId: 3, networkGlobalId: TESTNET_GLOBAL_ID }];
    for (const version of ['v4r2', 'v5r1'] as const) {
      for (const opts of cases) {
        if (version === 'v4r2' && 'networkGlobalId' in opts) continue;
        const theirs = theirWallet(version, opts);
        expect(hex(walletData(version, publicKey, opts).hash())).toBe(theirs.init.data.hash().toString('hex'));
        expect(raw(walletAddress(version, publicKey, opts))).toBe(theirs.address.toRawString());
      }
    }
    // The two versions never share an address.
    expect(raw(walletAddress('v4r2', publicKey))).not.toBe(raw(walletAddress('v5r1', publicKey)));
  });
});

describe('the signed external message', () => {
  const to = Address.parse('0:' + '77'.repeat(32));
  for (const version of ['v4r2', 'v5r1'] as const) {
    it(`${version}: equals @ton/ton's createTransfer in an external message`, () => {
      for (const withStateInit of [true, false]) {
        const mine = signedTransfer(version, {
          secretKey: new Uint8Array(SEED),
          publicKey,
          seqno: withStateInit ? 0 : 5,
          validUntil: 1_800_000_000,
          messages: [{ to: { workchain: 0, hash: new Uint8Array(to.hash) }, value: 1_000_000n, bounce: false, body: commentBody('INV7K2Q'), stateInit: null }],
          sendMode: 3,
          withStateInit,
        });
        const w = theirWallet(version);
        const args = { seqno: withStateInit ? 0 : 5, secretKey: keys.secretKey, timeout: 1_800_000_000, sendMode: 3, messages: [internal({ to, value: 1_000_000n, bounce: false, body: 'INV7K2Q' })] };
        const body = version === 'v4r2' ? (w as WalletContractV4).createTransfer(args) : (w as WalletContractV5R1).createTransfer(args);
        const reference = tonBeginCell().store(storeMessage(external({ to: w.address, init: withStateInit ? w.init : undefined, body }))).endCell();
        expect(hex(mine.hash())).toBe(reference.hash().toString('hex'));
      }
    });
  }

  it('refuses a public key that is not the seed\'s, and out-of-range fields', () => {
    const base = { secretKey: new Uint8Array(SEED), publicKey, seqno: 0, validUntil: 1_800_000_000, messages: [{ to: { workchain: 0, hash: new Uint8Array(32) }, value: 1n, bounce: false, body: null, stateInit: null }], sendMode: 3, withStateInit: true };
    expect(() => signedTransfer('v4r2', { ...base, publicKey: new Uint8Array(32) })).toThrow(/does not belong/);
    expect(() => signedTransfer('v4r2', { ...base, seqno: -1 })).toThrow(/seqno/);
    expect(() => signedTransfer('v5r1', { ...base, validUntil: 2 ** 32 })).toThrow(/validUntil/);
    expect(() => signedTransfer('v4r2', { ...base, messages: [] })).toThrow(/messages/);
    expect(() => signedTransfer('v4r2', { ...base, messages: Array(5).fill(base.messages[0]) })).toThrow(/messages/);
  });
});

describe('on the TVM (@ton/sandbox)', () => {
  const NOW = 1_800_000_000;
  let chain: Blockchain;
  let funder: SandboxContract<TreasuryContract>;
  beforeEach(async () => {
    chain = await Blockchain.create();
    chain.now = NOW;
    funder = await chain.treasury('funder');
  });

  const recipient = { workchain: 0, hash: new Uint8Array(32).fill(0x99) };
  const recipientAddress = Address.parse(`0:${'99'.repeat(32)}`);
  const send = (version: WalletVersion, seqno: number, text: string, opts: { withStateInit?: boolean; validUntil?: number; value?: bigint } = {}) =>
    chain.sendMessage(
      toTon(
        signedTransfer(version, {
          secretKey: new Uint8Array(SEED),
          publicKey,
          seqno,
          validUntil: opts.validUntil ?? NOW + 60,
          messages: [{ to: recipient, value: opts.value ?? toNano('1.5'), bounce: false, body: commentBody(text), stateInit: null }],
          sendMode: 3,
          withStateInit: opts.withStateInit ?? seqno === 0,
        }),
      ),
    );
  const seqno = async (a: Address) => (await chain.runGetMethod(a, 'seqno')).stackReader.readNumber();

  for (const version of ['v4r2', 'v5r1'] as const) {
    it(`${version}: the first transfer deploys the wallet and pays with a comment; seqno advances; replay and expiry are refused`, { timeout: 60_000 }, async () => {
      const wallet = Address.parseRaw(raw(walletAddress(version, publicKey)));
      await funder.send({ to: wallet, value: toNano('10'), bounce: false });
      expect((await chain.getContract(wallet)).accountState?.type).toBe('uninit');

      const first = await send(version, 0, 'INV7K2Q');
      expect((await chain.getContract(wallet)).accountState?.type).toBe('active');
      const arrived = first.transactions.find((t) => t.inMessage?.info.dest?.toString() === recipientAddress.toString());
      expect(arrived).toBeDefined();
      expect(arrived!.inMessage!.info.type === 'internal' && arrived!.inMessage!.info.value.coins).toBe(toNano('1.5'));
      expect(readComment(ours(arrived!.inMessage!.body))).toEqual({ kind: 'text', text: 'INV7K2Q' });
      expect(await seqno(wallet)).toBe(1);
      expect((await chain.getContract(recipientAddress)).balance).toBe(toNano('1.5'));

      const second = await send(version, 1, 'Заказ №2', { value: toNano('0.25') });
      const again = second.transactions.find((t) => t.inMessage?.info.dest?.toString() === recipientAddress.toString());
      expect(readComment(ours(again!.inMessage!.body))).toEqual({ kind: 'text', text: 'Заказ №2' });
      expect(await seqno(wallet)).toBe(2);
      const paid = (await chain.getContract(recipientAddress)).balance;
      expect(paid).toBe(toNano('1.75'));

      // The same seqno again (a crash-and-resend): the contract refuses it (bad seqno: exit 33 in
      // v4r2, 133 in v5r1), nothing more is paid.
      const refusal = (p: Promise<unknown>) => p.then(() => 'accepted', (e: Error) => e.message);
      const codes = version === 'v4r2' ? { seqno: 33, expired: 36 } : { seqno: 133, expired: 136 };
      const replay = await refusal(send(version, 1, 'Заказ №2', { value: toNano('0.25') }));
      expect(replay).toMatch(/External message not accepted/);
      expect(replay).toMatch(new RegExp(`Exit code: ${codes.seqno}\\b`));
      // A message past its valid_until: refused too (exit 36 in v4r2, 136 in v5r1).
      expect(await refusal(send(version, 2, 'late', { validUntil: NOW - 1 }))).toMatch(new RegExp(`Exit code: ${codes.expired}\\b`));
      expect(await seqno(wallet)).toBe(2);
      expect((await chain.getContract(recipientAddress)).balance).toBe(paid);
    });
  }

  it('names the sent message by its normalized hash (TEP-467), with or without StateInit', async () => {
    for (const version of ['v4r2', 'v5r1'] as const) {
      const wallet = Address.parseRaw(raw(walletAddress(version, publicKey)));
      await funder.send({ to: wallet, value: toNano('10'), bounce: false });
      for (const n of [0, 1]) {
        const ext = signedTransfer(version, { secretKey: new Uint8Array(SEED), publicKey, seqno: n, validUntil: NOW + 60, messages: [{ to: recipient, value: 1n, bounce: false, body: null, stateInit: null }], sendMode: 3, withStateInit: n === 0 });
        const result = await chain.sendMessage(toTon(ext));
        const incoming = result.transactions[0]!.inMessage!;
        expect(incoming.info.type).toBe('external-in');
        const reference = tonBeginCell().storeUint(2, 2).storeUint(0, 2).storeAddress(incoming.info.dest as Address).storeCoins(0).storeBit(false).storeBit(true).storeRef(incoming.body).endCell();
        expect(hex(normalizedExternalHash(ext))).toBe(reference.hash().toString('hex'));
        // A different message (the next seqno) has a different name.
        expect(hex(normalizedExternalHash(ext))).not.toBe(hex(normalizedExternalHash(signedTransfer(version, { secretKey: new Uint8Array(SEED), publicKey, seqno: n + 1, validUntil: NOW + 60, messages: [{ to: recipient, value: 1n, bounce: false, body: null, stateInit: null }], sendMode: 3, withStateInit: false }))));
      }
    }
    expect(() => normalizedExternalHash(commentBody('x'))).toThrow(/external/);
  });

  it('a wallet not yet deployed refuses a transfer without its StateInit', async () => {
    const wallet = Address.parseRaw(raw(walletAddress('v4r2', publicKey)));
    await funder.send({ to: wallet, value: toNano('10'), bounce: false });
    await expect(send('v4r2', 0, 'x', { withStateInit: false })).rejects.toThrow(/External message not accepted/);
    expect((await chain.getContract(wallet)).accountState?.type).toBe('uninit');
    expect(comment('x').hash().toString('hex')).toBe(hex(commentBody('x').hash()));
  });
});
