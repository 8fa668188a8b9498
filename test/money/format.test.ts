import { describe, expect, it } from 'vitest';
import { isoMsk, money } from '../../src/money/format.ts';
import { Decimal } from '../../src/money/decimal.ts';

describe('money', () => {
  it('writes every amount as Decimal does, whether or not the text is already in its final form', () => {
    const digits = (n: number) => Array.from({ length: n }, () => String(Math.floor(Math.random() * 10))).join('');
    const samples = ['0', '0.0', '0.00', '0.10', '0.1', '00.10', '10', '10.50', '10.500', '10.505', '0.00012345', '0.000123450', '-1.50', '-0.00', '1e3', '12.30', '7.', '.5', `1.${'5'.repeat(79)}`, `1.${'5'.repeat(77)}`];
    for (let i = 0; i < 5000; i++) {
      const int = Math.random() < 0.2 ? '0' : digits(1 + Math.floor(Math.random() * 25));
      const frac = Math.random() < 0.2 ? '' : `.${digits(Math.floor(Math.random() * 20))}`;
      samples.push(`${Math.random() < 0.05 ? '-' : ''}${int}${frac}`);
    }
    let checked = 0;
    for (const s of samples) {
      let expected: string | Error;
      try {
        expected = Decimal.parse(s).toAmount(2);
      } catch (e) {
        expected = e as Error;
      }
      if (expected instanceof Error) {
        expect(() => money(s), s).toThrow();
      } else {
        expect(money(s), s).toBe(expected);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(4000);
    expect(money('15')).toBe('15.00');
    expect(money('0.00012345')).toBe('0.00012345');
    expect(money(null)).toBeNull();
  });
});

describe('isoMsk', () => {
  it('writes UTC+3 with seconds, for ordinary and far dates alike', () => {
    expect(isoMsk(Date.UTC(2023, 5, 7, 13, 2, 39, 512))).toBe('2023-06-07T16:02:39+03:00');
    expect(isoMsk(Date.UTC(2023, 11, 31, 22, 0, 0))).toBe('2024-01-01T01:00:00+03:00');
    expect(isoMsk(Date.UTC(10000, 0, 1))).toBe('+010000-01-01T03:00:00+03:00');
  });
});
