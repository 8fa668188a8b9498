// Message bodies and envelopes, checked against @ton/core (comment, internal, storeMessageRelaxed,
// storeStateInit, contractAddress) and the TEP-74 layouts of @ton-community/assets-sdk: what our
// wallet signs is byte-for-byte what those libraries build, and what a jetton wallet sends reads
// back as the payment it is (or as nothing, never a crash).
import { describe, expect, it } from 'vitest';
import { Address, beginCell as tonBeginCell, Cell as TonCell, comment, contractAddress as tonContractAddress, internal, storeMessageRelaxed, storeStateInit } from '@ton/core';
import { storeJettonTransferMessage, storeJettonTransferNotificationMessage, loadJettonTransferMessage, loadJettonTransferNotificationMessage } from '@ton-community/assets-sdk';
import { beginCell, Cell, parseBoc, serializeBoc, type TonAddress } from '../../../src/chain/ton/cell.ts';
import { commentBody, contractAddress, internalMessage, jettonTransferBody, parseTransferNotification, readComment, stateInit } from '../../../src/chain/ton/messages.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const ours = (c: TonCell): Cell => parseBoc(new Uint8Array(c.toBoc()))[0]!;
const theirs = (c: Cell): TonCell => TonCell.fromBoc(Buffer.from(serializeBoc(c)))[0]!;
const addr = (a: Address): TonAddress => ({ workchain: a.workChain, hash: new Uint8Array(a.hash) });
const same = (a: Cell, b: TonCell) => expect(hex(a.hash())).toBe(b.hash().toString('hex'));

const MERCHANT = Address.parse('EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N');
const PAYER = Address.parse('0:' + 'ab'.repeat(32));
const MASTER_CHAIN = Address.parse('-1:' + '33'.repeat(32));

describe('comments', () => {
  const texts = ['', 'INV7K2Q', 'Заказ №42 — спасибо', '🎉'.repeat(40), 'a'.repeat(123), 'a'.repeat(124), 'é'.repeat(300)];

  it('builds the body @ton/core comment() builds and reads theirs back as text', () => {
    for (const text of texts) {
      same(commentBody(text), comment(text));
      expect(readComment(ours(comment(text)))).toEqual(text === '' ? { kind: 'text', text: '' } : { kind: 'text', text });
      expect(theirs(commentBody(text)).beginParse().skip(32).loadStringTail()).toBe(text);
    }
  });

  it('reads no body, an empty body, binary, encrypted and other ops as what they are', () => {
    expect(readComment(null)).toEqual({ kind: 'none' });
    expect(readComment(Cell.EMPTY)).toEqual({ kind: 'none' });
    const invalid = beginCell().storeUint(0, 32).storeBuffer(new Uint8Array([0x49, 0xff, 0xfe])).endCell();
    expect(readComment(invalid)).toEqual({ kind: 'binary' });
    const odd = beginCell().storeUint(0, 32).storeUint(0x41, 8).storeBit(1).endCell();
    expect(readComment(odd)).toEqual({ kind: 'binary' });
    const encrypted = beginCell().storeUint(0x2167da4b, 32).storeBuffer(new Uint8Array(48)).endCell();
    expect(readComment(encrypted)).toEqual({ kind: 'binary' });
    expect(readComment(beginCell().storeUint(0xffffffff, 32).storeBuffer(new Uint8Array([1, 2])).endCell())).toEqual({ kind: 'binary' });
    expect(readComment(beginCell().storeUint(5, 16).endCell())).toEqual({ kind: 'binary' });
    expect(readComment(beginCell().storeUint(0x7362d09c, 32).storeUint(1, 64).endCell())).toEqual({ kind: 'other', op: 0x7362d09c });
    // A text split mid-character across cells still reads whole.
    const split = commentBody('€'.repeat(60));
    expect(split.refs.length).toBe(1);
    expect(readComment(split)).toEqual({ kind: 'text', text: '€'.repeat(60) });
  });
});

