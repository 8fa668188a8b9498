import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { signBody, verifySignature } from '../../src/webhooks/signature.ts';
import { MERCHANT_OPERATIONS } from '../../src/contracts/merchant-api/index.ts';

const keyOf = (path: string) => MERCHANT_OPERATIONS.find((op) => op.path === path)?.signedWith;

const fixtures = JSON.parse(readFileSync(new URL('../fixtures/signatures.json', import.meta.url), 'utf8')) as {
  api_key: string;
  vectors: Array<{ note: string; body: string; sign: string }>;
};

describe('request signature (D2)', () => {
  for (const v of fixtures.vectors) {
    it(`matches the shared vector: ${v.note}`, () => {
      expect(signBody(Buffer.from(v.body, 'utf8'), fixtures.api_key)).toBe(v.sign);
      expect(verifySignature(Buffer.from(v.body, 'utf8'), fixtures.api_key, v.sign)).toBe(true);
      expect(verifySignature(Buffer.from(v.body, 'utf8'), fixtures.api_key, v.sign.toUpperCase())).toBe(true);
      expect(verifySignature(Buffer.from(v.body + ' ', 'utf8'), fixtures.api_key, v.sign)).toBe(false);
      expect(verifySignature(Buffer.from(v.body, 'utf8'), 'other-key', v.sign)).toBe(false);
    });
  }

  it('chooses the payout key for payouts, transfers and refunds only', () => {
    expect(keyOf('/v1/payment')).toBe('payment');
    expect(keyOf('/v1/payment/refund')).toBe('refund'); // the payout key unless the merchant allows either
    expect(keyOf('/v1/payout/calc')).toBe('payout');
    expect(keyOf('/v1/transfer/to-business')).toBe('payout');
    expect(keyOf('/v1/wallet')).toBe('payment');
    expect(keyOf('/v1/test-webhook/payout')).toBe('payment_or_payout');
    const byKey = (key: string) => MERCHANT_OPERATIONS.filter((op) => op.signedWith === key).map((op) => op.path).sort();
    expect(byKey('payout')).toEqual(['/v1/payout', '/v1/payout/calc', '/v1/payout/calculate', '/v1/payout/info', '/v1/payout/list', '/v1/payout/services', '/v1/transfer/to-business', '/v1/transfer/to-personal']);
  });
});
