import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { signBody, verifySignature, keyKindFor } from '../../src/http/signature.ts';

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
    expect(keyKindFor('/v1/payment')).toBe('payment');
    expect(keyKindFor('/v1/payment/refund')).toBe('payout');
    expect(keyKindFor('/v1/payout/calc')).toBe('payout');
    expect(keyKindFor('/v1/transfer/to-business')).toBe('payout');
    expect(keyKindFor('/v1/wallet')).toBe('payment');
    expect(keyKindFor('/v1/test-webhook/payout')).toBe('payment');
  });
});