describe('jetton transfer (TEP-74)', () => {
  it('builds the transfer body assets-sdk builds, with and without a forward payload', () => {
    for (const forward of [null, comment('INV7K2Q')]) {
      for (const response of [null, PAYER]) {
        const mine = jettonTransferBody({
          queryId: 123456789012345n,
          amount: 1_500_000n,
          destination: addr(MERCHANT),
          responseDestination: response ? addr(response) : null,
          forwardTonAmount: 1n,
          forwardPayload: forward ? ours(forward) : null,
        });
        const reference = tonBeginCell()
          .store(storeJettonTransferMessage({ queryId: 123456789012345n, amount: 1_500_000n, destination: MERCHANT, responseDestination: response, customPayload: null, forwardAmount: 1n, forwardPayload: forward }))
          .endCell();
        same(mine, reference);
        const read = loadJettonTransferMessage(theirs(mine).beginParse());
        expect(read.amount).toBe(1_500_000n);
        expect(read.destination.equals(MERCHANT)).toBe(true);
      }
    }
  });

  it('reads a notification with the comment by reference, as assets-sdk writes it', () => {
    const body = tonBeginCell().store(storeJettonTransferNotificationMessage({ queryId: 9n, amount: 2_000_000n, sender: PAYER, forwardPayload: comment('INV7K2Q') })).endCell();
    const n = parseTransferNotification(ours(body))!;
    expect(n.queryId).toBe(9n);
    expect(n.amount).toBe(2_000_000n);
    expect(n.sender!.workchain).toBe(0);
    expect(hex(n.sender!.hash)).toBe(PAYER.hash.toString('hex'));
    expect(readComment(n.forwardPayload)).toEqual({ kind: 'text', text: 'INV7K2Q' });
  });

  it('reads an inline forward payload (Either bit 0) and no payload at all', () => {
    const inline = tonBeginCell().storeUint(0x7362d09c, 32).storeUint(1, 64).storeCoins(5n).storeAddress(PAYER).storeBit(0).storeUint(0, 32).storeStringTail('INV-inline').endCell();
    const n = parseTransferNotification(ours(inline))!;
    expect(readComment(n.forwardPayload)).toEqual({ kind: 'text', text: 'INV-inline' });
    // The same payload as assets-sdk reads it (the rest of the slice).
    expect(loadJettonTransferNotificationMessage(inline.beginParse()).forwardPayload!.beginParse().skip(32).loadStringTail()).toBe('INV-inline');
    const empty = tonBeginCell().storeUint(0x7362d09c, 32).storeUint(1, 64).storeCoins(5n).storeAddress(PAYER).storeBit(0).endCell();
    expect(parseTransferNotification(ours(empty))!.forwardPayload).toBeNull();
    const noBit = tonBeginCell().storeUint(0x7362d09c, 32).storeUint(1, 64).storeCoins(5n).storeAddress(null).endCell();
    const nb = parseTransferNotification(ours(noBit))!;
    expect([nb.forwardPayload, nb.sender]).toEqual([null, null]);
  });

  it('answers null, never throws, for anything that is not a well-formed notification', () => {
    const full = beginCell().storeUint(0x7362d09c, 32).storeUint(1, 64).storeCoins(5n).storeAddress(addr(PAYER)).storeBit(1).storeRef(commentBody('x')).endCell();
    expect(parseTransferNotification(full)).not.toBeNull();
    // The first bits of the fields only: every cut lands inside a field (or drops the payload ref).
    for (const bits of [0, 16, 32, 60, 96, 100, 110, 200, 370, 376]) {
      const trunc = beginCell().storeUint(full.beginParse().loadUint(bits), bits).endCell();
      expect(parseTransferNotification(trunc)).toBeNull();
    }
    const refMissing = beginCell().storeUint(0x7362d09c, 32).storeUint(1, 64).storeCoins(5n).storeAddress(addr(PAYER)).storeBit(1).endCell();
    expect(parseTransferNotification(refMissing)).toBeNull();
    const external = beginCell().storeUint(0x7362d09c, 32).storeUint(1, 64).storeCoins(5n).storeUint(1, 2).storeUint(0, 9).storeBit(0).endCell();
    expect(parseTransferNotification(external)).toBeNull();
    expect(parseTransferNotification(commentBody('hello'))).toBeNull();
    expect(parseTransferNotification(Cell.EMPTY)).toBeNull();
    const exotic = new Cell({ data: new Uint8Array([2, ...new Uint8Array(32).fill(0x11)]), bitLength: 264, exotic: true });
    expect(theirs(exotic).isExotic).toBe(true);
    expect(parseTransferNotification(exotic)).toBeNull();
    expect(readComment(exotic)).toEqual({ kind: 'binary' });
  });
});

describe('internal messages and StateInit', () => {
  const code = ours(tonBeginCell().storeUint(0xff00f4a4, 32).storeRef(tonBeginCell().storeUint(7, 8).endCell()).endCell());
  const data = ours(tonBeginCell().storeUint(0, 32).storeUint(698983191, 32).storeBuffer(Buffer.alloc(32, 9)).storeBit(0).endCell());

  it('builds StateInit and the contract address as @ton/core does', () => {
    const mine = stateInit({ code, data });
    const init = { code: theirs(code), data: theirs(data) };
    same(mine, tonBeginCell().store(storeStateInit(init)).endCell());
    for (const wc of [0, -1]) {
      const a = contractAddress(wc, mine);
      expect(`${a.workchain}:${hex(a.hash)}`).toBe(tonContractAddress(wc, init).toRawString());
    }
  });

  it('builds the relaxed internal message of @ton/core internal() for every shape', () => {
    const bodies: (TonCell | null)[] = [null, comment('INV7K2Q'), comment('x'.repeat(400)), tonBeginCell().storeBuffer(Buffer.alloc(120, 1)).storeRef(TonCell.EMPTY).storeRef(TonCell.EMPTY).storeRef(TonCell.EMPTY).endCell()];
    const bigInit = tonBeginCell().storeBuffer(Buffer.alloc(100, 2)).endCell();
    const inits: ({ code: TonCell; data: TonCell } | null)[] = [null, { code: theirs(code), data: theirs(data) }];
    for (const to of [MERCHANT, MASTER_CHAIN]) {
      for (const value of [0n, 1n, 10n ** 9n, (1n << 120n) - 1n]) {
        for (const bounce of [true, false]) {
          for (const body of [...bodies, bigInit]) {
            for (const init of inits) {
              const reference = tonBeginCell().store(storeMessageRelaxed(internal({ to, value, bounce, body: body ?? undefined, init }))).endCell();
              const mine = internalMessage({ to: addr(to), value, bounce, body: body ? ours(body) : null, stateInit: init ? stateInit({ code, data }) : null });
              same(mine, reference);
            }
          }
        }
      }
    }
  });

  it('refuses a negative value or one over 2^120 - 1', () => {
    expect(() => internalMessage({ to: addr(MERCHANT), value: -1n, bounce: false, body: null, stateInit: null })).toThrow(/coins/);
    expect(() => internalMessage({ to: addr(MERCHANT), value: 1n << 120n, bounce: false, body: null, stateInit: null })).toThrow(/coins/);
  });
});
