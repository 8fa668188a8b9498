// Decimal: which texts are amounts, exact arithmetic and rounding, and bounded parsing.
import { describe, expect, it } from 'vitest';
import { AMOUNT_BOUND, Decimal, DecimalFormatError, MAX_DECIMAL_TEXT, dec, sum } from '../../src/money/decimal.ts';

describe('Decimal.tryParse accepts plain notation only', () => {
  const accepted: Array<[string, string]> = [
    ['0', '0'],
    ['10', '10'],
    ['10.28', '10.28'],
    ['-0.5', '-0.5'],
    ['+7', '7'],
    ['.5', '0.5'],
    ['5.', '5'],
    ['000012.3400', '12.34'],
    ['-0', '0'],
    ['0.000000000000000001', '0.000000000000000001'],
    ['1'.repeat(MAX_DECIMAL_TEXT), '1'.repeat(MAX_DECIMAL_TEXT)],
  ];
  it.each(accepted)('%j -> %s', (text, shown) => {
    expect(Decimal.tryParse(text)?.toString()).toBe(shown);
  });

  const refused = [
    '',
    '.',
    '-',
    '+',
    '1e3',
    '1E3',
    '4e-400000000',
    '1e+400000000',
    '0x10',
    '1_000',
    '1,5',
    ' 1',
    '1 ',
    '--1',
    '1..2',
    '1.2.3',
    'NaN',
    'Infinity',
    '١٢',
    '１２',
    '1\u0000',
    '1'.repeat(MAX_DECIMAL_TEXT + 1),
    '0.' + '0'.repeat(200) + '1',
    '9'.repeat(100000),
  ];
  it.each(refused.map((t) => [t.length > 40 ? `${t.slice(0, 20)}... (${t.length} chars)` : JSON.stringify(t), t]))('refuses %s', (_label, text) => {
    expect(Decimal.tryParse(text)).toBeNull();
    expect(Decimal.isDecimal(text)).toBe(false);
    expect(() => Decimal.parse(text)).toThrow(DecimalFormatError);
  });

  it('refuses what is not a string', () => {
    for (const v of [5, null, undefined, {}, [], 5n]) expect(Decimal.tryParse(v as unknown as string)).toBeNull();
  });
});

describe('Decimal arithmetic is exact', () => {
  it('adds and subtracts across scales without float error', () => {
    expect(dec('0.1').add('0.2').toString()).toBe('0.3');
    expect(dec('1').sub('0.000000000000000001').toString()).toBe('0.999999999999999999');
    expect(sum(['0.1', '0.2', '0.3', dec('-0.6')]).isZero()).toBe(true);
  });

  it('multiplies, takes percentages and divides with each rounding', () => {
    expect(dec('1.5').mul('1.5').toString()).toBe('2.25');
    expect(dec('200').percent('2.5').toString()).toBe('5');
    expect(dec('10').div('3', 2, 'down').toString()).toBe('3.33');
    expect(dec('10').div('3', 2, 'up').toString()).toBe('3.34');
    expect(dec('-10').div('3', 2, 'up').toString()).toBe('-3.34');
    expect(dec('0.125').round(2, 'half-up').toString()).toBe('0.13');
    expect(dec('0.124').round(2, 'half-up').toString()).toBe('0.12');
    expect(dec('1').div('-4', 2, 'down').toString()).toBe('-0.25');
    expect(() => dec('1').div('0', 2, 'down')).toThrow(RangeError);
  });

  it('compares values, not texts', () => {
    expect(dec('1.50').eq('1.5')).toBe(true);
    expect(dec('-0').eq('0')).toBe(true);
    expect(dec('10').gt('9.999999')).toBe(true);
    expect(dec('-2').lt('-1')).toBe(true);
    expect(dec('3').max('4').toString()).toBe('4');
    expect(dec('3').min('4').toString()).toBe('3');
  });

  it('formats amounts and base units', () => {
    expect(dec('15').toAmount()).toBe('15.00');
    expect(dec('0.00012000').toAmount()).toBe('0.00012');
    expect(dec('15.000000').toFixedString()).toBe('15.000000');
    expect(dec('1.5').toBaseUnits(8)).toBe(150000000n);
    expect(Decimal.fromBaseUnits(150000000n, 8).toString()).toBe('1.5');
    expect(() => dec('1.123456789').toBaseUnits(8)).toThrow(RangeError);
    expect(dec('12.3400').places()).toBe(2);
  });
});

describe('amounts are bounded to what the ledger can hold', () => {
  const max = '9'.repeat(AMOUNT_BOUND.integerDigits);
  it.each([
    ['0', true],
    [max, true],
    [`-${max}`, true],
    [`${max}.${'9'.repeat(AMOUNT_BOUND.places)}`, true],
    [`1${'0'.repeat(AMOUNT_BOUND.integerDigits)}`, false],
    [`0.${'0'.repeat(AMOUNT_BOUND.places)}1`, false],
    [`1.${'0'.repeat(40)}`, true],
    ['1' + '0'.repeat(78), false],
  ])('%s bounded: %s', (text, ok) => {
    expect(dec(text).isBoundedAmount()).toBe(ok);
  });

  it('a balance of many maximal amounts still parses', () => {
    const big = dec(`${max}.${'9'.repeat(AMOUNT_BOUND.places)}`);
    const total = big.mul(Decimal.of(10n ** 20n));
    expect(Decimal.tryParse(total.toString())).not.toBeNull();
  });
});
