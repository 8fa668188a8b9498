// Payment URIs and QR contents of a payment that must carry a reference (a comment): TON's
// ton://transfer link with `text`, read back with URL parsing and @ton/core; the QR of a deposit
// key is that link (never the key); every other format is unchanged.
import { Address } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { families } from '../../src/compose.ts';
import { Registry } from '../../src/registry/index.ts';
import { depositKey } from '../../src/chain/watch-paths.ts';
import { paymentUri, qrContent } from '../helpers/addresses.ts';

const WALLET = new Address(0, Buffer.from('3c'.repeat(32), 'hex')).toString({ bounceable: false });
const MASTER = 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs';
const TON = { format: 'ton', scheme: 'ton', address: WALLET, decimals: 9, native: true } as const;
const USDT = { ...TON, decimals: 6, native: false, contract: MASTER } as const;
const registry = Registry.load();

describe('ton://transfer with a comment', () => {
  it('puts the amount in base units and the comment in text', () => {
    expect(paymentUri({ ...TON, amount: '2.5', reference: 'q7Hk2mZp9T' })).toBe(`ton://transfer/${WALLET}?amount=2500000000&text=q7Hk2mZp9T`);
    expect(paymentUri({ ...TON, reference: 'q7Hk2mZp9T' })).toBe(`ton://transfer/${WALLET}?text=q7Hk2mZp9T`);
    expect(paymentUri({ ...TON, amount: '2.5' })).toBe(`ton://transfer/${WALLET}?amount=2500000000`);
  });

  it('names the jetton master for USDT, the amount in the jetton\'s units', () => {
    const uri = paymentUri({ ...USDT, amount: '12.5', reference: 'abcDEF1234' })!;
    expect(uri).toBe(`ton://transfer/${WALLET}?jetton=${MASTER}&amount=12500000&text=abcDEF1234`);
    const u = new URL(uri);
    expect(u.protocol).toBe('ton:');
    expect(u.searchParams.get('jetton')).toBe(MASTER);
    expect(u.host).toBe('transfer');
    expect(Address.parse(decodeURIComponent(u.pathname.slice(1))).toRawString()).toBe(Address.parse(WALLET).toRawString());
    expect(u.searchParams.get('text')).toBe('abcDEF1234');
  });

  it('percent-encodes what a URI cannot carry as it is', () => {
    const uri = paymentUri({ ...TON, reference: 'a b&c=d/é#' })!;
    expect(uri).toBe(`ton://transfer/${WALLET}?text=a%20b%26c%3Dd%2F%C3%A9%23`);
    expect(new URL(uri).searchParams.get('text')).toBe('a b&c=d/é#');
    // A base64 (not url-safe) wallet's '/' and '+' are escaped in the path.
    const std = new Address(0, Buffer.from('fb'.repeat(32), 'hex')).toString({ urlSafe: false });
    expect(std).toMatch(/[+/]/);
    expect(paymentUri({ ...TON, address: std, reference: 'x' })).toBe(`ton://transfer/${encodeURIComponent(std)}?text=x`);
  });

  it('the payer\'s QR carries the link whenever there is a comment (a plain address would lose it)', () => {
    expect(qrContent({ ...TON, amount: '2.5', reference: 'q7Hk2mZp9T' })).toBe(`ton://transfer/${WALLET}?amount=2500000000&text=q7Hk2mZp9T`);
    expect(qrContent({ ...USDT, amount: '1', reference: 'q7Hk2mZp9T' })).toBe(`ton://transfer/${WALLET}?jetton=${MASTER}&amount=1000000&text=q7Hk2mZp9T`);
    // Without a comment, as before: the plain address.
    expect(qrContent({ ...TON, amount: '2.5' })).toBe(WALLET);
  });
});

describe('the QR of an allocated deposit', () => {
  const ton = registry.network('TON')!;
  const tron = registry.network('TRON')!;

  it('is the ton:// link with the comment for a deposit key, never the key', () => {
    const key = depositKey(WALLET, 'q7Hk2mZp9T');
    expect(families.addresses.depositQrContent(ton, key)).toBe(`ton://transfer/${WALLET}?text=q7Hk2mZp9T`);
    expect(families.addresses.depositQrContent(ton, WALLET, 'q7Hk2mZp9T')).toBe(`ton://transfer/${WALLET}?text=q7Hk2mZp9T`);
    expect(families.addresses.depositQrContent(ton, key)).not.toContain('#');
  });

  it('is the address itself everywhere else', () => {
    expect(families.addresses.depositQrContent(ton, WALLET)).toBe(WALLET);
    expect(families.addresses.depositQrContent(tron, 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH')).toBe('TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH');
  });

  it('leaves other formats\' URIs alone when no reference is given', () => {
    const o = { format: 'tron', scheme: 'tron', address: 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH', decimals: 6, native: true } as const;
    expect(paymentUri({ ...o, amount: '1' })).toBe('tron:TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH?amount=1');
  });
});
