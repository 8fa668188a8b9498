// TON watch-only custody: the merchant's own wallet, checked as the merchant typed it, and the
// deposits drawn from it: the wallet (user-friendly, non-bounceable, the network's flag) with a
// comment per invoice, as a deposit key; @ton/core is the independent reader of the addresses.
import { Address } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { Registry } from '../../../src/registry/index.ts';
import { CustodyInputError } from '../../../src/chain/errors.ts';
import { Families } from '../../../src/chain/family.ts';
import { canonicalTonAddress, tonFamily } from '../../../src/chain/ton/index.ts';
import { configuredTonNetwork, tonComment } from '../../../src/chain/ton/custody.ts';
import { isWatchOnlyPath, parseDepositKey, parseReferencePath } from '../../../src/chain/watch-paths.ts';
import { families } from '../../../src/compose.ts';

const TON = Registry.load().network('TON')!;
const MAINNET = configuredTonNetwork(TON, { driver: 'ton' });
const TESTNET = configuredTonNetwork(TON, { driver: 'ton', network: 'testnet' });
const custody = tonFamily.watchOnly!;
const CUSTODY_ID = '0b6f3c1e-7f7a-4a53-9a43-2f4d3b1c9e10';

// A wallet written every way a merchant might: @ton/core writes them.
const WALLET = new Address(0, Buffer.from('7f'.repeat(16) + '01'.repeat(16), 'hex'));
const RAW = WALLET.toRawString();

function refusal(network: typeof TON, address: string): { problem: string; message: string } {
  try {
    custody.parse(network, { address });
  } catch (err) {
    expect(err).toBeInstanceOf(CustodyInputError);
    return { problem: (err as CustodyInputError).problem, message: (err as Error).message };
  }
  throw new Error(`accepted: ${address}`);
}

