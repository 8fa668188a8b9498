// The Solana Pay transfer request a Solana invoice is paid with (link and QR), read back by
// @solana/pay's own parser: recipient, amount, mint, reference and label as the wallet will see them.
import { describe, expect, it } from 'vitest';
import { base58 } from '@scure/base';
import { ed25519 } from '@noble/curves/ed25519.js';
import { parseURL, type TransferRequestURL } from '@solana/pay';
import { families } from '../../../src/compose.ts';
import { Registry } from '../../../src/registry/index.ts';
import { solanaReference } from '../../../src/chain/solana/custody.ts';
import { solanaFamily } from '../../../src/chain/solana/index.ts';

const SOL = Registry.load().network('SOL')!;
const USDC = SOL.currencies.find((c) => c.code === 'USDC')!;
const WALLET = base58.encode(ed25519.getPublicKey(new Uint8Array(32).fill(5)));
const REFERENCE = solanaReference('0b6f3c1e-7f7a-4a53-9a43-2f4d3b1c9e10', 3);
const formats = families.addresses;

function parsed(url: string): TransferRequestURL {
  const r = parseURL(url);
  if (!('recipient' in r)) throw new Error('not a transfer request');
  return r;
}

describe('Solana Pay transfer requests', () => {
  it('asks for USDC: recipient the wallet, amount in tokens, spl-token the mint, the reference, the label', () => {
    const opts = { format: 'solana', scheme: 'solana', address: WALLET, amount: '12.50', decimals: 6, contract: USDC.contract, native: false, reference: REFERENCE, label: 'Café & Co #1' } as const;
    const uri = formats.paymentUri(opts)!;
    expect(uri).toBe(`solana:${WALLET}?amount=12.5&spl-token=${USDC.contract}&reference=${REFERENCE}&label=Caf%C3%A9%20%26%20Co%20%231`);
    const r = parsed(uri);
    expect(r).toMatchObject({ recipient: WALLET, splToken: USDC.contract, reference: [REFERENCE], label: 'Café & Co #1' });
    expect(r.amount).toBe(12.5);
    // The QR carries the same link: the reference must reach the wallet.
    expect(formats.qrContent(opts)).toBe(uri);
  });

  it('asks for SOL with no spl-token, the amount as plain decimal text to the lamport', () => {
    for (const [amount, text] of [['0.000000001', '0.000000001'], ['1000000', '1000000'], ['2.100000000', '2.1'], ['0.5', '0.5']] as const) {
      const uri = formats.paymentUri({ format: 'solana', scheme: 'solana', address: WALLET, amount, decimals: 9, native: true, reference: REFERENCE })!;
      expect(new URL(uri).searchParams.get('amount')).toBe(text);
      expect(uri).not.toMatch(/e-?\d|spl-token|label/);
      const r = parsed(uri);
      expect(r).toMatchObject({ recipient: WALLET, splToken: undefined, reference: [REFERENCE] });
      expect(r.amount).toBe(Number(text));
    }
    // More places than the coin has is refused, never rounded into a different request.
    expect(() => formats.paymentUri({ format: 'solana', scheme: 'solana', address: WALLET, amount: '0.0000000001', decimals: 9, native: true, reference: REFERENCE })).toThrow(RangeError);
  });

  it('is the QR of an allocated deposit too (no amount): the wallet with the reference', () => {
    const content = formats.depositQrContent(SOL, `${WALLET}#${REFERENCE}`);
    expect(content).toBe(`solana:${WALLET}?reference=${REFERENCE}`);
    expect(parsed(content)).toMatchObject({ recipient: WALLET, amount: undefined, reference: [REFERENCE] });
  });

  it('keeps the reference out of the payment comment: it is in the link only', () => {
    expect(formats.shownComment(SOL, REFERENCE)).toBeNull();
    expect(formats.shownComment(Registry.load().network('TON'), 'q7Hk2mZp9T')).toBe('q7Hk2mZp9T');
    expect(formats.shownComment(SOL, null)).toBeNull();
  });

  it('asks for the mint the operator configured over the registry\'s', () => {
    const other = base58.encode(new Uint8Array(32).fill(9));
    expect(solanaFamily.paymentTarget!(SOL, { driver: 'solana', tokens: { usdc: other } }, USDC)).toEqual({ chainId: undefined, contract: other });
    expect(solanaFamily.paymentTarget!(SOL, undefined, USDC).contract).toBe(USDC.contract);
    expect(solanaFamily.paymentTarget!(SOL, { tokens: { USDC: other } }, SOL.currencies.find((c) => c.native)!).contract).toBeUndefined();
  });
});