describe('TON watch-only custody', () => {
  it('is the family\'s only custody, taking a wallet address', () => {
    expect(tonFamily.name).toBe('ton');
    expect(tonFamily.custody).toEqual(['watch-only']);
    expect(custody.inputs).toEqual(['address']);
    expect(custody.accepts).toMatch(/TON wallet address you own \(raw 0:\.\.\. or user-friendly\)/);
  });

  it('takes the wallet raw or user-friendly, bounceable or not; stores it raw and shows it non-bounceable', () => {
    const forms = [RAW, RAW.toUpperCase(), WALLET.toString({ bounceable: true }), WALLET.toString({ bounceable: false }), WALLET.toString({ urlSafe: false }), ` ${WALLET.toString()}\n`];
    for (const address of forms) {
      const parsed = custody.parse(MAINNET, { address });
      expect(parsed, address).toEqual({ kind: 'address', material: RAW, summary: WALLET.toString({ bounceable: false, testOnly: false }) });
    }
    const test = custody.parse(TESTNET, { address: WALLET.toString({ testOnly: true }) });
    expect(test).toEqual({ kind: 'address', material: RAW, summary: WALLET.toString({ bounceable: false, testOnly: true }) });
    expect(custody.parse(TESTNET, { address: RAW }).material).toBe(RAW);
  });

  it('refuses a wallet flagged for the other network', () => {
    expect(refusal(MAINNET, WALLET.toString({ testOnly: true }))).toMatchObject({ problem: 'wrong_network', message: expect.stringMatching(/testnet.*mainnet/) });
    expect(refusal(TESTNET, WALLET.toString({ testOnly: false }))).toMatchObject({ problem: 'wrong_network', message: expect.stringMatching(/mainnet.*testnet/) });
  });

  it('refuses private keys and recovery phrases without repeating them', () => {
    const seed = 'a1'.repeat(32);
    const secret = 'b2'.repeat(64);
    const phrase = 'abandon ability able about above absent absorb abstract absurd abuse access accident account accuse achieve acid acoustic acquire across act action actor actress actual';
    for (const s of [seed, `0x${seed}`, secret, phrase, phrase.split(' ').slice(0, 12).join(' ')]) {
      const r = refusal(MAINNET, s);
      expect(r.problem).toBe('private_key');
      expect(r.message).toMatch(/not stored/);
      expect(r.message).not.toContain(s.slice(0, 16));
      expect(r.message).not.toContain('abandon');
    }
  });

  it('refuses the masterchain, a bad checksum, other forms and other chains\' addresses, with a message', () => {
    expect(refusal(MAINNET, `-1:${'ab'.repeat(32)}`)).toMatchObject({ problem: 'workchain' });
    expect(refusal(MAINNET, 'Ef8zMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzM0vF')).toMatchObject({ problem: 'workchain' });
    const friendly = WALLET.toString();
    expect(refusal(MAINNET, friendly.slice(0, -1) + (friendly.endsWith('A') ? 'B' : 'A'))).toMatchObject({ problem: 'bad_checksum' });
    expect(refusal(MAINNET, '')).toMatchObject({ problem: 'missing' });
    expect(refusal(MAINNET, 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')).toMatchObject({ problem: 'not_address' });
    expect(refusal(MAINNET, `0x${'ab'.repeat(20)}`)).toMatchObject({ problem: 'not_address' });
    expect(() => custody.parse(MAINNET, { xpub: 'xpub6CUGRUonZSQ4TWtTMmzXdrXDtypWKiKrhko4egpiMZbpiaQL2jkwSB1icqYh2cfDfVxdx4df189oLKnC5fSwqPfgyP3hooxujYzAu3fDVmz' })).toThrow(CustodyInputError);
  });

  it('draws deposit keys: the wallet non-bounceable with a 10-character base58 comment, and a reference path', () => {
    const seen = new Set<string>();
    for (let index = 0; index < 500; index++) {
      const d = custody.deposit(MAINNET, RAW, CUSTODY_ID, index);
      const key = parseDepositKey(d.address);
      expect(key, d.address).not.toBeNull();
      expect(key!.account).toBe(WALLET.toString({ bounceable: false, testOnly: false }));
      expect(Address.parseFriendly(key!.account).isBounceable).toBe(false);
      expect(key!.reference).toMatch(/^[1-9A-HJ-NP-Za-km-z]{10}$/);
      expect(parseReferencePath(d.path)).toEqual({ custodyId: CUSTODY_ID, index });
      expect(isWatchOnlyPath(d.path)).toBe(true);
      seen.add(key!.reference);
    }
    expect(seen.size).toBe(500);
  });

  it('draws the same comment for the same custody row and index (a pool and a request agree), another for another row', () => {
    expect(custody.deposit(MAINNET, RAW, CUSTODY_ID, 7)).toEqual(custody.deposit(MAINNET, RAW, CUSTODY_ID, 7));
    expect(tonComment(CUSTODY_ID, 7)).not.toBe(tonComment('1b6f3c1e-7f7a-4a53-9a43-2f4d3b1c9e10', 7));
    expect(tonComment(CUSTODY_ID, 7)).not.toBe(tonComment(CUSTODY_ID, 8));
  });

  it('flags the wallet of a testnet deposit for the testnet', () => {
    const key = parseDepositKey(custody.deposit(TESTNET, RAW, CUSTODY_ID, 0).address)!;
    const read = Address.parseFriendly(key.account);
    expect(read.isTestOnly).toBe(true);
    expect(read.isBounceable).toBe(false);
    expect(read.address.toRawString()).toBe(RAW);
  });
});

describe('the TON network\'s configuration', () => {
  it('is mainnet unless the ton driver\'s settings say testnet; the simulated TON is left alone', () => {
    expect(configuredTonNetwork(TON, undefined)).toBe(TON);
    expect(configuredTonNetwork(TON, { driver: 'simulated' })).toBe(TON);
    expect(MAINNET.chain).toBe('main');
    expect(TESTNET.chain).toBe('test');
    expect(() => configuredTonNetwork(TON, { driver: 'ton', network: 'devnet' })).toThrow(/networks\.TON\.network: "mainnet" or "testnet"/);
  });

  it('checks payout and refund addresses for the configured network\'s flag', () => {
    const f = new Families([tonFamily]);
    expect(f.addresses.isValid('ton', WALLET.toString(), MAINNET.chain)).toBe(true);
    expect(f.addresses.isValid('ton', WALLET.toString({ testOnly: true }), MAINNET.chain)).toBe(false);
    expect(f.addresses.isValid('ton', WALLET.toString({ testOnly: true }), TESTNET.chain)).toBe(true);
    expect(f.addresses.isValid('ton', WALLET.toString(), TESTNET.chain)).toBe(false);
    expect(f.addresses.isValid('ton', RAW, TESTNET.chain)).toBe(true);
  });
});

describe('the TON family in the gateway', () => {
  it('is listed in the composition root and brings the ton address format (no longer the simulated family\'s)', () => {
    expect(families.of(TON)?.name).toBe('ton');
    expect(families.addresses.rules('ton')).toBe(tonFamily.addressFormats!.ton);
    expect(families.list.find((f) => f.name === 'simulated')?.addressFormats?.ton).toBeUndefined();
  });

  it('matches a reported deposit in the form it was stored, whatever form the account was written in', () => {
    const stored = custody.deposit(MAINNET, RAW, CUSTODY_ID, 3).address;
    const { reference } = parseDepositKey(stored)!;
    expect(canonicalTonAddress(stored)).toBe(stored);
    expect(canonicalTonAddress(`${WALLET.toString({ bounceable: true })}#${reference}`)).toBe(stored);
    expect(canonicalTonAddress(`${RAW}#${reference}`)).toBe(stored);
    const test = custody.deposit(TESTNET, RAW, CUSTODY_ID, 3).address;
    expect(canonicalTonAddress(test)).toBe(test);
    // A plain address (the simulated driver's deposits are non-bounceable) keeps that form.
    expect(canonicalTonAddress(WALLET.toString({ bounceable: true }))).toBe(WALLET.toString({ bounceable: false }));
    expect(canonicalTonAddress('not an address')).toBe('not an address');
  });

  it('writes transaction ids as 64 lower-case hex digits', () => {
    expect(tonFamily.txid!('AB'.repeat(32))).toBe('ab'.repeat(32));
  });
});
